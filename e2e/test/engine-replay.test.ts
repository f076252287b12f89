// Replay (an extension, docs/using/executions.md#replay) over HTTP with real
// processes: an execution that failed on a wrong input, replayed from its
// third task with the input fixed, reuses the first two (reason `reused`)
// and succeeds; `revision: latest` runs the flow's new revision; a dry run
// answers the plan and starts nothing; a wrong type is 422 on
// `inputs.<id>`, an unknown `from` 422 on `from`, a running execution 409;
// a viewer gets 403 and an operator bound on team-a cannot replay team-b's
// executions; the audit event names the changed inputs, never their values,
// and a value read from secret() never shows in the plan or the audit.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { boundUser, startStack, type Stack } from './stack.js';
import { auditOf, emit, flow, run, sh, tmpDir } from './engine-support.js';

let s: Stack;
const NS = 'team-a';
const OTHER = 'team-b';
const SECRET = 'rp-Zq8-"hook"/+&secret';

/** extract → transform → load; load fails unless inputs.date is a 2026 date. Each run of extract appends a line to <dir>/extract.count. */
const pipeline = (id: string, version = 'v1', extra: Record<string, unknown>[] = []) =>
  flow({
    id,
    labels: { team: 'data' },
    inputs: [
      { id: 'dir', type: 'string' },
      { id: 'date', type: 'string' },
      { id: 'batch', type: 'int', default: 1 },
    ],
    tasks: [
      { id: 'extract', type: 'command', command: sh(`echo run >> "{{ inputs.dir }}/extract.count"; ${emit({ rows: 3 })}`) },
      { id: 'transform', type: 'command', depends_on: ['extract'], command: sh(emit({ rows: 3, version })) },
      {
        id: 'load',
        type: 'command',
        depends_on: ['transform'],
        command: sh(`case "{{ inputs.date }}" in 2026-*) ${emit({ loaded: '{{ inputs.date }}', version })};; *) echo "bad date {{ inputs.date }}" >&2; exit 1;; esac`),
      },
      ...extra,
    ],
  });

const count = (dir: string) => fs.readFileSync(path.join(dir, 'extract.count'), 'utf8').trim().split('\n').length;

