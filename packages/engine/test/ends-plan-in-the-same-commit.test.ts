// Completions are ended and planned together (endAndPlan, the group commit of
// completion-batcher.ts): ending a batch plans every execution no pass holds
// in the same transaction, so the next task is QUEUED (or the execution has
// ended) when the commit returns, with no planning request left behind; an
// execution a pass holds gets a request instead, planned by the next pass;
// and a dispatcher's handoff claims the next run for the freed slot in the
// same transaction, never starting it before it was queued: a run the plan
// queues for that slot starts in the plan's own statement when no older run
// waits, and the oldest waiting run is taken first otherwise.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { CHANNELS, claimRuns, DEFAULT_TASK_TIMEOUT_MS, endAndPlan, planExecutions, planReadOf, triggerFlow, type StartDeps } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;
const ok = { state: 'SUCCESS' as const, reason: '', error: '', exitCode: 0 };
const now = () => new Date();

before(async () => {
  fx = await engineFixture('eap', {
    'one.flow.yaml': { id: 'one', tasks: [{ id: 't', type: 'command', command: ['true'] }] },
    'pair.flow.yaml': {
      id: 'pair',
      tasks: [
        { id: 'a', type: 'command', command: ['true'] },
        { id: 'b', type: 'command', command: ['true'], depends_on: ['a'] },
      ],
    },
    'fork.flow.yaml': {
      id: 'fork',
      tasks: [
        { id: 'a', type: 'command', command: ['true'] },
        { id: 'b', type: 'command', command: ['true'], depends_on: ['a'] },
        { id: 'c', type: 'command', command: ['true'], depends_on: ['a'] },
      ],
    },
  });
  ({ pool, deps } = fx);
  await pool.query(
    `INSERT INTO instances (id, kind, hostname, version, pools, executors, started_at, last_heartbeat_at) VALUES ('d1', 'dispatcher', 'test', 'test', ARRAY['default'], ARRAY['process'], now(), now())`,
  );
});
after(() => fx.close());

const start = (flowId: string) => triggerFlow(pool, deps, { namespace: 'eap', flowId, triggerType: 'manual', createdBy: 'test' });
/** Claims every QUEUED run; returns those of these executions. */
const claimOf = async (...executionIds: string[]) => {
  const { runs } = await claimRuns(pool, { instanceId: 'd1', pools: ['default'], executorType: 'process', limit: 50 });
  return runs.filter((r) => executionIds.includes(r.execution_id));
};
const state = async (id: string) => (await pool.query(`SELECT state FROM executions WHERE id = $1`, [id])).rows[0].state as string;
const requests = async (id: string) => (await pool.query(`SELECT count(*)::int AS n FROM plan_requests WHERE execution_id = $1`, [id])).rows[0].n as number;

test('runs of several executions ended in one batch: each execution planned in the same commit, no request left', async () => {
  const [x, y] = [await start('one'), await start('one')];
  const runs = await claimOf(x.id, y.id);
  runs.sort((p, q) => (p.execution_id === x.id ? -1 : 1) - (q.execution_id === x.id ? -1 : 1));
  assert.equal(runs.length, 2);
  const r = await endAndPlan(
    pool,
    runs.map((run) => ({ taskRunId: run.id, done: ok })),
    now,
  );
  assert.deepEqual(
    r.results.map((e) => [e.executionId, e.planned]),
    [
      [x.id, true],
      [y.id, true],
    ],
  );
  assert.deepEqual([await state(x.id), await state(y.id)], ['SUCCESS', 'SUCCESS']);
  assert.deepEqual([await requests(x.id), await requests(y.id)], [0, 0]);
  // Ending them again changes nothing.
  const again = await endAndPlan(
    pool,
    runs.map((run) => ({ taskRunId: run.id, done: ok })),
    now,
  );
  assert.deepEqual(
    again.results.map((e) => e.executionId),
    [null, null],
  );
});

