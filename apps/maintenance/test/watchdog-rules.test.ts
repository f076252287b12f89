// The watchdog rules with an injected clock, on real executions (triggered and
// claimed through the engine): a flow timeout, a task run silent 60 s past its
// timeout, task runs of an instance gone offline (process at once; docker only
// once its task heartbeat is also older than SVC_HEARTBEAT_TIMEOUT), and the
// retry policy applying to a lost run.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { heartbeatInstance, registerInstance } from '@svc/db';
import { claimTaskRuns, runFollowUps, testEngine, triggerFlow, type StartDeps } from '@svc/engine/internal';
import { createNamespace, saveChanges } from '@svc/namespaces';
import { watchdogOnce } from '../src/index.js';
import { setupEnv, testClock, type TestEnv } from './support.js';

let env: TestEnv;
const clock = testClock(new Date('2026-03-01T00:00:00Z'));
const t0 = clock.now().getTime();
const at = (ms: number) => clock.set(new Date(t0 + ms));
const S = 1000;
const M = 60 * S;
let engine: StartDeps;
const ids: Record<string, string> = {};

const flow = (def: Record<string, unknown>) => JSON.stringify(def);

before(async () => {
  env = await setupEnv();
  engine = { config: { defaultExecutor: 'process', now: clock.now }, storage: env.storage };
  await createNamespace(env.db.pool, { name: 'wd', createdBy: 't', now: clock.now() });
  await saveChanges(
    { pool: env.db.pool, storage: env.storage, now: clock.now, maxFileBytes: 1 << 20, maxBundleBytes: 1 << 24 },
    {
      namespace: 'wd',
      message: 'flows',
      author: 't',
      changes: [
        { op: 'put', path: 'whole.flow.yaml', content: flow({ id: 'whole', timeout: '10m', tasks: [{ id: 'a', type: 'command', command: ['true'] }] }) },
        { op: 'put', path: 'silent.flow.yaml', content: flow({ id: 'silent', tasks: [{ id: 't', type: 'command', timeout: '5m', command: ['true'] }] }) },
        { op: 'put', path: 'proc.flow.yaml', content: flow({ id: 'proc', tasks: [{ id: 'p', type: 'command', retry: { max_attempts: 2, initial: '1s' }, command: ['true'] }] }) },
        {
          op: 'put',
          path: 'cont.flow.yaml',
          content: flow({ id: 'cont', tasks: [{ id: 'c', type: 'command', executor: { type: 'docker', image: 'busybox' }, command: ['true'] }] }),
        },
      ],
    },
  );
  await registerInstance(env.db.pool, { id: 'disp', kind: 'dispatcher', hostname: 'h', version: '1', pools: ['default'], executors: ['process', 'docker'] }, clock.now());
  for (const flowId of ['whole', 'silent', 'proc', 'cont']) {
    const r = await triggerFlow(env.db.pool, engine, { namespace: 'wd', flowId, triggerType: 'manual', createdBy: 't' });
    await runFollowUps(env.db.pool, engine, r.followUps);
    ids[flowId] = r.id;
  }
  for (const executorType of ['process', 'docker']) {
    await claimTaskRuns(env.db.pool, { instanceId: 'disp', pools: ['default'], executorType, limit: 10, now: clock.now() });
  }
});
after(() => env.close());

const deps = () => ({
  db: env.db,
  log: env.log,
  engine: testEngine({ pool: env.db.pool, storage: env.storage, now: clock.now }),
  now: clock.now,
  isHolder: () => true,
  heartbeatTimeoutMs: 60 * S,
  metrics: env.metrics,
});
const runOf = async (flowId: string, attempt = 1) =>
  (await env.db.pool.query(`SELECT id, state, reason, attempt FROM task_runs WHERE execution_id = $1 AND attempt = $2`, [ids[flowId], attempt])).rows[0];
const execution = async (flowId: string) => (await env.db.pool.query(`SELECT state, reason FROM executions WHERE id = $1`, [ids[flowId]])).rows[0];
/** The dispatcher stays online (heartbeat now), and the runners report (task heartbeat now). */
const allAlive = async () => {
  await heartbeatInstance(env.db.pool, 'disp', clock.now());
  await env.db.pool.query(`UPDATE task_runs SET last_heartbeat_at = $1 WHERE state = 'RUNNING'`, [clock.now()]);
};

test('every task starts RUNNING on the dispatcher', async () => {
  for (const f of ['whole', 'silent', 'proc', 'cont']) assert.equal((await runOf(f))?.state, 'RUNNING', f);
});

test('a task run is ended TIMED_OUT reason timeout only 60 s after its timeout passes without a report', async () => {
  at(5 * M + 59 * S);
  await allAlive();
  assert.deepEqual(await watchdogOnce(deps()), { executions: [], timedOut: [], lost: [] });
  at(6 * M + 1 * S);
  await allAlive();
  const r = await watchdogOnce(deps());
  assert.deepEqual(r.timedOut, [(await runOf('silent')).id]);
  assert.deepEqual(await runOf('silent'), { ...(await runOf('silent')), state: 'TIMED_OUT', reason: 'timeout' });
  assert.equal((await execution('silent')).state, 'FAILED');
});

test('an execution past its flow timeout is ended TIMED_OUT', async () => {
  at(9 * M + 59 * S);
  await allAlive();
  assert.deepEqual((await watchdogOnce(deps())).executions, []);
  at(10 * M + 1 * S);
  await allAlive();
  const r = await watchdogOnce(deps());
  assert.deepEqual(r.executions, [ids.whole]);
  assert.equal((await execution('whole')).state, 'TIMED_OUT');
});

test('process runs of an instance offline for 60 s fail as lost at once and are retried; a docker run only once its task heartbeat is also older than SVC_HEARTBEAT_TIMEOUT', async () => {
  at(11 * M);
  await allAlive();
  // The dispatcher dies; the docker runner keeps reporting for another 30 s.
  at(11 * M + 30 * S);
  await env.db.pool.query(`UPDATE task_runs SET last_heartbeat_at = $1 WHERE execution_id = $2`, [clock.now(), ids.cont]);
  at(12 * M + 1 * S);
  const r = await watchdogOnce(deps());
  assert.ok(r.lost.includes((await runOf('proc')).id), JSON.stringify(r));
  assert.equal((await runOf('proc')).state, 'FAILED');
  assert.equal((await runOf('proc')).reason, 'lost');
  assert.ok(await runOf('proc', 2), 'the retry policy queued attempt 2');
  assert.equal((await execution('proc')).state, 'RUNNING');
  assert.equal((await runOf('cont')).state, 'RUNNING', 'its task heartbeat is 31 s old');
  at(12 * M + 31 * S);
  const later = await watchdogOnce(deps());
  assert.deepEqual(later.lost, [(await runOf('cont')).id]);
  assert.equal((await runOf('cont')).reason, 'lost');
  assert.equal((await execution('cont')).state, 'FAILED');
});

test('the watchdog counts what it ended', async () => {
  const text = await env.metrics.registry.metrics();
  assert.match(text, /svc_maintenance_watchdog_ended_total\{rule="task_timeout"\} 1/);
  assert.match(text, /svc_maintenance_watchdog_ended_total\{rule="execution_timeout"\} 1/);
  assert.match(text, /svc_maintenance_watchdog_ended_total\{rule="lost"\} [23]/);
});