/** A token's API, as `s.api` is the admin's. */
const as =
  (token: string) =>
  async (method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const r = await fetch(`${s.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };

/** A failed execution of `flowId` in `ns` (load refused the date). */
async function failedRun(ns: string, flowId: string, dir = tmpDir()): Promise<any> {
  const first = await s.trigger(ns, flowId, { inputs: { dir, date: 'yesterday' }, labels: { ticket: 't-1' } });
  const ex = await s.waitEnded(first.id);
  assert.equal(ex.state, 'FAILED', JSON.stringify(ex));
  assert.equal(run(ex, 'load').state, 'FAILED');
  return ex;
}

before(async () => {
  s = await startStack();
  await s.saveFlow(NS, {
    'etl.flow.yaml': pipeline('etl'),
    'evolving.flow.yaml': pipeline('evolving'),
    'long.flow.yaml': flow({ id: 'long', tasks: [{ id: 'wait', type: 'command', command: ['sleep', '300'] }] }),
    'hooked.flow.yaml': flow({
      id: 'hooked',
      inputs: [
        { id: 'auth', type: 'string' },
        { id: 'who', type: 'string' },
      ],
      triggers: [{ id: 'hook', type: 'webhook', inputs: { auth: "Bearer {{ secret('HOOK_TOKEN') }}", who: '{{ trigger.body.who }}' } }],
      tasks: [
        { id: 'first', type: 'command', command: ['true'] },
        // Fails for ana; otherwise writes the sha256 of what it read (which proves it got the value).
        {
          id: 'use',
          type: 'command',
          depends_on: ['first'],
          env: { AUTH: '{{ inputs.auth }}' },
          command: sh(
            `[ "{{ inputs.who }}" = ana ] && exit 1; node -e 'require("fs").appendFileSync(process.env.SVC_OUTPUTS, JSON.stringify({ outputs: { sha: require("crypto").createHash("sha256").update(process.env.AUTH).digest("hex") } }) + "\\n")'`,
          ),
        },
      ],
    }),
  });
  await s.saveFlow(OTHER, { 'etl.flow.yaml': pipeline('etl') });
  assert.equal((await s.api('PUT', `/api/v1/namespaces/${NS}/secrets/HOOK_TOKEN`, { value: SECRET })).status, 200);
});
after(() => s.stop());

test('a replay from the third task with the input fixed reuses the first two and succeeds; the dry run showed that plan and started nothing', async () => {
  const dir = tmpDir();
  const failed = await failedRun(NS, 'etl', dir);
  const before = (await s.api('GET', `/api/v1/executions?namespace=${NS}&limit=200`)).body.items.length;

  const dry = await s.api('POST', `/api/v1/executions/${failed.id}/replay`, { inputs: { date: '2026-11-01' }, from: 'load', dry_run: true });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  assert.deepEqual(dry.body, {
    reuse: [
      { task_id: 'extract', task_run_id: run(failed, 'extract').id },
      { task_id: 'transform', task_run_id: run(failed, 'transform').id },
    ],
    run: ['load'],
    inputs: { dir, date: '2026-11-01', batch: 1 },
    labels: { team: 'data', ticket: 't-1' },
    changed_inputs: ['date'],
    revision: { kind: 'pinned', flow_revision_id: failed.flow_revision_id },
  });
  assert.equal((await s.api('GET', `/api/v1/executions?namespace=${NS}&limit=200`)).body.items.length, before, 'a dry run starts nothing');

  const r = await s.api('POST', `/api/v1/executions/${failed.id}/replay`, { inputs: { date: '2026-11-01' }, labels: { ticket: null, fixed: 'yes' }, from: 'load' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.replay_of, failed.id);
  assert.equal(r.body.trigger_type, 'replay');
  assert.equal(r.body.trigger_payload.replay_of, failed.id);
  assert.equal(r.body.trigger_payload.replay_from, 'load');
  assert.deepEqual(r.body.labels, { team: 'data', fixed: 'yes' }, 'labels merged over the original, null removes one');
  for (const f of ['snapshot_id', 'flow_revision_id']) assert.equal(r.body[f], failed[f], f);
  const done = await s.waitEnded(r.body.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  for (const k of ['extract', 'transform']) {
    assert.equal(run(done, k).reason, 'reused', k);
    assert.equal(run(done, k).reused_from_id, run(failed, k).id, k);
  }
  assert.equal(run(done, 'load').reused_from_id, null);
  assert.deepEqual(run(done, 'load').outputs, { loaded: '2026-11-01', version: 'v1' });
  assert.equal(count(dir), 1, 'extract did not run again');
  assert.deepEqual(done.inputs, { dir, date: '2026-11-01', batch: 1 });

  const audit = await auditOf(s.api, 'execution.replay', failed.id);
  assert.equal(audit.length, 1, JSON.stringify(audit));
  assert.deepEqual(audit[0].payload.changed_inputs, ['date']);
  assert.equal(audit[0].payload.new_execution_id, done.id);
  assert.equal(audit[0].payload.from, 'load');
  assert.ok(!JSON.stringify(audit[0]).includes('2026-11-01'), 'the audit names the changed inputs, never their values');

  // Without `from`, nothing is reused: every task runs.
  const all = await s.api('POST', `/api/v1/executions/${failed.id}/replay`, { inputs: { date: '2026-11-02' } });
  assert.equal(all.status, 201, JSON.stringify(all.body));
  const again = await s.waitEnded(all.body.id);
  assert.equal(again.state, 'SUCCESS', JSON.stringify(again));
  for (const k of ['extract', 'transform', 'load']) assert.equal(run(again, k).reused_from_id, null, k);
  assert.equal(count(dir), 2);
});

test('revision latest replays on the flow current revision and the namespace current snapshot: its new tasks run', async () => {
  const dir = tmpDir();
  const failed = await failedRun(NS, 'evolving', dir);
  await s.saveFlow(NS, { 'evolving.flow.yaml': pipeline('evolving', 'v2', [{ id: 'publish', type: 'command', depends_on: ['load'], command: sh(emit({ published: true })) }]) });

  const dry = await s.api('POST', `/api/v1/executions/${failed.id}/replay`, { inputs: { date: '2026-11-01' }, from: 'transform', revision: 'latest', dry_run: true });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  assert.deepEqual(dry.body.reuse, [{ task_id: 'extract', task_run_id: run(failed, 'extract').id }]);
  assert.deepEqual(dry.body.run, ['transform', 'load', 'publish']);
  assert.equal(dry.body.revision.kind, 'latest');
  assert.notEqual(dry.body.revision.flow_revision_id, failed.flow_revision_id);

  const r = await s.api('POST', `/api/v1/executions/${failed.id}/replay`, { inputs: { date: '2026-11-01' }, from: 'transform', revision: 'latest' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.notEqual(r.body.flow_revision_id, failed.flow_revision_id);
  assert.notEqual(r.body.snapshot_id, failed.snapshot_id);
  assert.equal(r.body.flow_revision_id, dry.body.revision.flow_revision_id);
  const done = await s.waitEnded(r.body.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(run(done, 'extract').reason, 'reused');
  assert.deepEqual(run(done, 'transform').outputs, { rows: 3, version: 'v2' });
  assert.deepEqual(run(done, 'load').outputs, { loaded: '2026-11-01', version: 'v2' });
  assert.equal(run(done, 'publish').state, 'SUCCESS');
  assert.equal(count(dir), 1);

  // Pinned still runs the original's revision (no publish task).
  const pinned = await s.api('POST', `/api/v1/executions/${failed.id}/replay`, { inputs: { date: '2026-11-01' }, from: 'load', dry_run: true });
  assert.deepEqual(pinned.body.run, ['load']);
});

test('refusals: a wrong input type is 422 on inputs.<id>, an unknown task 422 on from, a running execution 409 not_restartable', async () => {
  const failed = await failedRun(NS, 'etl');
  const bad = await s.api('POST', `/api/v1/executions/${failed.id}/replay`, { inputs: { batch: 'many' }, from: 'load' });
  assert.equal(bad.status, 422, JSON.stringify(bad.body));
  assert.equal(bad.body.error.code, 'validation_failed');
  assert.deepEqual(
    bad.body.error.details.map((d: any) => d.field),
    ['inputs.batch'],
  );
  const dryBad = await s.api('POST', `/api/v1/executions/${failed.id}/replay`, { inputs: { batch: 'many' }, dry_run: true });
  assert.equal(dryBad.status, 422);
  const from = await s.api('POST', `/api/v1/executions/${failed.id}/replay`, { from: 'nope' });
  assert.equal(from.status, 422, JSON.stringify(from.body));
  assert.deepEqual(
    from.body.error.details.map((d: any) => d.field),
    ['from'],
  );
  const revision = await s.api('POST', `/api/v1/executions/${failed.id}/replay`, { revision: 'newest' });
  assert.equal(revision.status, 422);

  const long = await s.trigger(NS, 'long');
  await s.waitFor(long.id, (e) => e.state === 'RUNNING');
  const running = await s.api('POST', `/api/v1/executions/${long.id}/replay`, {});
  assert.equal(running.status, 409, JSON.stringify(running.body));
  assert.equal(running.body.error.code, 'not_restartable');
  await s.api('POST', `/api/v1/executions/${long.id}/cancel`);
  assert.equal((await s.api('POST', '/api/v1/executions/nope/replay', {})).status, 404);
});

test('a viewer gets 403; an operator bound on team-a replays there and not an execution of team-b', async () => {
  const ours = await failedRun(NS, 'etl');
  const theirs = await failedRun(OTHER, 'etl');
  const viewer = await boundUser(s, { email: 'rp-viewer@example.com', password: 'viewer password 1', namespace: NS, role: 'viewer', tokenName: 'v' });
  const v = await as(viewer.token)('POST', `/api/v1/executions/${ours.id}/replay`, { from: 'load', dry_run: true });
  assert.equal(v.status, 403, JSON.stringify(v.body));

  const op = as((await boundUser(s, { email: 'rp-op@example.com', password: 'operator password 1', namespace: NS, role: 'operator', tokenName: 'o' })).token);
  const other = await op('POST', `/api/v1/executions/${theirs.id}/replay`, { inputs: { date: '2026-11-01' }, from: 'load' });
  assert.equal(other.status, 403, JSON.stringify(other.body));
  assert.equal((await op('POST', `/api/v1/executions/${theirs.id}/replay`, { dry_run: true })).status, 403);
  const mine = await op('POST', `/api/v1/executions/${ours.id}/replay`, { inputs: { date: '2026-11-01' }, from: 'load' });
  assert.equal(mine.status, 201, JSON.stringify(mine.body));
  assert.equal((await s.waitEnded(mine.body.id)).state, 'SUCCESS');
});

test('an input read from secret() stays masked in the dry run and the audit, and its task still gets the value', async () => {
  const keyOf = ((await s.api('GET', `/api/v1/flows/${NS}/hooked`)).body.triggers as any[]).find((t) => t.id === 'hook').webhook_key as string;
  const hook = await fetch(`${s.url}/hooks/${keyOf}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ who: 'ana' }) });
  assert.equal(hook.status, 201);
  const first = await s.waitEnded(((await hook.json()) as { execution_id: string }).execution_id);
  assert.equal(first.state, 'FAILED', JSON.stringify(first));
  assert.deepEqual(first.inputs, { auth: 'Bearer ***', who: 'ana' });

  const dry = await s.api('POST', `/api/v1/executions/${first.id}/replay`, { inputs: { who: 'bo' }, from: 'use', dry_run: true });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  assert.deepEqual(dry.body.inputs, { auth: 'Bearer ***', who: 'bo' });
  assert.deepEqual(dry.body.changed_inputs, ['who']);
  assert.ok(!JSON.stringify(dry.body).includes(SECRET), 'the plan never holds the secret');

  const r = await s.api('POST', `/api/v1/executions/${first.id}/replay`, { inputs: { who: 'bo' }, from: 'use' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.ok(!JSON.stringify(r.body).includes(SECRET));
  // The recipe came along: the task rendered the real value (it is masked where it is stored).
  assert.deepEqual(r.body.trigger_payload.secret_inputs, { auth: "Bearer {{ secret('HOOK_TOKEN') }}" });
  const done = await s.waitEnded(r.body.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(run(done, 'first').reason, 'reused');
  assert.equal(run(done, 'use').outputs.sha, crypto.createHash('sha256').update(`Bearer ${SECRET}`).digest('hex'));
  assert.deepEqual(done.secret_keys_used, ['HOOK_TOKEN']);
  const audit = await auditOf(s.api, 'execution.replay', first.id);
  assert.equal(audit.length, 1);
  assert.deepEqual(audit[0].payload.changed_inputs, ['who']);
  assert.ok(!JSON.stringify(audit).includes(SECRET), 'the audit never holds the secret');
});
