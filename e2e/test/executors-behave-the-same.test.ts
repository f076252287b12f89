// One flow, run unchanged on each executor: the same logs (both streams, in
// order, secrets masked), outputs, metrics, artifacts, exit codes and states.
// Only the executor differs, chosen by namespace.yaml (the flow names none).
// Executors whose engine cannot run here are skipped with the reason.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { executorTargets, type ExecutorTarget } from './executor-targets.js';

const SECRET = 'pa55-w0rd-never-shown';
const FLOW = {
  id: 'same',
  tasks: [
    { id: 'work', type: 'script', file: 'work.sh', env: { TOKEN: "{{ secret('TOKEN') }}" } },
    { id: 'fails', type: 'command', command: ['sh', '-c', 'echo partial; echo broke >&2; exit 3'] },
    { id: 'after', type: 'command', depends_on: ['work'], command: ['sh', '-c', 'echo "got {{ tasks.work.outputs.rows }}"'] },
  ],
};
const WORK = [
  'echo "line one"',
  'echo "token is $TOKEN"',
  'echo "warning here" >&2',
  'echo \'{"outputs": {"rows": 7, "name": "report"}}\' >> "$SVC_OUTPUTS"',
  'echo \'{"metrics": [{"name": "rows_read", "value": 7, "tags": {"table": "users"}}]}\' >> "$SVC_OUTPUTS"',
  'printf "artifact body" > "$SVC_ARTIFACTS_DIR/report.txt"',
  'echo "done"',
].join('\n');

let s: Stack;
let targets: ExecutorTarget[] = [];

before(async () => {
  targets = await executorTargets();
  const env: Record<string, string> = {};
  for (const t of targets) Object.assign(env, t.env);
  env.SVC_EXECUTORS = targets
    .filter((t) => !t.skip)
    .map((t) => t.type)
    .join(',');
  s = await startStack({ env });
  for (const t of targets) {
    if (t.skip) continue;
    const ns = `same-${t.type}`;
    await s.saveFlow(ns, { 'namespace.yaml': `executor:\n  type: ${t.type}\n${t.image ? `  image: ${t.image}\n` : ''}`, 'same.flow.yaml': JSON.stringify(FLOW), 'work.sh': WORK });
    assert.equal((await s.api('PUT', `/api/v1/namespaces/${ns}/secrets/TOKEN`, { value: SECRET })).status, 200);
  }
});
after(async () => {
  await s?.stop();
  for (const t of targets) await t.close?.();
});

/** What a run produced, in a form that must be the same on every executor. */
async function outcome(id: string) {
  const done = await s.waitEnded(id, 180_000);
  const runs = Object.fromEntries(
    (done.task_runs as { task_key: string; state: string; reason: string; exit_code: number | null; outputs: unknown; executor_type: string }[]).map((r) => [
      r.task_key,
      { state: r.state, reason: r.reason, exit_code: r.exit_code, outputs: r.outputs },
    ]),
  );
  const logs = (await s.db.query(`SELECT task_key, n, stream, text FROM log_lines WHERE execution_id = $1 ORDER BY task_key, n`, [id])).rows;
  const metrics = (await s.db.query(`SELECT name, value, tags FROM task_metrics WHERE execution_id = $1`, [id])).rows;
  const artifacts = (await s.api('GET', `/api/v1/executions/${id}/artifacts`)).body;
  const items = artifacts.items as { name: string; size: number; id: string }[];
  const bodies = await Promise.all(
    items.map(async (a) => (await fetch(`${s.url}/api/v1/executions/${id}/artifacts/${a.id}`, { headers: { authorization: `Bearer ${s.token}` } })).text()),
  );
  return {
    state: done.state,
    executors: [...new Set((done.task_runs as { executor_type: string }[]).map((r) => r.executor_type))],
    runs,
    // Per task and stream, in order (how the lines of two streams interleave is up to the OS).
    logs: logs.map((l) => `${l.task_key} ${l.stream}: ${l.text}`).sort((a, b) => (a.split(':')[0]! < b.split(':')[0]! ? -1 : a.split(':')[0]! > b.split(':')[0]! ? 1 : 0)),
    metrics,
    artifacts: items.map((a, i) => ({ name: a.name, size: a.size, body: bodies[i] })),
    raw: JSON.stringify({ done, logs }),
  };
}

const expected = {
  state: 'FAILED',
  runs: {
    work: { state: 'SUCCESS', reason: '', exit_code: 0, outputs: { rows: 7, name: 'report' } },
    fails: { state: 'FAILED', reason: 'exit_code', exit_code: 3, outputs: {} },
    after: { state: 'SUCCESS', reason: '', exit_code: 0, outputs: {} },
  },
  logs: [
    'after stdout: got 7',
    'fails stderr: broke',
    'fails stdout: partial',
    'work stderr: warning here',
    'work stdout: line one',
    'work stdout: token is ***',
    'work stdout: done',
  ],
  metrics: [{ name: 'rows_read', value: 7, tags: { table: 'users' } }],
  artifacts: [{ name: 'report.txt', size: 13, body: 'artifact body' }],
};

for (const type of ['process', 'docker', 'kubernetes']) {
  test(`the flow behaves the same on the ${type} executor`, async (t) => {
    const target = targets.find((x) => x.type === type)!;
    if (target.skip) {
      process.stderr.write(`\n!!! ${type} executor SKIPPED: ${target.skip}\n\n`);
      t.skip(target.skip);
      return;
    }
    const e = await s.trigger(`same-${type}`, 'same');
    const got = await outcome(e.id);
    assert.deepEqual(got.executors, [type]);
    assert.ok(!got.raw.includes(SECRET), 'no secret value in the execution or its logs');
    const { raw: _raw, executors: _e, ...rest } = got;
    assert.deepEqual(rest, expected);
  });
}
