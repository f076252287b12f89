// The UI's pure pieces: run-form checks, the restart plan, the side-by-side
// diff, the graph's layout, the namespace tree, route matching, why task runs
// wait, the schema under a pointer for hover docs, the share of an AI
// limit used, approval gates (what a node says, who may decide, the form's values),
// and the Files tab's preview of a file's first 64 KiB.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkInputs } from './components/RunForm.tsx';
import { restartPlan } from './pages/Execution.tsx';
import { sideBySide } from './components/DiffView.tsx';
import { layoutGraph, NODE_H, NODE_W } from './components/graph-layout.ts';
import { namespaceTree } from './pages/Flows.tsx';
import { match } from './router.tsx';
import { fmtDuration } from './ui.tsx';
import { retryPolicy, taskWaits } from './components/waits.ts';
import { schemaAt } from './editor/schema-at.ts';
import { share } from './pages/admin/AIUsage.tsx';
import { itemCounter, latestItems, latestRuns } from './components/task-runs.ts';
import { ganttRows, ITEM_ROWS } from './components/Gantt.tsx';
import { approvalInputs, approvalNote, approversText, mayNotDecide, type Approval } from './components/approvals.ts';
import { PREVIEW_BYTES, isCsv, previewOf } from './components/file-preview.ts';
import { kindOf } from './components/ExecutionFiles.tsx';
import type { FlowDefinition, FlowInput, TaskRun } from './types.ts';

describe('run form checks', () => {
  const inputs: FlowInput[] = [
    { id: 'n', type: 'int', required: true },
    { id: 'x', type: 'number' },
    { id: 'mode', type: 'select', values: ['a', 'b', 3] },
    { id: 'cfg', type: 'json' },
    { id: 'flag', type: 'boolean' },
    { id: 'name', type: 'string', required: true, default: 'anon' },
  ];
  it('types the values and leaves empty optional ones out', () => {
    const r = checkInputs(inputs, { n: '4', x: '2.5', mode: '3', cfg: '{"a":1}', flag: true, name: '' });
    assert.deepEqual(r.errors, {});
    assert.deepEqual(r.ok, { n: 4, x: 2.5, mode: 3, cfg: { a: 1 }, flag: true });
  });
  it('names each problem: required, whole number, number, select value, JSON', () => {
    const r = checkInputs(inputs, { n: '', x: 'abc', mode: 'z', cfg: '{', flag: false, name: '' });
    assert.equal(r.errors.n, 'Required');
    assert.equal(r.errors.x, 'Must be a number');
    assert.match(r.errors.mode!, /one of a, b, 3/);
    assert.match(r.errors.cfg!, /Not valid JSON/);
    assert.equal(r.errors.name, undefined, 'a required input with a default may stay empty');
    assert.equal(checkInputs(inputs, { n: '2.5' }).errors.n, 'Must be a whole number');
  });
  it('sends a file input as its upload id, and asks for a file when a required one has none', () => {
    // `file` is an extension type: its value is the id createUpload answered.
    const files: FlowInput[] = [
      { id: 'report', type: 'file', required: true },
      { id: 'extra', type: 'file' },
    ];
    assert.deepEqual(checkInputs(files, { report: 'upl_1', extra: '' }), { ok: { report: 'upl_1' }, errors: {} });
    assert.deepEqual(checkInputs(files, { report: '', extra: '' }).errors, { report: 'Required: drop or choose a file' });
  });
});

describe('restart plan', () => {
  const run = (task_key: string, attempt: number, state: TaskRun['state']) => ({ id: `${task_key}${attempt}`, task_key, attempt, state }) as TaskRun;
  it('reuses tasks whose latest attempt succeeded and runs the others again', () => {
    const plan = restartPlan([run('a', 1, 'SUCCESS'), run('b', 1, 'FAILED'), run('b', 2, 'SUCCESS'), run('c', 1, 'SUCCESS'), run('c', 2, 'FAILED'), run('d', 1, 'SKIPPED')]);
    assert.deepEqual(plan, { reused: ['a', 'b'], again: ['c', 'd'] });
  });
});

