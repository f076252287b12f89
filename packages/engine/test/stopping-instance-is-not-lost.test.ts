// A dispatcher stopping cleanly ends its running task runs FAILED
// instance_shutdown, even while the maintenance holder is looking for runs of
// stopped instances to end as `lost`: marking the instance stopped and ending
// its runs is one transaction, so no one sees the instance stopped with runs
// still RUNNING. Each round races the two, many times.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { registerInstance } from '@svc/db';
import { claimRuns, failLostTaskRuns, stopInstanceTaskRuns, triggerFlow, type StartDeps } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;

before(async () => {
  fx = await engineFixture('stop', { 'work.flow.yaml': { id: 'work', retry: { max_attempts: 2, initial: '1s' }, tasks: [{ id: 't', type: 'command', command: ['true'] }] } });
  ({ pool, deps } = fx);
});
after(() => fx.close());

test('a stopping instance ends its runs instance_shutdown while the lost check runs beside it', async () => {
  for (let round = 0; round < 25; round++) {
    const instance = `d-${round}`;
    await registerInstance(pool, { id: instance, kind: 'dispatcher', hostname: 'test', version: 'test', pools: ['default'], executors: ['process'] }, new Date());
    const ex = await triggerFlow(pool, deps, { namespace: 'stop', flowId: 'work', triggerType: 'manual', createdBy: 'test' });
    const { runs } = await claimRuns(pool, { instanceId: instance, pools: ['default'], executorType: 'process', limit: 10, now: new Date() });
    const mine = runs.find((r) => r.execution_id === ex.id)!;
    let stopped = false;
    const checker = (async () => {
      while (!stopped) await failLostTaskRuns(pool, new Date());
    })();
    const ended = await stopInstanceTaskRuns(pool, instance, new Date());
    stopped = true;
    await checker;
    assert.deepEqual(ended.ids, [mine.id], `round ${round}`);
    const attempts = (await pool.query(`SELECT attempt, state, reason FROM task_runs WHERE execution_id = $1 ORDER BY attempt`, [ex.id])).rows;
    assert.deepEqual(attempts[0], { attempt: 1, state: 'FAILED', reason: 'instance_shutdown' }, `round ${round}`);
    assert.equal(attempts[1]?.state, 'QUEUED', `round ${round}: the retry is queued`);
    await pool.query(`UPDATE task_runs SET state = 'CANCELLED' WHERE execution_id = $1 AND state = 'QUEUED'`, [ex.id]);
  }
});
