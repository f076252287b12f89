// A start the planner ends at once: a restart whose every task is reused. The
// execution and its task runs are inserted in their start states, then the
// first step is planned in the same transaction, so the restart ends there
// (here FAILED template_error, as its flow outputs still do not resolve).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { claimRuns, endTaskRun, planExecutions, restartExecution, triggerFlow, type StartDeps } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;

before(async () => {
  fx = await engineFixture('start', { 'outs.flow.yaml': { id: 'outs', tasks: [{ id: 't', type: 'command', command: ['true'] }], outputs: { x: '{{ tasks.t.outputs.absent }}' } } });
  ({ pool, deps } = fx);
});
after(() => fx.close());

test('a restart whose every task is reused ends in its start transaction, with the history of each step', async () => {
  const first = await triggerFlow(pool, deps, { namespace: 'start', flowId: 'outs', triggerType: 'manual', createdBy: 'test' });
  const [run] = (await claimRuns(pool, { instanceId: 'test', pools: ['default'], executorType: 'process', limit: 10, now: new Date() })).runs;
  await endTaskRun(pool, run!.id, { state: 'SUCCESS', reason: '', error: '', exitCode: 0 }, () => new Date());
  await planExecutions(pool, () => new Date(), [first.id]);
  assert.equal((await pool.query(`SELECT reason FROM executions WHERE id = $1`, [first.id])).rows[0].reason, 'template_error');

  const again = await restartExecution(pool, deps, first.id, 'test');
  const ex = (await pool.query(`SELECT state, reason, restart_of_id, ended_at FROM executions WHERE id = $1`, [again.id])).rows[0];
  assert.equal(ex.state, 'FAILED');
  assert.equal(ex.reason, 'template_error');
  assert.equal(ex.restart_of_id, first.id);
  assert.ok(ex.ended_at);
  const runs = (await pool.query(`SELECT state, reason, reused_from_id FROM task_runs WHERE execution_id = $1`, [again.id])).rows;
  assert.deepEqual(runs, [{ state: 'SUCCESS', reason: 'reused', reused_from_id: run!.id }]);
  const hist = (await pool.query(`SELECT task_run_id IS NULL AS execution, from_state, to_state, reason FROM execution_history WHERE execution_id = $1 ORDER BY seq`, [again.id]))
    .rows;
  assert.deepEqual(hist, [
    { execution: true, from_state: null, to_state: 'RUNNING', reason: '' },
    { execution: false, from_state: null, to_state: 'SUCCESS', reason: 'reused' },
    { execution: true, from_state: 'RUNNING', to_state: 'FAILED', reason: 'template_error' },
  ]);
});