test('an execution a pass holds gets a planning request instead, and the next pass plans it', async () => {
  const ex = await start('one');
  const [run] = await claimOf(ex.id);
  const pass = await fx.newPool().connect();
  let ending: ReturnType<typeof endAndPlan> | undefined;
  try {
    await pass.query('BEGIN');
    await pass.query(`SELECT id FROM executions WHERE id = $1 FOR UPDATE`, [ex.id]);
    // The end skips the held execution at once; its history row (a key share on the execution) then waits for the pass, as it always did.
    ending = endAndPlan(pool, [{ taskRunId: run!.id, done: ok }], now);
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    await pass.query('COMMIT');
    pass.release();
  }
  const r = await ending!;
  assert.deepEqual(r.results[0], { executionId: ex.id, planned: false, claimed: [] });
  assert.equal(await requests(ex.id), 1);
  assert.equal(await state(ex.id), 'RUNNING');
  await planExecutions(pool, now, [ex.id]);
  assert.equal(await state(ex.id), 'SUCCESS');
  assert.equal(await requests(ex.id), 0);
});

test('a handoff claims the next task of the execution for the freed slot in the same transaction', async () => {
  const ex = await start('pair');
  const [a] = await claimOf(ex.id);
  assert.equal(a!.task_key, 'a');
  const r = await endAndPlan(pool, [{ taskRunId: a!.id, done: ok, claim: { instanceId: 'd1', pools: ['default'], executorType: 'process' } }], now);
  assert.equal(r.results[0]!.planned, true);
  assert.deepEqual(
    r.results[0]!.claimed.map((c) => c.task_key),
    ['b'],
  );
  assert.equal(r.results[0]!.claimed[0]!.execution?.id, ex.id, 'with its execution, as a claim returns it');
  const b = (await pool.query(`SELECT state, claimed_by, queued_at, started_at FROM task_runs WHERE id = $1`, [r.results[0]!.claimed[0]!.id])).rows[0];
  assert.equal(b.state, 'RUNNING');
  assert.equal(b.claimed_by, 'd1');
  assert.ok(b.started_at >= b.queued_at, `started ${b.started_at.toISOString()} before queued ${b.queued_at.toISOString()}`);
  const hist = (await pool.query(`SELECT to_state, at FROM execution_history WHERE task_run_id = $1 ORDER BY seq`, [r.results[0]!.claimed[0]!.id])).rows;
  assert.deepEqual(
    hist.map((h) => h.to_state),
    ['PENDING', 'QUEUED', 'RUNNING'],
  );
  assert.ok(hist[2].at >= hist[1].at, 'the history shows it running no earlier than queued');
});

test('dispatchers are woken only for the runs a handoff left: none after a chain step, one hint after a fork', async () => {
  const listener = await fx.newPool().connect();
  const heard: string[] = [];
  listener.on('notification', (n) => n.channel === CHANNELS.queued && heard.push(n.payload ?? ''));
  await listener.query(`LISTEN ${CHANNELS.queued}`);
  const settle = () => new Promise((r) => setTimeout(r, 300));
  try {
    const claim = { instanceId: 'd1', pools: ['default'], executorType: 'process' };
    for (const [flow, expected] of [
      ['pair', []],
      ['fork', ['process']],
    ] as const) {
      const ex = await start(flow);
      const [a] = await claimOf(ex.id);
      await settle();
      heard.length = 0;
      const r = await endAndPlan(pool, [{ taskRunId: a!.id, done: ok, claim }], now);
      assert.equal(r.results[0]!.claimed.length, 1, flow);
      await settle();
      assert.deepEqual(heard, expected, flow);
    }
  } finally {
    listener.release();
  }
});

/** The names of the prepared statements endAndPlan sends (a pool whose clients record them). */
function recording(p: pg.Pool): { pool: pg.Pool; names: string[] } {
  const names: string[] = [];
  const connect = async () => {
    const client = await p.connect();
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    return Object.assign(Object.create(client), {
      query: (...a: unknown[]) => {
        const q = a[0] as { name?: string } | string;
        names.push(typeof q === 'string' ? q.split(/\s/)[0]! : (q.name ?? 'unnamed'));
        return query(...a);
      },
      release: (err?: Error) => client.release(err),
    });
  };
  return { pool: Object.assign(Object.create(p), { connect }) as pg.Pool, names };
}

