// Dispatchers as real processes: a task of a pool no online instance serves
// stays QUEUED reason no_instance_for_pool and runs once such a dispatcher
// starts (then waits for a free slot with no reason); a dispatcher stopped by
// SIGTERM mid-run ends its task run FAILED instance_shutdown and another
// dispatcher runs the retry; a dispatcher killed by SIGKILL mid-run leaves
// its task run to the maintenance holder, which ends it FAILED lost once the
// instance is offline, and another dispatcher runs the retry, while the task's
// process itself is killed by the dead dispatcher's spawn helper.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, type Proc, type Stack } from './stack.js';
import { alive, flow, maxOverlap, ms, pidFrom, run, runsOf, sh, sleep, tmpDir, until } from './engine-support.js';

let s: Stack;
const NS = 'pools';
/** Process groups of tasks orphaned by a SIGKILLed dispatcher, killed at the end. */
const orphans: number[] = [];

before(async () => {
  s = await startStack();
  await s.saveFlow(NS, {
    'gpu.flow.yaml': flow({
      id: 'gpu',
      tasks: ['one', 'two'].map((id) => ({ id, type: 'command', executor: { type: 'process', pool: 'gpu' }, command: ['sleep', '0.5'] })),
    }),
    // Attempt 1 hangs (until its dispatcher goes away); attempt 2 succeeds at once.
    'survive.flow.yaml': flow({
      id: 'survive',
      inputs: [{ id: 'dir', type: 'string' }],
      tasks: [
        {
          id: 'work',
          type: 'command',
          retry: { max_attempts: 2, initial: '200ms' },
          command: sh(
            'echo $$ > "{{ inputs.dir }}/attempt-$SVC_ATTEMPT"; if [ "$SVC_ATTEMPT" = 1 ]; then sleep 300 & wait; fi; printf \'{"outputs": {"attempt": "%s"}}\\n\' "$SVC_ATTEMPT" >> "$SVC_OUTPUTS"',
          ),
        },
      ],
    }),
  });
});
after(async () => {
  for (const pgid of orphans) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* gone already */
    }
  }
  await s.stop();
});

/** Waits until a process started with startApp has an online instance row; returns the row's id. */
async function online(p: Proc): Promise<string> {
  return until('the new dispatcher to come online', async () => {
    const r = await s.db.query(`SELECT id FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL AND (metadata->>'pid')::int = $1`, [p.child.pid]);
    return r.rows[0]?.id as string | undefined;
  });
}

/** The dispatcher process that claimed a task run, and its instance id. */
async function claimer(taskRunId: string): Promise<{ proc: Proc; instanceId: string }> {
  const r = await s.db.query(`SELECT i.id, (i.metadata->>'pid')::int AS pid FROM task_runs t JOIN instances i ON i.id = t.claimed_by WHERE t.id = $1`, [taskRunId]);
  const proc = s.procs.find((p) => p.child.pid === r.rows[0]?.pid);
  assert.ok(proc, `no process for the instance that claimed ${taskRunId}`);
  return { proc, instanceId: r.rows[0].id };
}

test('a task of a pool nobody serves stays QUEUED no_instance_for_pool, and runs once a dispatcher of that pool starts, one per slot', async () => {
  const e = await s.trigger(NS, 'gpu');
  for (const k of ['one', 'two']) {
    assert.equal(run(e, k).state, 'QUEUED');
    assert.equal(run(e, k).reason, 'no_instance_for_pool');
    assert.equal(run(e, k).pool, 'gpu');
  }
  // The default-pool dispatcher leaves them alone.
  await sleep(1500);
  const still = (await s.api('GET', `/api/v1/executions/${e.id}`)).body;
  for (const k of ['one', 'two']) assert.deepEqual([run(still, k).state, run(still, k).reason], ['QUEUED', 'no_instance_for_pool'], k);
  assert.equal(still.state, 'RUNNING');

  const gpu = s.startApp('dispatcher', { SVC_POOLS: 'gpu', SVC_WORKER_SLOTS: '1' });
  const gpuId = await online(gpu);
  // One slot: one runs, the other waits QUEUED with no reason.
  const states = (x: any) =>
    ['one', 'two']
      .map((k) => run(x, k).state)
      .sort()
      .join();
  const busy = await s.waitFor(e.id, (x) => states(x) === 'QUEUED,RUNNING');
  const waiting = ['one', 'two'].map((k) => run(busy, k)).find((r) => r.state === 'QUEUED');
  assert.equal(waiting.reason, '', 'a run waiting for a slot has no reason');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  const runs = ['one', 'two'].map((k) => run(done, k));
  for (const r of runs) {
    assert.equal(r.pool, 'gpu');
    assert.equal(r.reason, '');
  }
  assert.equal(maxOverlap(runs.map((r) => [ms(r.started_at), ms(r.ended_at)])), 1, 'one slot runs one task at a time');
  const claimedBy = await s.db.query(`SELECT DISTINCT claimed_by FROM task_runs WHERE execution_id = $1`, [e.id]);
  assert.deepEqual(
    claimedBy.rows.map((x) => x.claimed_by),
    [gpuId],
  );
});

