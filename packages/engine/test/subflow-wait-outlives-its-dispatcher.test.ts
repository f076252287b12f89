// A subflow task that waits for its child is not work of the dispatcher that
// started the child: once the child exists, the task run waits on the child's
// end (its `child_ended` follow-up), whoever runs it. So the dispatcher going
// away, killed (the `lost` rule) or stopped (SIGTERM), must leave such a run
// RUNNING: ending it would fail the parent's task while the child runs on,
// and its retry would start the child a second time (the kill -9 fault test,
// e2e/test/faults-kill-apps.test.ts, saw exactly that). Runs of the instance
// with no child yet (an http task, a subflow whose child was never created)
// still end as before. Likewise a database error after the child started (a
// PostgreSQL restart, e2e/test/faults-postgres-restart.test.ts) must not end
// the run executor_error: the start's own writes are retried. A subflow run
// that does not wait is done once its child exists, so a dispatcher killed
// before it recorded that end does lose the run: its retry takes over the
// child instead of starting a second one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { registerInstance } from '@svc/db';
import { claimRuns, failLostTaskRuns, runFollowUps, stopInstanceTaskRuns, testEngine, triggerFlow, type ClaimedRun, type StartDeps } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;

before(async () => {
  fx = await engineFixture('sub', {
    'parent.flow.yaml': {
      id: 'parent',
      retry: { max_attempts: 2, initial: '1s' },
      tasks: [
        { id: 'call', type: 'subflow', flow: 'sub/child' },
        { id: 'ping', type: 'http', url: 'http://127.0.0.1:9/never' },
      ],
    },
    'fire.flow.yaml': {
      id: 'fire',
      retry: { max_attempts: 2, initial: '1s' },
      tasks: [{ id: 'call', type: 'subflow', flow: 'sub/child', wait: false }],
    },
    'child.flow.yaml': { id: 'child', tasks: [{ id: 'work', type: 'command', command: ['true'] }] },
  });
  ({ pool, deps } = fx);
});
after(() => fx.close());

/** A parent execution whose subflow run `call` has started its child on instance `instance`; returns both runs and the child's id. */
async function started(instance: string): Promise<{ call: ClaimedRun; ping: ClaimedRun; parentId: string; childId: string }> {
  await registerInstance(pool, { id: instance, kind: 'dispatcher', hostname: 'test', version: 'test', pools: ['default'], executors: ['process'] }, new Date());
  const ex = await triggerFlow(pool, deps, { namespace: 'sub', flowId: 'parent', triggerType: 'manual', createdBy: 'test' });
  const { runs } = await claimRuns(pool, { instanceId: instance, pools: ['default'], executorType: 'inline', limit: 10, now: new Date() });
  const call = runs.find((r) => r.execution_id === ex.id && r.task_key === 'call')!;
  const ping = runs.find((r) => r.execution_id === ex.id && r.task_key === 'ping')!;
  const engine = testEngine({ pool, storage: deps.storage as never });
  assert.equal(await engine.dispatch.startSubflow(call, { flow: 'sub/child', inputs: {}, wait: true }, { id: ex.id, chain_depth: 0 }), null, 'the run waits for its child');
  const childId = (await pool.query(`SELECT id FROM executions WHERE parent_task_run_id = $1`, [call.id])).rows[0].id as string;
  return { call, ping, parentId: ex.id, childId };
}

const stateOf = async (taskRunId: string) => (await pool.query(`SELECT state, reason FROM task_runs WHERE id = $1`, [taskRunId])).rows[0];

/** Runs the child's one task to SUCCESS on another instance; the child's end completes the waiting run. */
async function finishChild(childId: string): Promise<void> {
  await registerInstance(pool, { id: 'other', kind: 'dispatcher', hostname: 'test', version: 'test', pools: ['default'], executors: ['process'] }, new Date());
  const { runs } = await claimRuns(pool, { instanceId: 'other', pools: ['default'], executorType: 'process', limit: 10, now: new Date() });
  const work = runs.find((r) => r.execution_id === childId)!;
  assert.ok(work, 'the child task claimed');
  await testEngine({ pool, storage: deps.storage as never }).runner.complete(work.id, { state: 'SUCCESS', reason: '', error: '', exitCode: 0 });
}

test('a dispatcher gone silent: its http run ends lost, its subflow run waiting on a child stays RUNNING and ends with the child', async () => {
  const { call, ping, childId } = await started('killed');
  await pool.query(`UPDATE instances SET last_heartbeat_at = now() - interval '2 minutes' WHERE id = 'killed'`);
  const lost = await failLostTaskRuns(pool);
  assert.ok(lost.ids.includes(ping.id), 'the http run of the silent instance is lost');
  assert.ok(!lost.ids.includes(call.id), 'the run waiting on its child is not');
  assert.deepEqual(await stateOf(call.id), { state: 'RUNNING', reason: '' });

  await finishChild(childId);
  assert.deepEqual(await stateOf(call.id), { state: 'SUCCESS', reason: '' });
  const children = (await pool.query(`SELECT count(*)::int AS n FROM executions WHERE parent_execution_id = (SELECT execution_id FROM task_runs WHERE id = $1)`, [call.id])).rows[0]
    .n;
  assert.equal(children, 1, 'no second child');
});