describe('fan-out', () => {
  const counts = { total: 12, pending: 2, queued: 1, running: 3, success: 4, failed: 1, timed_out: 1, cancelled: 0, skipped: 0 };
  const run = (id: string, extra: Partial<TaskRun>) => ({ id, task_key: 'load', attempt: 1, state: 'SUCCESS', queued_at: '2026-01-01T00:00:00Z', ...extra }) as TaskRun;
  const runs = [
    run('p', { state: 'RUNNING', fan_out: 12, item_counts: counts }),
    run('i1a', { item_index: 1, state: 'FAILED', attempt: 1 }),
    run('i0', { item_index: 0, attempt: 1 }),
    run('i1b', { item_index: 1, state: 'RUNNING', attempt: 2 }),
  ];
  it("the task's latest run is its own, never an item's", () => {
    assert.equal(latestRuns(runs).get('load')?.id, 'p');
    assert.deepEqual(restartPlan(runs), { reused: [], again: ['load'] });
  });
  it('takes the latest attempt of each item by index', () => {
    assert.deepEqual(
      latestItems(runs, 'load').map((r) => r.id),
      ['i0', 'i1b'],
    );
  });
  it('counts items for the node: done, running, failed (timed out included), then waiting when some wait', () => {
    assert.equal(itemCounter(runs[0]), '12 items: 4 done, 3 running, 2 failed, 3 waiting');
    assert.equal(
      itemCounter(run('q', { fan_out: 0, item_counts: { ...counts, total: 0, pending: 0, queued: 0, running: 0, success: 0, failed: 0, timed_out: 0 } })),
      '0 items: 0 done, 0 running, 0 failed',
    );
    assert.equal(itemCounter(run('q', {}), true), 'items not listed yet');
    assert.equal(itemCounter(run('q', {})), undefined);
  });
  it('puts the items under their task in the timeline, by index then attempt, and counts those past the limit', () => {
    const rows = ganttRows([run('other', { task_key: 'list' }), ...runs]);
    assert.deepEqual(
      rows.map((r) => ('run' in r ? r.run.id : `+${r.more}`)),
      ['other', 'p', 'i0', 'i1a', 'i1b'],
    );
    const many = Array.from({ length: ITEM_ROWS + 5 }, (_, i) => run(`x${i}`, { item_index: i }));
    const capped = ganttRows([runs[0], ...many]);
    assert.equal(capped.length, 1 + ITEM_ROWS + 1);
    assert.deepEqual(capped.at(-1), { more: 5, task: 'load' });
  });
});

describe('side-by-side diff', () => {
  it('pairs removals with additions and keeps context on both sides', () => {
    const rows = sideBySide(['--- a/f', '+++ b/f', '@@ -1,3 +1,3 @@', ' id: x', '-a: 1', '+a: 2', ' b: 3'].join('\n'));
    assert.deepEqual(rows.slice(1), [
      { left: { n: 1, text: 'id: x', kind: 'ctx' }, right: { n: 1, text: 'id: x', kind: 'ctx' } },
      { left: { n: 2, text: 'a: 1', kind: 'del' }, right: { n: 2, text: 'a: 2', kind: 'add' } },
      { left: { n: 3, text: 'b: 3', kind: 'ctx' }, right: { n: 3, text: 'b: 3', kind: 'ctx' } },
    ]);
  });

  it('reads lines that look like headers by the hunk counts, and every hunk of every file', () => {
    // A removed YAML document marker is the line `----`, an added `++ x` the line `+++ x`: both are content.
    const unified = [
      '--- a/f.flow.yaml',
      '+++ b/f.flow.yaml',
      '@@ -1,2 +1,2 @@',
      '----',
      '+++ x',
      ' id: x',
      '--- a/g',
      '+++ b/g',
      '@@ -10,1 +10,2 @@',
      ' k: 1',
      '+v: 2',
      '\\ No newline at end of file',
    ].join('\n');
    const rows = sideBySide(unified);
    assert.deepEqual(rows, [
      {},
      { left: { n: 1, text: '---', kind: 'del' }, right: { n: 1, text: '++ x', kind: 'add' } },
      { left: { n: 2, text: 'id: x', kind: 'ctx' }, right: { n: 2, text: 'id: x', kind: 'ctx' } },
      {},
      { left: { n: 10, text: 'k: 1', kind: 'ctx' }, right: { n: 10, text: 'k: 1', kind: 'ctx' } },
      { left: undefined, right: { n: 11, text: 'v: 2', kind: 'add' } },
    ]);
  });
});

