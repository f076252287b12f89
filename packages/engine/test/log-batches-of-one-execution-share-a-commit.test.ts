// Batches of log lines that several task runs of one execution post at once
// are committed together (one statement, one flush), and still: each line is
// stored once under its number (a retried batch, also one stored through
// another process, adds nothing), an execution's `seq` numbers are distinct
// and follow each task run's `n` order, and one bad batch fails only its own
// caller.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { appendLogs, claimTaskRuns, triggerFlow, type ClaimedRun, type IncomingLogLine } from '../src/internal.js';
import { appendStatement, plainIsSafe } from '../src/systems/log-appender.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

const TASKS = 5;
let fx: EngineFixture;

before(async () => {
  fx = await engineFixture('logs', {
    'wide.flow.yaml': { id: 'wide', tasks: Array.from({ length: TASKS }, (_, i) => ({ id: `t${i}`, type: 'command', command: ['true'] })) },
  });
});
after(() => fx.close());

async function runningExecution(): Promise<{ id: string; runs: ClaimedRun[] }> {
  const ex = await triggerFlow(fx.pool, fx.deps, { namespace: 'logs', flowId: 'wide', triggerType: 'manual', createdBy: 'test' });
  const runs = await claimTaskRuns(fx.pool, { instanceId: 'i', pools: ['default'], executorType: 'process', limit: TASKS, now: new Date() });
  assert.equal(runs.length, TASKS);
  assert.ok(runs.every((r) => r.execution_id === ex.id));
  return { id: ex.id, runs };
}

const lines = (from: number, count: number, tag = ''): IncomingLogLine[] =>
  Array.from({ length: count }, (_, i) => ({ n: from + i, ts: String(1767225600000000000n + BigInt(from + i)), stream: 'stdout', text: `line ${from + i}${tag}` }));

const stored = async (executionId: string) =>
  (
    await fx.pool.query<{ task_run_id: string; n: number; seq: string; text: string; xmin: string }>(
      `SELECT l.task_run_id, l.n, l.seq::text AS seq, l.text, l.xmin::text AS xmin FROM log_lines l WHERE l.execution_id = $1 ORDER BY l.seq`,
      [executionId],
    )
  ).rows;

test('batches posted at once by several task runs share one commit, each line once, in seq order per run', async () => {
  const ex = await runningExecution();
  // The first batch of each run (this process has not seen the run yet: the ON CONFLICT path).
  assert.deepEqual(await Promise.all(ex.runs.map((r) => appendLogs(fx.pool, r.id, lines(1, 10)))), Array(TASKS).fill(10));
  // Then three rounds of every run at once, one of them retried in the middle of the next round.
  for (let round = 0; round < 3; round++) {
    const from = 11 + round * 100;
    const counts = await Promise.all([
      ...ex.runs.map((r) => appendLogs(fx.pool, r.id, lines(from, 100))),
      ...(round > 0 ? [appendLogs(fx.pool, ex.runs[0]!.id, lines(from - 100, 100))] : []),
    ]);
    assert.deepEqual(counts, [...Array(TASKS).fill(100), ...(round > 0 ? [0] : [])], `round ${round}`);
  }
  const rows = await stored(ex.id);
  assert.equal(rows.length, TASKS * 310);
  assert.equal(new Set(rows.map((r) => r.seq)).size, rows.length, 'seq numbers are distinct');
  for (const r of ex.runs) {
    const ns = rows.filter((x) => x.task_run_id === r.id).map((x) => x.n);
    assert.deepEqual(
      ns,
      Array.from({ length: 310 }, (_, i) => i + 1),
      "a run's lines in seq order are in n order",
    );
  }
  // The five batches of a round (posted while nothing else was in flight) went in at most two statements.
  const round2 = rows.filter((x) => x.n >= 211 && x.n < 311);
  assert.ok(new Set(round2.map((x) => x.xmin)).size <= 2, `round 3 committed in ${new Set(round2.map((x) => x.xmin)).size} transactions`);
  const logSeq = (await fx.pool.query<{ log_seq: number }>(`SELECT log_seq FROM task_runs WHERE execution_id = $1`, [ex.id])).rows;
  assert.ok(
    logSeq.every((x) => x.log_seq === 310),
    "each run's log_seq is its highest n",
  );
});

