// A run queued while every slot of its executor is taken is claimed as soon
// as a slot frees, even when the finishing run's handoff found nothing: the
// handoff's claim can run before the new run commits, and the notification
// that announced the run came while the loop had no slot to claim for. The
// backstop poll is an hour here, so only the dispatcher's own wake can start
// the second run in time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClaimedRun } from '@svc/engine';
import type { Executor } from '../src/executors/types.js';
import { sleep, startDispatcher, until } from './support.js';

test('a notification that came while every slot was taken is not lost when the freed slot’s handoff found nothing', async () => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const started: string[] = [];
  const env = await startDispatcher(
    { 'one.flow.yaml': JSON.stringify({ id: 'one', tasks: [{ id: 'a', type: 'command', executor: { type: 'docker', image: 'x' }, command: ['true'] }] }) },
    {
      dispatcher: { pollMs: 3_600_000 },
      extraExecutors: (ctx): Executor[] => [
        {
          type: 'docker',
          slots: 1,
          async run(run: ClaimedRun) {
            started.push(run.execution_id);
            if (started.length === 1) await released;
            await ctx.engine.runner.complete(run.id, { state: 'SUCCESS', reason: '', error: '', exitCode: 0 });
            // As a process run's completion whose handoff claimed nothing: the queue looked empty to it.
            return [];
          },
        },
      ],
    },
  );
  try {
    await until('docker advertised', async () => (await env.pool.query(`SELECT executors FROM instances WHERE id = $1`, [env.instanceId])).rows[0].executors.includes('docker'));
    const first = await env.trigger('one');
    await until('the first run to hold the only slot', () => started.length === 1);
    const second = await env.trigger('one');
    // The second run's notification reaches the dispatcher while its only slot is taken.
    await until('the second run to be queued', async () => (await env.pool.query(`SELECT 1 FROM task_runs WHERE execution_id = $1 AND state = 'QUEUED'`, [second])).rowCount === 1);
    await sleep(300);
    assert.deepEqual(started, [first], 'one slot: the second run waits');
    release();
    assert.equal((await env.ended(first)).state, 'SUCCESS');
    // Well within the hour-long poll: the freed slot claimed it.
    assert.equal((await env.ended(second, 10_000)).state, 'SUCCESS');
    assert.deepEqual(started, [first, second]);
  } finally {
    release();
    await env.close();
  }
});