describe('task graph layout', () => {
  it('places each task right of its dependencies, adds tasks only the runs know, and survives a cycle', () => {
    const g = layoutGraph(
      [
        { id: 'a', type: 'command' },
        { id: 'b', type: 'command', depends_on: ['a'] },
        { id: 'c', type: 'command', depends_on: ['a', 'b', 'unknown'] },
        { id: 'x', type: 'command', depends_on: ['y'] },
        { id: 'y', type: 'command', depends_on: ['x'] },
      ],
      [{ task_key: 'file-task', task_type: 'command' } as TaskRun],
    );
    const at = new Map(g.nodes.map((n) => [n.id, n]));
    assert.ok(at.get('a')!.x < at.get('b')!.x && at.get('b')!.x < at.get('c')!.x);
    assert.ok(at.has('x') && at.has('y') && at.has('file-task'));
    assert.deepEqual(
      g.edges
        .filter((e) => e.to === 'c')
        .map((e) => e.from)
        .sort(),
      ['a', 'b'],
    );
    for (const n of g.nodes) assert.ok(n.x + NODE_W <= g.width && n.y + NODE_H <= g.height);
  });
});

describe('namespace tree and routes', () => {
  it('nests dot-separated namespaces, adding missing parents', () => {
    const t = namespaceTree(['team.etl', 'team', 'other.a.b']);
    assert.deepEqual(
      t.map((n) => n.full),
      ['other', 'team'],
    );
    assert.equal(t[0]!.children[0]!.children[0]!.full, 'other.a.b');
    assert.equal(t[1]!.children[0]!.full, 'team.etl');
  });
  it('matches routes with params, dots and encoded parts', () => {
    assert.deepEqual(match('/flows/:ns/:flow', '/flows/team.etl/daily'), { ns: 'team.etl', flow: 'daily' });
    assert.deepEqual(match('/executions/:id', '/executions/a%2Fb'), { id: 'a/b' });
    assert.equal(match('/executions/:id', '/executions'), null);
    assert.equal(match('/', '/x'), null);
  });
});

describe('durations', () => {
  it('never writes 60 seconds', () => {
    assert.equal(fmtDuration(599_600), '10m 0s');
    assert.equal(fmtDuration(61_000), '1m 1s');
    assert.equal(fmtDuration(3_600_000), '1h 0m');
  });
});

