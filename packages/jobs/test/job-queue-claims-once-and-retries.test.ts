// The job queue on a table of its own shape, on a real PostgreSQL: enqueue
// is idempotent per key and wakes a worker through the shared notifier;
// two workers claiming at once never share a job (SKIP LOCKED); a lapsed
// lease is claimed again, and the late holder can no longer record an
// outcome; a failure waits as the retry policy says, and the last attempt
// (or a permanent failure) fails the job for good; a claim may be limited
// to jobs with given column values, renewed by its holder, and end in
// another status the table declares a success.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { Notifier } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { JobQueue, JobWorker, NOW } from '../src/index.js';

let tdb: TestDatabase;
let pool: pg.Pool;

const log = { warn: () => undefined, info: () => undefined };

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 6 });
  await pool.query(`CREATE TABLE test_jobs (
    id text PRIMARY KEY, body text NOT NULL, state text NOT NULL DEFAULT 'waiting', tries int NOT NULL DEFAULT 0,
    due_at timestamptz NOT NULL DEFAULT now(), holder text, held_until timestamptz, last_error text NOT NULL DEFAULT '', done_at timestamptz)`);
});
after(async () => {
  await pool.end();
  await tdb.drop();
});

const queue = new JobQueue<{ body: string }>(
  {
    table: 'test_jobs',
    status: 'state',
    states: { queued: 'waiting', running: 'working', succeeded: 'done', failed: 'dead' },
    attempts: 'tries',
    runAt: 'due_at',
    lockedBy: 'holder',
    lockedUntil: 'held_until',
    error: 'last_error',
    returning: ['body'],
    channel: 'test_jobs_queued',
  },
  { maxAttempts: 3, backoff: 'exponential', initialMs: 1_000, maxMs: 60_000 },
);

const row = async (id: string) => (await pool.query(`SELECT * FROM test_jobs WHERE id = $1`, [id])).rows[0] as Record<string, unknown>;

test('a name that is not a plain identifier is refused before any SQL is written', async () => {
  assert.throws(() => new JobQueue({ table: 'emails; DROP TABLE x', states: queue.table.states, returning: [], channel: 'c' }, queue.retry), TypeError);
  await assert.rejects(queue.enqueue(pool, { id: 'x', 'body) --': 'y' }), TypeError);
});

test('enqueue is idempotent per key', async () => {
  await pool.query(`DELETE FROM test_jobs`);
  assert.equal(await queue.enqueue(pool, { id: 'k1', body: 'first' }), true);
  assert.equal(await queue.enqueue(pool, { id: 'k1', body: 'second' }), false);
  assert.equal((await row('k1')).body, 'first');
});

test('two workers claiming at once share no job, and each claim counts an attempt', async () => {
  await pool.query(`DELETE FROM test_jobs`);
  for (let i = 0; i < 40; i++) await queue.enqueue(pool, { id: `j${String(i).padStart(2, '0')}`, body: `b${i}` });
  const [a, b] = await Promise.all([queue.claim(pool, 'A', { leaseMs: 60_000, limit: 25 }), queue.claim(pool, 'B', { leaseMs: 60_000, limit: 25 })]);
  const keys = [...a, ...b].map((j) => j.key);
  assert.equal(keys.length, 40);
  assert.equal(new Set(keys).size, 40);
  assert.ok([...a, ...b].every((j) => j.attempt === 1 && j.data.body.startsWith('b')));
  assert.deepEqual(await queue.claim(pool, 'C', { leaseMs: 60_000, limit: 10 }), [], 'nothing left to claim while the leases hold');
});

test('a lapsed lease is claimed again, and the late holder records nothing', async () => {
  await pool.query(`DELETE FROM test_jobs`);
  await queue.enqueue(pool, { id: 'lease', body: 'x' });
  const [first] = await queue.claim(pool, 'A', { leaseMs: 50, limit: 1 });
  assert.ok(first);
  await new Promise((r) => setTimeout(r, 100));
  const [again] = await queue.claim(pool, 'B', { leaseMs: 60_000, limit: 1 });
  assert.equal(again?.key, 'lease');
  assert.equal(again?.attempt, 2);
  assert.equal(await queue.succeed(pool, first, 'A'), false, 'A no longer holds it');
  assert.equal((await queue.fail(pool, first, 'A', { error: 'late' })).held, false);
  assert.equal(await queue.succeed(pool, again!, 'B', { done_at: NOW }), true);
  const r = await row('lease');
  assert.equal(r.state, 'done');
  assert.equal(r.holder, null);
  assert.ok(r.done_at instanceof Date);
});