test("a chain's next task starts in the plan's own statement: three round trips, no claim statement when no older run waits", async () => {
  const ex = await start('pair');
  const [a] = await claimOf(ex.id);
  const rec = recording(pool);
  const claim = { instanceId: 'd1', pools: ['default'], executorType: 'process' };
  // The claim returned the execution's definition: the caller names the execution, read in the first round trip.
  assert.equal(planReadOf(a!), ex.id);
  const r = await endAndPlan(rec.pool, [{ taskRunId: a!.id, done: ok, claim, planRead: planReadOf(a!) }], now);
  assert.deepEqual(
    r.results[0]!.claimed.map((c) => c.task_key),
    ['b'],
  );
  assert.equal(r.results[0]!.claimed[0]!.execution?.snapshot_id !== undefined, true, 'its execution carries the snapshot the runner needs');
  assert.ok(rec.names.includes('svc-plan-apply'), rec.names.join(', '));
  assert.ok(!rec.names.includes('svc-claim'), `no claim statement: ${rec.names.join(', ')}`);
  // Three round trips: BEGIN with the ends and the read (one pipeline), the plan's write, COMMIT.
  assert.equal(rec.names.length, 3, rec.names.join(', '));
  const b = (
    await pool.query(
      `SELECT state, claimed_by, extract(epoch FROM timeout_at - started_at)::int AS timeout, (spec->>'timeout_ms')::bigint AS spec_ms FROM task_runs WHERE id = $1`,
      [r.results[0]!.claimed[0]!.id],
    )
  ).rows[0];
  assert.equal(b.state, 'RUNNING');
  assert.equal(b.claimed_by, 'd1');
  assert.equal(b.timeout * 1000, Number(b.spec_ms ?? DEFAULT_TASK_TIMEOUT_MS), 'the timeout, as a claim sets it');
});

test('an older QUEUED run of the same pool is taken before the run a plan queues (the handoff keeps the claim order)', async () => {
  const older = await start('one');
  const ex = await start('pair');
  const [a] = (await claimRuns(pool, { instanceId: 'd1', pools: ['default'], executorType: 'process', limit: 50 })).runs.filter((x) => x.execution_id !== older.id);
  // `older` was claimed too by that claim: put it back in the queue, older than anything the plan queues.
  await pool.query(`UPDATE task_runs SET state = 'QUEUED', claimed_by = NULL, queued_at = now() - interval '1 minute' WHERE execution_id = $1`, [older.id]);
  const claim = { instanceId: 'd1', pools: ['default'], executorType: 'process' };
  const r = await endAndPlan(pool, [{ taskRunId: a!.id, done: ok, claim }], now);
  assert.deepEqual(
    r.results[0]!.claimed.map((c) => c.execution_id),
    [older.id],
    'the older run takes the slot',
  );
  const b = (await pool.query(`SELECT state FROM task_runs WHERE execution_id = $1 AND task_key = 'b'`, [ex.id])).rows[0];
  assert.equal(b.state, 'QUEUED', 'the new run waits its turn');
});

test('a run of another executor type is queued, not started, by a handoff', async () => {
  const ex = await start('pair');
  const [a] = await claimOf(ex.id);
  const r = await endAndPlan(pool, [{ taskRunId: a!.id, done: ok, claim: { instanceId: 'd1', pools: ['default'], executorType: 'docker' } }], now);
  assert.deepEqual(r.results[0]!.claimed, []);
  const b = (await pool.query(`SELECT state FROM task_runs WHERE execution_id = $1 AND task_key = 'b'`, [ex.id])).rows[0];
  assert.equal(b.state, 'QUEUED');
});
