// One transient database or object store error while the dispatcher prepares
// a task run or records what it did must neither leave the run RUNNING (until
// its 24 h timeout) nor lose its log lines or artifacts: preparing fails the
// run executor_error (its retry policy applies), and the writes of its end,
// its log batches and its artifacts are retried until they succeed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sleep, startDispatcher, until, type DispatcherEnv } from './support.js';

let env: DispatcherEnv;
const flow = (def: Record<string, unknown>) => JSON.stringify(def);
const sh = (script: string) => ['sh', '-c', script];

before(async () => {
  env = await startDispatcher({
    'data.txt': 'from the bundle\n',
    'prep.flow.yaml': flow({ id: 'prep', retry: { max_attempts: 2, initial: '1s' }, tasks: [{ id: 't', type: 'command', command: ['cat', 'data.txt'] }] }),
    'end.flow.yaml': flow({ id: 'end', tasks: [{ id: 't', type: 'command', command: sh('echo done') }] }),
    'logs.flow.yaml': flow({ id: 'logs', tasks: [{ id: 't', type: 'command', command: sh('seq 1 3000') }] }),
    'art.flow.yaml': flow({ id: 'art', tasks: [{ id: 't', type: 'command', command: sh('printf data > "$SVC_ARTIFACTS_DIR/out.txt"') }] }),
  });
});
after(() => env.close());

test('an object store error while the bundle is built ends the attempt FAILED executor_error, and its retry runs', async () => {
  env.faults.putOnce(/^bundles\//);
  const id = await env.trigger('prep');
  const ex = await env.ended(id);
  assert.deepEqual(env.faults.fired.filter((f) => f.startsWith('put bundles/')).length, 1, 'the fault fired');
  assert.equal(ex.state, 'SUCCESS', JSON.stringify(ex));
  const [a1, a2] = ex.runs;
  assert.equal(a1?.state, 'FAILED');
  assert.equal(a1?.reason, 'executor_error');
  assert.match(a1?.error ?? '', /injected fault/);
  assert.equal(a2?.state, 'SUCCESS');
  // The warning names the execution and the attempt it is about (withLogFields around each run), though its writer gave only the run.
  const line = env.logs().find((l) => l.message === 'preparing a task run failed; it ends executor_error' && l.task_run_id === a1?.id);
  assert.ok(line, 'the warning is logged');
  assert.equal(line.execution_id, id);
});

test('a database error while the end is recorded is retried: the run ends SUCCESS once', async () => {
  // The statement that ends task runs (END_AND_READ_SQL, ending a batch of completions).
  env.faults.queryOnce(/UPDATE task_runs r SET state = d\.state, reason = d\.reason/);
  const ex = await env.ended(await env.trigger('end'));
  assert.ok(
    env.faults.fired.some((f) => f.includes('UPDATE task_runs')),
    'the fault fired',
  );
  assert.equal(ex.state, 'SUCCESS');
  assert.deepEqual(
    ex.runs.map((r) => [r.attempt, r.state, r.reason]),
    [[1, 'SUCCESS', '']],
  );
});

test('a database error after the end statement, in the same transaction, rolls the end back: the run is counted ended once, after the commit', async () => {
  // What the runs ended from here on (this file's tests run one at a time): the listeners' view.
  const heard: [string, string][] = [];
  env.ctx.engine.onTaskRunsEnded((runs) => heard.push(...runs.map((r): [string, string] => [r.executor, r.state])));
  // The plan's write (APPLY_PLAN_SQL), after the statement that ended the run: the batch rolls back and is submitted again.
  env.faults.queryOnce(/WITH go AS \(/);
  const ex = await env.ended(await env.trigger('end'));
  assert.ok(
    env.faults.fired.some((f) => f.includes('WITH go AS')),
    'the fault fired',
  );
  assert.equal(ex.state, 'SUCCESS');
  assert.equal(ex.runs.length, 1);
  // The listeners (svc_task_run_duration_seconds) hear of it once, not once per attempt of the batch
  // (once the commit is answered, which may come a moment after the end can be read).
  await until('the listeners to hear of the end', () => heard.length > 0, 5_000);
  await sleep(200);
  assert.deepEqual(heard, [['process', 'SUCCESS']]);
});

test('a database error while a log batch is stored is retried: no line lost, none twice', async () => {
  env.faults.queryOnce(/INSERT INTO log_lines/);
  const id = await env.trigger('logs');
  const ex = await env.ended(id);
  assert.ok(
    env.faults.fired.some((f) => f.includes('log_lines')),
    'the fault fired',
  );
  assert.equal(ex.state, 'SUCCESS');
  const lines = (await env.pool.query<{ n: number; text: string }>(`SELECT n, text FROM log_lines WHERE execution_id = $1 ORDER BY n`, [id])).rows;
  assert.equal(lines.length, 3000);
  // The retry's line names the execution of the run whose batch failed, though its writer gave only the run.
  const retry = env.logs().find((l) => l.message === 'cannot store log lines; retrying');
  assert.ok(retry, 'the retry is logged');
  const owner = (await env.pool.query<{ execution_id: string }>(`SELECT execution_id FROM task_runs WHERE id = $1`, [retry.task_run_id])).rows[0];
  assert.ok(owner && typeof retry.execution_id === 'string');
  assert.equal(retry.execution_id, owner.execution_id, 'the retry names its execution');
  lines.forEach((l, i) => {
    assert.equal(l.n, i + 1);
    assert.equal(l.text, String(i + 1));
  });
});

test('an object store error while an artifact is stored is retried: the artifact is there, once', async () => {
  env.faults.putOnce(/^artifacts\//);
  const id = await env.trigger('art');
  const ex = await env.ended(id);
  assert.ok(
    env.faults.fired.some((f) => f.startsWith('put artifacts/')),
    'the fault fired',
  );
  assert.equal(ex.state, 'SUCCESS');
  const rows = (await env.pool.query(`SELECT name, size FROM artifacts WHERE execution_id = $1`, [id])).rows;
  assert.deepEqual(
    rows.map((r) => [r.name, Number(r.size)]),
    [['out.txt', 4]],
  );
});