test('a batch already stored through another process is stored once (the plain insert falls back on the unique key)', async () => {
  const ex = await runningExecution();
  const [a, b] = ex.runs;
  assert.equal(await appendLogs(fx.pool, a!.id, lines(1, 50)), 50);
  const other = fx.newPool();
  // Another process (another gateway) stores lines 51..100; this one has not seen them.
  assert.equal(await appendLogs(other, a!.id, lines(51, 50)), 50);
  // The runner retries 51..100 here, beside a batch of another run: this process takes them for new.
  assert.deepEqual(await Promise.all([appendLogs(fx.pool, a!.id, lines(51, 50, ' again')), appendLogs(fx.pool, b!.id, lines(1, 5))]), [0, 5]);
  // Partly new: 91..110.
  assert.equal(await appendLogs(fx.pool, a!.id, lines(91, 20, ' again')), 10);
  const rows = (await stored(ex.id)).filter((x) => x.task_run_id === a!.id);
  assert.deepEqual(
    rows.map((x) => x.n),
    Array.from({ length: 110 }, (_, i) => i + 1),
  );
  assert.ok(
    rows.every((x) => !x.text.endsWith(' again') || x.n > 100),
    'stored lines are never replaced',
  );
});

test('one bad batch fails only its caller', async () => {
  const ex = await runningExecution();
  await Promise.all(ex.runs.map((r) => appendLogs(fx.pool, r.id, lines(1, 1))));
  const bad = lines(2, 3).map((l, i) => (i === 1 ? { ...l, ts: 'not a number' } : l));
  const results = await Promise.allSettled([
    appendLogs(fx.pool, ex.runs[0]!.id, lines(2, 3)),
    appendLogs(fx.pool, ex.runs[1]!.id, bad),
    appendLogs(fx.pool, ex.runs[2]!.id, lines(2, 3)),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  const rows = await stored(ex.id);
  assert.equal(rows.filter((x) => x.task_run_id === ex.runs[1]!.id).length, 1, 'nothing of the bad batch');
  assert.equal(rows.filter((x) => x.task_run_id === ex.runs[0]!.id).length, 4);
});

test('text with quotes, backslashes, commas and braces is stored as sent', async () => {
  const ex = await runningExecution();
  const odd = ['a "quoted" word', 'back\\slash \\" both', '{braces}, commas', '', 'NULL', ' spaces ', 'émoji ✓ 日本'];
  const batch = odd.map((text, i) => ({ n: i + 1, ts: String(i), stream: i % 2 ? 'stderr' : 'stdout', text }));
  assert.equal(await appendLogs(fx.pool, ex.runs[0]!.id, batch), odd.length);
  assert.equal(
    await appendLogs(
      fx.pool,
      ex.runs[0]!.id,
      batch.map((l) => ({ ...l, n: l.n + odd.length })),
    ),
    odd.length,
    'the plain path',
  );
  const rows = (await fx.pool.query<{ text: string; stream: string }>(`SELECT text, stream FROM log_lines WHERE task_run_id = $1 ORDER BY n`, [ex.runs[0]!.id])).rows;
  assert.deepEqual(
    rows.map((r) => r.text),
    [...odd, ...odd],
  );
  assert.deepEqual(rows.map((r) => r.stream).slice(0, 3), ['stdout', 'stderr', 'stdout']);
});

test('the plain insert is chosen only for numbers above what this process stored, distinct within the statement', () => {
  const b = (taskRunId: string, from: number, count: number) => ({ taskRunId, who: { task_key: 't', attempt: 1 }, lines: lines(from, count) });
  const highest = new Map([
    ['a', 10],
    ['b', 5],
  ]);
  assert.equal(plainIsSafe([b('a', 11, 5), b('b', 6, 5)], highest), true);
  assert.equal(plainIsSafe([b('a', 11, 5), b('a', 16, 5)], highest), true, 'two batches of a run, one after the other');
  assert.equal(plainIsSafe([b('a', 11, 5), b('a', 15, 5)], highest), false, 'overlapping batches of a run');
  assert.equal(plainIsSafe([b('a', 10, 5)], highest), false, 'a retry');
  assert.equal(plainIsSafe([b('c', 1, 5)], highest), false, 'a run this process has not stored lines of');
  assert.equal(plainIsSafe([{ ...b('a', 11, 2), lines: [...lines(11, 2), ...lines(12, 1)] }], highest), false, 'a repeated number in a batch');
  assert.match(appendStatement('e', [b('a', 11, 5)], 'safe').text, /ON CONFLICT \(task_run_id, n\) DO NOTHING/);
  assert.doesNotMatch(appendStatement('e', [b('a', 11, 5)], 'plain').text, /DO NOTHING/);
});