describe('why task runs wait', () => {
  const run = (task_key: string, state: string, extra: Partial<TaskRun> = {}) =>
    ({ id: `${task_key}-${extra.attempt ?? 1}`, task_key, state, attempt: 1, pool: 'default', executor_type: 'process', reason: '', error: '', ...extra }) as TaskRun;
  it('names unfinished dependencies, a failed one with attempts left among them', () => {
    const def: FlowDefinition = {
      id: 'f',
      tasks: [
        { id: 'a', type: 'command', retry: { max_attempts: 2 } },
        { id: 'b', type: 'command' },
        { id: 'c', type: 'command', depends_on: ['a', 'b'] },
      ],
    };
    const waits = taskWaits(def, [run('a', 'FAILED', { ended_at: new Date(0).toISOString() }), run('b', 'SUCCESS'), run('c', 'PENDING')], 0);
    assert.deepEqual(waits, [{ kind: 'dependencies', task: 'c', waitingFor: [{ task: 'a', state: 'FAILED' }] }]);
    // Once a has no attempts left it has ended: c is no longer waiting for it.
    assert.deepEqual(taskWaits({ ...def, tasks: def.tasks.map((t) => ({ ...t, retry: undefined })) }, [run('a', 'FAILED'), run('b', 'SUCCESS'), run('c', 'PENDING')], 0), []);
  });
  it('leaves a task waiting for approval to the approval banner, even with max_parallel reached', () => {
    const def: FlowDefinition = { id: 'f', max_parallel: 1, tasks: ['a', 'b'].map((id) => ({ id, type: 'command' })) };
    assert.deepEqual(taskWaits(def, [run('a', 'RUNNING'), run('b', 'PENDING', { reason: 'awaiting_approval' })], 0), []);
  });
  it('takes a rejected task as ended, whatever its attempts left: a decision is not retried', () => {
    const def: FlowDefinition = {
      id: 'f',
      tasks: [
        { id: 'deploy', type: 'command', retry: { max_attempts: 3 } },
        { id: 'after', type: 'command', depends_on: ['deploy'] },
      ],
    };
    assert.deepEqual(taskWaits(def, [run('deploy', 'FAILED', { reason: 'rejected' }), run('after', 'PENDING')], 0), []);
    assert.equal(taskWaits(def, [run('deploy', 'FAILED', { reason: 'exit_code' }), run('after', 'PENDING')], 0)[0]?.kind, 'dependencies');
  });
  it('names the tasks that hold max_parallel', () => {
    const def: FlowDefinition = { id: 'f', max_parallel: 2, tasks: ['a', 'b', 'c'].map((id) => ({ id, type: 'command' })) };
    assert.deepEqual(taskWaits(def, [run('a', 'RUNNING'), run('b', 'QUEUED'), run('c', 'PENDING')], 0), [{ kind: 'max_parallel', task: 'c', limit: 2, holders: ['a', 'b'] }]);
    assert.deepEqual(taskWaits({ ...def, max_parallel: 3 }, [run('a', 'RUNNING'), run('b', 'QUEUED'), run('c', 'PENDING')], 0), []);
  });
  it("dates a retry from the failed attempt's end and the backoff: task over flow over defaults", () => {
    const def: FlowDefinition = { id: 'f', retry: { max_attempts: 4, backoff: 'exponential', initial: '1s', max: '3s' }, tasks: [{ id: 'a', type: 'command' }] };
    assert.deepEqual(retryPolicy(def, 'a'), { maxAttempts: 4, backoff: 'exponential', initialMs: 1000, maxMs: 3000 });
    assert.deepEqual(retryPolicy({ id: 'f', tasks: [] }, 'a'), { maxAttempts: 1, backoff: 'fixed', initialMs: 10_000, maxMs: 600_000 });
    const end = Date.parse('2030-01-01T00:00:00Z');
    const runs = [
      run('a', 'FAILED', { ended_at: new Date(end).toISOString() }),
      run('a', 'FAILED', { attempt: 2, ended_at: new Date(end + 5000).toISOString() }),
      run('a', 'QUEUED', { attempt: 3 }),
    ];
    const [w] = taskWaits(def, runs, end + 5000);
    assert.equal(w?.kind, 'retry_backoff');
    // After attempt 2, exponential: 1s * 2 = 2s.
    assert.ok(w?.kind === 'retry_backoff' && w.dueAt === end + 7000 && w.attempt === 3 && w.maxAttempts === 4);
    // Not before the definition is known: the defaults would tell a wrong time and count.
    assert.deepEqual(taskWaits(undefined, runs, end + 5000), []);
    // Past the due time the run waits for a slot, not for the backoff.
    assert.deepEqual(taskWaits(def, runs, end + 7001), []);
  });
});