test('a dispatcher stopped with SIGTERM: its http run ends instance_shutdown, its subflow run waiting on a child stays RUNNING', async () => {
  const { call, ping, childId } = await started('stopped');
  const ended = await stopInstanceTaskRuns(pool, 'stopped');
  assert.deepEqual(ended.ids, [ping.id]);
  assert.deepEqual(await stateOf(ping.id), { state: 'FAILED', reason: 'instance_shutdown' });
  assert.deepEqual(await stateOf(call.id), { state: 'RUNNING', reason: '' });
  // The maintenance holder's lost check leaves it too, though its instance is stopped.
  assert.ok(!(await failLostTaskRuns(pool)).ids.includes(call.id));
  await finishChild(childId);
  assert.deepEqual(await stateOf(call.id), { state: 'SUCCESS', reason: '' });
});

test('a database error after the child started does not fail the subflow run: the write is retried, the run waits for the child', async () => {
  await registerInstance(pool, { id: 'flaky-db', kind: 'dispatcher', hostname: 'test', version: 'test', pools: ['default'], executors: ['process'] }, new Date());
  const ex = await triggerFlow(pool, deps, { namespace: 'sub', flowId: 'parent', triggerType: 'manual', createdBy: 'test' });
  const { runs } = await claimRuns(pool, { instanceId: 'flaky-db', pools: ['default'], executorType: 'inline', limit: 10, now: new Date() });
  const call = runs.find((r) => r.execution_id === ex.id && r.task_key === 'call')!;
  // The pool the engine uses loses its connection on the first link of the run to its child (a database restart then).
  let failures = 0;
  const flaky = new Proxy(pool, {
    get(target, prop) {
      if (prop === 'query') {
        return (...args: unknown[]) => {
          if (String(args[0]).includes('SET child_execution_id') && failures++ === 0) return Promise.reject(new Error('Connection terminated unexpectedly'));
          return (target.query as (...a: unknown[]) => unknown)(...args);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const engine = testEngine({ pool: flaky, storage: deps.storage as never });
  assert.equal(await engine.dispatch.startSubflow(call, { flow: 'sub/child', inputs: {}, wait: true }, { id: ex.id, chain_depth: 0 }), null, 'still waiting for its child');
  assert.equal(failures, 2, 'the link failed once and was retried');
  const childId = (await pool.query(`SELECT child_execution_id FROM task_runs WHERE id = $1`, [call.id])).rows[0].child_execution_id;
  assert.ok(childId, 'linked to its child');
  assert.deepEqual(await stateOf(call.id), { state: 'RUNNING', reason: '' });
  await finishChild(childId);
  assert.deepEqual(await stateOf(call.id), { state: 'SUCCESS', reason: '' });
});

test('a subflow run that does not wait, lost after starting its child: the retry takes over that child, no second one starts', async () => {
  await registerInstance(pool, { id: 'killed-nowait', kind: 'dispatcher', hostname: 'test', version: 'test', pools: ['default'], executors: ['process'] }, new Date());
  const ex = await triggerFlow(pool, deps, { namespace: 'sub', flowId: 'fire', triggerType: 'manual', createdBy: 'test' });
  const claim = async (instance: string) =>
    (await claimRuns(pool, { instanceId: instance, pools: ['default'], executorType: 'inline', limit: 10, now: new Date() })).runs.find(
      (r) => r.execution_id === ex.id && r.task_key === 'call',
    );
  const first = (await claim('killed-nowait'))!;
  const engine = testEngine({ pool, storage: deps.storage as never });
  // The child starts; the dispatcher dies before the run's SUCCESS is recorded.
  await engine.executions.trigger({
    namespace: 'sub',
    flowId: 'child',
    inputs: {},
    triggerType: 'subflow',
    triggerPayload: { parent_execution_id: ex.id, parent_task_run_id: first.id },
    createdBy: `execution:${ex.id}`,
    parentExecutionId: ex.id,
    chainDepth: 1,
  });
  await pool.query(`UPDATE instances SET last_heartbeat_at = now() - interval '2 minutes' WHERE id = 'killed-nowait'`);
  const lost = await failLostTaskRuns(pool);
  assert.ok(lost.ids.includes(first.id), 'the run of the silent instance is lost');
  await runFollowUps(pool, deps, lost.followUps);
  const retry = (await pool.query(`SELECT id, attempt FROM task_runs WHERE execution_id = $1 AND task_key = 'call' AND id <> $2`, [ex.id, first.id])).rows[0];
  assert.equal(retry?.attempt, 2, 'a second attempt is planned');
  await pool.query(`UPDATE task_runs SET not_before = NULL WHERE id = $1`, [retry.id]);
  await registerInstance(pool, { id: 'next', kind: 'dispatcher', hostname: 'test', version: 'test', pools: ['default'], executors: ['process'] }, new Date());
  const second = (await claim('next'))!;
  assert.equal(second.id, retry.id);
  const done = await engine.dispatch.startSubflow(second, { flow: 'sub/child', inputs: {}, wait: false }, { id: ex.id, chain_depth: 0 });
  const children = (await pool.query(`SELECT id FROM executions WHERE parent_execution_id = $1 ORDER BY created_at`, [ex.id])).rows.map((r) => r.id);
  assert.equal(children.length, 1, 'no second child');
  assert.deepEqual(done, { state: 'SUCCESS', reason: '', error: '', exitCode: null, outputs: { execution_id: children[0] } });
});
