// An executor that cannot run tasks (its engine stopped answering) is
// withdrawn from the instance's advertised executors: the dispatcher claims
// nothing for it, its QUEUED runs that nobody else serves say
// no_instance_for_pool; when it can again it is advertised again, the
// reason is cleared and the runs are claimed and run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClaimedRun } from '@svc/engine';
import type { Executor } from '../src/executors/types.js';
import { startDispatcher, until } from './support.js';

test('an unavailable executor is withdrawn, its runs wait as no_instance_for_pool, and run once it is back', async () => {
  let up = true;
  const ran: string[] = [];
  const env = await startDispatcher(
    { 'boxed.flow.yaml': JSON.stringify({ id: 'boxed', tasks: [{ id: 'b', type: 'command', executor: { type: 'docker', image: 'x' }, command: ['true'] }] }) },
    {
      extraExecutors: (ctx): Executor[] => [
        {
          type: 'docker',
          available: () => up,
          async run(run: ClaimedRun) {
            ran.push(run.id);
            await ctx.engine.runner.complete(run.id, { state: 'SUCCESS', reason: '', error: '', exitCode: 0 });
          },
        },
      ],
    },
  );
  try {
    const advertised = async () => [...(await env.pool.query(`SELECT executors FROM instances WHERE id = $1`, [env.instanceId])).rows[0].executors].sort();
    await until('docker advertised', async () => (await advertised()).includes('docker'));
    const first = await env.trigger('boxed');
    assert.equal((await env.ended(first)).state, 'SUCCESS');

    up = false;
    await until('docker withdrawn', async () => !(await advertised()).includes('docker'), 10_000);
    assert.deepEqual(await advertised(), ['inline', 'process']);
    const second = await env.trigger('boxed');
    const run = await until('the run to wait for a dispatcher', async () => {
      const r = (await env.pool.query(`SELECT id, state, reason FROM task_runs WHERE execution_id = $1`, [second])).rows[0];
      return r?.reason === 'no_instance_for_pool' ? r : undefined;
    });
    assert.equal(run.state, 'QUEUED');
    assert.equal(ran.length, 1, 'nothing claimed while unavailable');

    up = true;
    assert.equal((await env.ended(second)).state, 'SUCCESS');
    assert.equal(ran.length, 2);
    await until('docker advertised again', async () => (await advertised()).includes('docker'), 10_000);
  } finally {
    await env.close();
  }
});