describe('schema under a pointer (hover docs)', () => {
  // Shaped like the flow schema: tasks are a $ref to a definition with allOf of if/then rules.
  const schema = {
    $ref: '#/$defs/Flow',
    $defs: {
      Flow: {
        type: 'object',
        properties: {
          tasks: { description: 'The tasks.', type: 'array', items: { $ref: '#/$defs/Task' } },
          env: { type: 'object', additionalProperties: { type: 'string', description: 'An env template.' } },
        },
      },
      Task: {
        description: 'A task.',
        type: 'object',
        properties: { id: { type: 'string', description: 'Task id.' }, retry: { $ref: '#/$defs/Retry', description: 'Overrides the flow retry.' } },
        allOf: [{ if: { properties: { type: { const: 'command' } } }, then: { properties: { command: { type: 'array', description: 'The argv.' } } } }],
        unevaluatedProperties: false,
      },
      Retry: { type: 'object', description: 'Retry policy.', properties: { max_attempts: { type: 'integer', description: 'Attempts in all.' } } },
    },
  };
  it("finds a task's own keys, keys of its if/then rules, and into refs, maps and items", () => {
    assert.equal(schemaAt(schema, '/tasks')?.description, 'The tasks.');
    assert.equal(schemaAt(schema, '/tasks/1')?.description, 'A task.');
    assert.equal(schemaAt(schema, '/tasks/0/id')?.description, 'Task id.');
    assert.equal(schemaAt(schema, '/tasks/0/command')?.description, 'The argv.');
    // The use site's description beside $ref wins; the definition's type shows.
    assert.deepEqual([schemaAt(schema, '/tasks/0/retry')?.description, schemaAt(schema, '/tasks/0/retry')?.type], ['Overrides the flow retry.', 'object']);
    assert.equal(schemaAt(schema, '/tasks/0/retry/max_attempts')?.description, 'Attempts in all.');
    assert.equal(schemaAt(schema, '/env/ANY_KEY')?.description, 'An env template.');
    assert.equal(schemaAt(schema, '/tasks/0/nope'), undefined);
  });
});

describe('share of an AI limit used', () => {
  it('is floored, so 100% means reached; a small use is <1%, none is 0%', () => {
    assert.deepEqual(
      [share(0, 20), share(8, 20), share(699, 4000), share(1, 1000), share(999, 1000), share(1000, 1000), share(7, 5), share(3, 0)],
      ['0%', '40%', '17%', '<1%', '99%', '100%', '100%', '—'],
    );
  });
});

