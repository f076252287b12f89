// A trigger's response comes from its start statement (no second read): it
// must be exactly what a read of the same execution returns right after, for
// every shape of start (queued, pending behind a dependency, no instance
// serving the pool, labels, inputs, a flow timeout). A restart, which starts
// through the same statement with reused task runs, keeps working.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { claimRuns, endTaskRun, loadExecutions, planExecutions, restartExecution, triggerFlow, type StartDeps } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;

const FLOW = {
  id: 'shapes',
  labels: { team: 'data' },
  timeout: '1h',
  inputs: [{ id: 'n', type: 'int', default: 3 }],
  tasks: [
    { id: 'first', type: 'command', command: ['true'] },
    { id: 'second', type: 'command', command: ['true'], depends_on: ['first'] },
    { id: 'elsewhere', type: 'command', command: ['true'], executor: { type: 'process', pool: 'gpu' } },
    { id: 'never', type: 'command', command: ['true'], depends_on: ['first'], run_if: 'failure' },
  ],
};

before(async () => {
  fx = await engineFixture('resp', {
    'shapes.flow.yaml': FLOW,
    'one.flow.yaml': {
      id: 'one',
      tasks: [
        { id: 'a', type: 'command', command: ['true'] },
        { id: 'b', type: 'command', command: ['false'] },
      ],
    },
  });
  ({ pool, deps } = fx);
  // A dispatcher serving the default pool only: `elsewhere` waits with no_instance_for_pool.
  await pool.query(
    `INSERT INTO instances (id, kind, hostname, version, pools, executors, started_at, last_heartbeat_at) VALUES ('d1', 'dispatcher', 'test', 'test', ARRAY['default'], ARRAY['process'], now(), now())`,
  );
});
after(() => fx.close());

test('the execution a trigger returns is the one a read returns', async () => {
  const created = await triggerFlow(pool, deps, {
    namespace: 'resp',
    flowId: 'shapes',
    inputs: { n: '7' },
    labels: { run: 'x' },
    triggerType: 'manual',
    createdBy: 'someone@example.com',
  });
  assert.ok(created.execution, 'the start statement returned the execution');
  const [read] = await loadExecutions(pool, [created.id]);
  assert.deepEqual(created.execution, read);
  const runs = (created.execution!.task_runs as { task_key: string; state: string; reason: string }[]).map((r) => `${r.task_key}:${r.state}:${r.reason}`);
  assert.deepEqual(runs.sort(), ['elsewhere:QUEUED:no_instance_for_pool', 'first:QUEUED:', 'never:PENDING:', 'second:PENDING:']);
  assert.deepEqual(created.execution!.inputs, { n: 7 });
  assert.deepEqual(created.execution!.labels, { team: 'data', run: 'x' });
});

test('a restart starts with the reused task run copied and the others queued', async () => {
  const first = await triggerFlow(pool, deps, { namespace: 'resp', flowId: 'one', triggerType: 'manual', createdBy: 'test' });
  const { runs } = await claimRuns(pool, { instanceId: 'd1', pools: ['default'], executorType: 'process', limit: 10, now: new Date() });
  for (const r of runs.filter((r) => r.execution_id === first.id)) {
    await endTaskRun(
      pool,
      r.id,
      r.task_key === 'a' ? { state: 'SUCCESS', reason: '', error: '', exitCode: 0 } : { state: 'FAILED', reason: 'exit_code', error: 'exit code 1', exitCode: 1 },
      () => new Date(),
    );
  }
  await planExecutions(pool, () => new Date(), [first.id]);
  const again = await restartExecution(pool, deps, first.id, 'test');
  const [read] = await loadExecutions(pool, [again.id]);
  const states = (read!.task_runs as { task_key: string; state: string; reason: string }[]).map((r) => `${r.task_key}:${r.state}:${r.reason}`);
  assert.deepEqual(states.sort(), ['a:SUCCESS:reused', 'b:QUEUED:']);
});