test('failures wait as the retry policy says, and the last attempt fails for good', async () => {
  await pool.query(`DELETE FROM test_jobs`);
  await queue.enqueue(pool, { id: 'flaky', body: 'x' });
  const claimDue = async () => {
    await pool.query(`UPDATE test_jobs SET due_at = now() - interval '1 second' WHERE state = 'waiting'`);
    return (await queue.claim(pool, 'A', { leaseMs: 60_000, limit: 1 }))[0]!;
  };
  const one = await claimDue();
  assert.deepEqual(await queue.fail(pool, one, 'A', { error: 'try 1' }), { final: false, retryMs: 1_000, held: true });
  assert.equal((await row('flaky')).state, 'waiting');
  assert.deepEqual(await queue.claim(pool, 'A', { leaseMs: 60_000, limit: 1 }), [], 'not due before its backoff');
  assert.deepEqual(await queue.fail(pool, await claimDue(), 'A', { error: 'try 2' }), { final: false, retryMs: 2_000, held: true });
  assert.deepEqual(await queue.fail(pool, await claimDue(), 'A', { error: 'try 3' }), { final: true, retryMs: 0, held: true });
  const r = await row('flaky');
  assert.equal(r.state, 'dead');
  assert.equal(r.last_error, 'try 3');
  assert.equal(r.tries, 3);

  await queue.enqueue(pool, { id: 'refused', body: 'x' });
  const [j] = await queue.claim(pool, 'A', { leaseMs: 60_000, limit: 1 });
  assert.equal((await queue.fail(pool, j!, 'A', { error: 'no such mailbox', permanent: true })).final, true);
  assert.equal((await row('refused')).state, 'dead');
});

test('a claim limited by column values takes only those jobs; its holder renews it; a success may end in another declared status', async () => {
  await pool.query(`DELETE FROM test_jobs`);
  const q = new JobQueue<{ body: string }>({ ...queue.table, states: { ...queue.table.states, alsoSucceeded: ['unchanged'] }, unique: ['id'] }, queue.retry);
  await q.enqueue(pool, { id: 'a1', body: 'a' });
  await q.enqueue(pool, { id: 'b1', body: 'b' });
  const [b] = await q.claim(pool, 'A', { leaseMs: 50, limit: 10, where: { body: 'b' } });
  assert.equal(b?.key, 'b1');
  assert.equal((await row('a1')).state, 'waiting', 'the other job was not claimed');
  assert.equal(await q.extend(pool, b!, 'B', 60_000), false, 'only the holder renews');
  assert.equal(await q.extend(pool, b!, 'A', 60_000), true);
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(await q.claim(pool, 'B', { leaseMs: 60_000, limit: 10, where: { body: 'b' } }), [], 'the renewed claim holds past its first lease');
  await assert.rejects(q.succeed(pool, b!, 'A', {}, 'dead'), TypeError);
  assert.equal(await q.succeed(pool, b!, 'A', {}, 'unchanged'), true);
  assert.equal((await row('b1')).state, 'unchanged');
});

test('a worker is woken by the enqueue through the shared notifier, not by its poll', async () => {
  await pool.query(`DELETE FROM test_jobs`);
  const notifier = new Notifier({ url: tdb.url, log, applicationName: 'jobs-test-listen' });
  const handled: string[] = [];
  const worker: JobWorker = new JobWorker({
    notifier,
    channel: queue.channel,
    pollMs: 600_000,
    log,
    what: 'test jobs',
    async pass() {
      for (const j of await queue.claim(pool, 'W', { leaseMs: 60_000, limit: 10 })) {
        await queue.succeed(pool, j, 'W');
        handled.push(j.data.body);
      }
    },
  });
  try {
    await worker.start();
    await queue.enqueue(pool, { id: 'woken', body: 'hello' });
    const end = Date.now() + 10_000;
    while (!handled.length && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(handled, ['hello']);
    assert.equal((await row('woken')).state, 'done');
  } finally {
    await worker.stop();
    await notifier.close();
  }
});