describe('approval gates', () => {
  const gate: Approval = {
    status: 'pending',
    requested_at: '2030-01-01T00:00:00Z',
    deadline: null,
    on_timeout: 'fail',
    approvers: { role: 'operator', groups: [] },
    forbid_self_approval: false,
    form: [
      { id: 'ticket', type: 'string', required: true },
      { id: 'risk', type: 'number', required: false },
      { id: 'tested', type: 'boolean', required: false },
    ],
    by: null,
    at: null,
    inputs: {},
    comment: '',
  };
  const run = (extra: Partial<TaskRun>) => ({ id: 'r', task_key: 'deploy', attempt: 1, state: 'PENDING', ...extra }) as TaskRun;
  it('says on the node that a task waits for approval, or how its gate ended it', () => {
    assert.equal(approvalNote(run({ reason: 'awaiting_approval', approval: gate })), 'awaiting approval');
    assert.equal(approvalNote(run({ state: 'FAILED', reason: 'rejected', approval: { ...gate, status: 'rejected' } })), 'rejected');
    assert.equal(approvalNote(run({ state: 'SKIPPED', reason: 'approval_timed_out' })), 'approval timed out');
    // Approved: the task runs as any other.
    assert.equal(approvalNote(run({ state: 'RUNNING', reason: '', approval: { ...gate, status: 'approved' } })), undefined);
  });
  it('names who may decide, and refuses on the page only what the page can know', () => {
    assert.equal(approversText(gate), 'the operator role or above on the namespace');
    assert.equal(
      approversText({ ...gate, approvers: { role: 'editor', groups: ['release', 'qa', 'sre'] } }),
      'the editor role or above on the namespace, or a member of release, qa or sre',
    );
    const me = { email: 'a@example.com' };
    assert.equal(
      mayNotDecide(gate, me, 'b@example.com', () => true),
      null,
    );
    assert.match(mayNotDecide(gate, me, 'b@example.com', () => false) ?? '', /operator role/);
    // In a group perhaps: the service decides.
    assert.equal(
      mayNotDecide({ ...gate, approvers: { role: 'operator', groups: ['release'] } }, me, 'b@example.com', () => false),
      null,
    );
    assert.match(mayNotDecide({ ...gate, forbid_self_approval: true }, me, 'a@example.com', () => true) ?? '', /started/);
    assert.equal(
      mayNotDecide(gate, me, 'a@example.com', () => true),
      null,
    );
  });
  it("types the form's values, leaving empty fields for the service to refuse", () => {
    assert.deepEqual(approvalInputs(gate.form, {}), { tested: false });
    assert.deepEqual(approvalInputs(gate.form, { ticket: 'CHG-1', risk: '3', tested: true }), { ticket: 'CHG-1', risk: 3, tested: true });
    assert.deepEqual(approvalInputs(gate.form, { ticket: '  ', risk: 'x' }), { risk: 'x', tested: false });
  });
});

describe("the Files tab's preview", () => {
  const enc = (t: string) => new TextEncoder().encode(t);
  it('shows a whole text file as it is', () => {
    assert.deepEqual(previewOf(enc('a\nb'), 3, 'notes.txt'), { kind: 'text', text: 'a\nb', truncated: false });
    assert.deepEqual(previewOf(new Uint8Array(), 0, 'empty.txt'), { kind: 'empty' });
  });
  it('cuts a longer file at its last whole line, never in a character', () => {
    // "é" is two bytes: the read ends inside the second line's "é".
    const bytes = enc('line one\nsecond é');
    const p = previewOf(bytes.subarray(0, bytes.length - 1), bytes.length + 100, 'log.txt');
    assert.deepEqual(p, { kind: 'text', text: 'line one\n', truncated: true });
  });
  it('reads CSV as a table, quotes and all', () => {
    const csv = enc('id,name\n1,"Smith, Ann"\n2,"say ""hi"""\n');
    assert.deepEqual(previewOf(csv, csv.length, 'rows.CSV'), {
      kind: 'csv',
      header: ['id', 'name'],
      rows: [
        ['1', 'Smith, Ann'],
        ['2', 'say "hi"'],
      ],
      truncated: false,
    });
    assert.equal(isCsv('data', 'text/csv; charset=utf-8'), true);
    assert.equal(isCsv('data.tsv', 'application/octet-stream'), false);
  });
  it('says binary content is binary: a NUL byte, or bytes that are not UTF-8', () => {
    assert.deepEqual(previewOf(new Uint8Array([65, 0, 66]), 3, 'a.txt'), { kind: 'binary' });
    assert.deepEqual(previewOf(new Uint8Array([0xff, 0xfe, 65]), 3, 'a.csv'), { kind: 'binary' });
    assert.equal(PREVIEW_BYTES, 65536);
  });
  it('sorts files by kind: input, output, else artifact', () => {
    assert.equal(kindOf({ kind: 'output' }), 'output');
    assert.equal(kindOf({ kind: 'input' as 'output' }), 'input');
    assert.equal(kindOf({}), 'artifact');
  });
});