test('a dispatcher stopped by SIGTERM mid-run ends its task run FAILED instance_shutdown; attempt 2 runs on another dispatcher', async () => {
  const dir = tmpDir();
  const e = await s.trigger(NS, 'survive', { inputs: { dir } });
  const running = await s.waitFor(e.id, (x) => run(x, 'work').state === 'RUNNING');
  const pid1 = await pidFrom(path.join(dir, 'attempt-1'));
  const first = await claimer(run(running, 'work').id);
  const second = s.startApp('dispatcher');
  const secondId = await online(second);

  first.proc.child.kill('SIGTERM');
  assert.equal(await first.proc.exited, 0, first.proc.output());
  const stopped = await s.db.query(`SELECT stopped_at FROM instances WHERE id = $1`, [first.instanceId]);
  assert.ok(stopped.rows[0].stopped_at, 'the stopped dispatcher marked its instance stopped');

  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  const [a1, a2] = runsOf(done, 'work');
  assert.equal(a1.attempt, 1);
  assert.equal(a1.state, 'FAILED');
  assert.equal(a1.reason, 'instance_shutdown');
  assert.equal(a2.attempt, 2);
  assert.equal(a2.state, 'SUCCESS');
  assert.deepEqual(a2.outputs, { attempt: '2' });
  assert.equal((await claimer(a2.id)).instanceId, secondId, 'attempt 2 ran on the second dispatcher');
  await until('the attempt 1 process group to be gone', () => !alive(pid1), 5000);
});

test('a dispatcher killed by SIGKILL mid-run: the maintenance holder ends its task run FAILED lost once it is offline; attempt 2 runs elsewhere', async () => {
  const dir = tmpDir();
  const e = await s.trigger(NS, 'survive', { inputs: { dir } });
  const running = await s.waitFor(e.id, (x) => run(x, 'work').state === 'RUNNING');
  const pid1 = await pidFrom(path.join(dir, 'attempt-1'));
  orphans.push(pid1); // killed at the end of the file should this test fail
  const victim = await claimer(run(running, 'work').id);
  const spare = s.startApp('dispatcher');
  const spareId = await online(spare);

  victim.proc.child.kill('SIGKILL');
  await victim.proc.exited;
  // The dispatcher's spawn helper sees its parent gone and kills the task's process group.
  await until('the task process of the killed dispatcher to be gone', () => !alive(pid1), 10_000);
  // A killed instance just stops heartbeating; it is offline once its last
  // heartbeat is older than 60 s. Backdating that heartbeat by two minutes is
  // what 60 s of silence would produce, without making the test wait a minute.
  await s.db.query(`UPDATE instances SET last_heartbeat_at = now() - interval '2 minutes' WHERE id = $1`, [victim.instanceId]);

  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  const [a1, a2] = runsOf(done, 'work');
  assert.equal(a1.state, 'FAILED');
  assert.equal(a1.reason, 'lost');
  assert.equal(a2.attempt, 2);
  assert.equal(a2.state, 'SUCCESS');
  assert.equal((await claimer(a2.id)).instanceId, spareId, 'attempt 2 ran on the remaining dispatcher');
});

test('a retry queued while the last dispatcher of its pool shuts down waits QUEUED no_instance_for_pool, then runs on a new one', async () => {
  const dir = tmpDir();
  const e = await s.trigger(NS, 'survive', { inputs: { dir } });
  const running = await s.waitFor(e.id, (x) => run(x, 'work').state === 'RUNNING');
  const last = await claimer(run(running, 'work').id);
  // Every other default-pool dispatcher has been stopped or killed by the tests above.
  const others = await s.db.query(
    `SELECT id FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL AND last_heartbeat_at > now() - interval '60 seconds' AND 'default' = ANY(pools) AND id <> $1`,
    [last.instanceId],
  );
  assert.deepEqual(others.rows, [], 'the claimer is the last dispatcher of the default pool');

  last.proc.child.kill('SIGTERM');
  assert.equal(await last.proc.exited, 0, last.proc.output());
  const waiting = await s.waitFor(e.id, (x) => runsOf(x, 'work').length === 2);
  const [a1, a2] = runsOf(waiting, 'work');
  assert.equal(a1.reason, 'instance_shutdown');
  assert.equal(a2.state, 'QUEUED');
  assert.equal(a2.reason, 'no_instance_for_pool', 'no online instance serves the pool of the retry');

  const fresh = s.startApp('dispatcher');
  const freshId = await online(fresh);
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS');
  assert.equal((await claimer(run(done, 'work').id)).instanceId, freshId);
});
