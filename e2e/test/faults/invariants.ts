// What must hold after every fault, checked on the rows of one busy
// namespace (busy-run.ts), and the figures the reliability report quotes:
// - every execution reaches an end state (drain),
// - no task run is left PENDING, QUEUED or RUNNING,
// - no acknowledged log line is missing: each task run's lines are stored
//   numbered 1..k with no gap, they are the task's own lines in order, and a
//   task run that succeeded has every line its task printed,
// - no trigger creates a duplicate execution: one execution per acknowledged
//   submission (at most one per unanswered one), per schedule fire time, per
//   upstream end (flow trigger) and per subflow task run, and no parent holds
//   two successful children for one task,
// - getDashboard's KPIs equal a recount from the executions table.
import assert from 'node:assert/strict';
import type { Stack } from '../stack.js';
import { sleep } from '../engine-support.js';
import { LEAF_LINES, LINES, type Submission } from './busy-run.js';

const ENDED = ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'];

/** A query that rides out a database outage (the PostgreSQL restart test), retried until `ms` passes. */
export async function q<T = any>(s: Stack, sql: string, params: unknown[] = [], ms = 60_000): Promise<T[]> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return (await s.db.query(sql, params)).rows as T[];
    } catch (err) {
      if (Date.now() > end) throw err;
      await sleep(500);
    }
  }
}

/**
 * Waits until every execution of `ns` has ended and no follow-up is left in
 * the outbox (a flow trigger of the last ends is still to come until then).
 * Returns how long it took; fails after `ms` (the promise: within 2 minutes).
 */
export async function drain(s: Stack, ns: string, ms = 120_000): Promise<number> {
  const t0 = Date.now();
  let last: unknown;
  for (;;) {
    const [r] = await q(
      s,
      `SELECT (SELECT count(*)::int FROM executions WHERE namespace = $1 AND state <> ALL($2)) AS open,
              (SELECT count(*)::int FROM engine_outbox) AS outbox,
              (SELECT count(*)::int FROM plan_requests) AS plans`,
      [ns, ENDED],
    );
    if (r.open === 0 && r.outbox === 0 && r.plans === 0) return Date.now() - t0;
    last = r;
    if (Date.now() - t0 > ms) {
      const open = await q(s, `SELECT id, flow_id, state, reason FROM executions WHERE namespace = $1 AND state <> ALL($2) LIMIT 10`, [ns, ENDED]);
      const runs = await q(
        s,
        `SELECT t.id, t.task_key, t.attempt, t.state, t.reason, t.claimed_by FROM task_runs t JOIN executions e ON e.id = t.execution_id
         WHERE e.namespace = $1 AND e.state <> ALL($2) LIMIT 20`,
        [ns, ENDED],
      );
      assert.fail(`${ns} did not drain within ${ms / 1000} s: ${JSON.stringify(last)}\nopen: ${JSON.stringify(open)}\nruns: ${JSON.stringify(runs)}`);
    }
    await sleep(500);
  }
}

export interface RoundFigures {
  namespace: string;
  submissions: { acknowledged: number; unknown: number; refusedThenRetried: number; webhook: number };
  executions: Record<string, Record<string, number>>;
  taskRuns: number;
  retries: number;
  retryReasons: Record<string, number>;
  logLines: number;
  scheduleFires: number;
  httpCalls: number;
  drainMs?: number;
}

/** Asserts every invariant on `ns` (drained first with `drain`) and returns its figures. */
export async function checkRound(s: Stack, ns: string, subs: Submission[], o: { httpCalls?: (key: string) => number } = {}): Promise<RoundFigures> {
  // No task run left behind.
  const stuck = await q(
    s,
    `SELECT t.id, t.task_key, t.state, e.state AS ex_state FROM task_runs t JOIN executions e ON e.id = t.execution_id
     WHERE e.namespace = $1 AND t.state IN ('PENDING', 'QUEUED', 'RUNNING')`,
    [ns],
  );
  assert.deepEqual(stuck, [], 'no task run is left PENDING, QUEUED or RUNNING');

  // Logs: numbered 1..k without a gap, the task's own lines in order, all of them when the run succeeded.
  const logs = await q(
    s,
    `SELECT t.id, t.task_key, t.state, t.reason,
            coalesce(array_agg(l.n ORDER BY l.n) FILTER (WHERE l.n IS NOT NULL), '{}') AS ns,
            coalesce(array_agg(l.text ORDER BY l.n) FILTER (WHERE l.stream = 'stdout'), '{}') AS texts
     FROM task_runs t JOIN executions e ON e.id = t.execution_id LEFT JOIN log_lines l ON l.task_run_id = t.id
     WHERE e.namespace = $1 AND t.task_key IN ('lines', 'work') GROUP BY t.id`,
    [ns],
  );
  let logLines = 0;
  for (const r of logs) {
    const total = r.task_key === 'lines' ? LINES : LEAF_LINES;
    logLines += r.ns.length;
    assert.deepEqual(
      r.ns,
      r.ns.map((_: number, i: number) => i + 1),
      `task run ${r.id} (${r.task_key} ${r.state} ${r.reason}): line numbers 1..k without a gap`,
    );
    assert.deepEqual(
      r.texts,
      r.texts.map((_: string, i: number) => `line ${i + 1} of ${total}`),
      `task run ${r.id} (${r.task_key} ${r.state} ${r.reason}): its own lines, in order, none missing in between`,
    );
    if (r.state === 'SUCCESS') assert.equal(r.texts.length, total, `task run ${r.id} succeeded: all ${total} lines stored`);
  }

  // One execution per acknowledged submission, at most one per unanswered one.
  const byKey = new Map(
    (
      await q(s, `SELECT inputs->>'key' AS key, array_agg(id) AS ids FROM executions WHERE namespace = $1 AND flow_id = 'busy' AND trigger_type <> 'schedule' GROUP BY 1`, [ns])
    ).map((r) => [r.key, r.ids as string[]]),
  );
  for (const sub of subs) {
    const ids = byKey.get(sub.key) ?? [];
    if (sub.outcome === 'acknowledged') {
      assert.equal(ids.length, 1, `acknowledged submission ${sub.key} (${sub.via}) made exactly one execution: ${ids}`);
      if (sub.executionId) assert.equal(ids[0], sub.executionId);
    } else assert.ok(ids.length <= 1, `unanswered submission ${sub.key} made at most one execution: ${ids}`);
  }
  assert.equal([...byKey.keys()].filter((k) => !subs.some((x) => x.key === k)).length, 0, 'no execution for a key never submitted');

  // One execution per schedule fire time.
  const fires = await q(s, `SELECT trigger_payload->>'fire_time' AS t, count(*)::int AS n FROM executions WHERE namespace = $1 AND trigger_type = 'schedule' GROUP BY 1`, [ns]);
  assert.deepEqual(
    fires.filter((f) => f.n > 1),
    [],
    'no schedule fire time started two executions',
  );

  // One `after` per ended `busy` (flow trigger), never two.
  const after = await q(
    s,
    `SELECT b.id, count(a.id)::int AS n FROM executions b
     LEFT JOIN executions a ON a.namespace = b.namespace AND a.flow_id = 'after' AND a.trigger_payload->>'upstream_execution_id' = b.id
     WHERE b.namespace = $1 AND b.flow_id = 'busy' GROUP BY b.id`,
    [ns],
  );
  assert.deepEqual(
    after.filter((r) => r.n !== 1),
    [],
    'every ended busy execution fired its flow trigger exactly once',
  );

  // Subflows: one child per subflow task run; a child that succeeded is the one its parent's task took.
  const children = await q(s, `SELECT parent_task_run_id AS p, count(*)::int AS n FROM executions WHERE namespace = $1 AND flow_id = 'leaf' GROUP BY 1`, [ns]);
  assert.deepEqual(
    children.filter((c) => c.n > 1 || c.p === null),
    [],
    'one child per subflow task run',
  );
  const wasted = await q(
    s,
    `SELECT c.id AS child, c.state AS child_state, t.id AS task_run, t.attempt, t.state, t.reason, t.error FROM executions c JOIN task_runs t ON t.id = c.parent_task_run_id
     WHERE c.namespace = $1 AND c.flow_id = 'leaf' AND c.state = 'SUCCESS' AND t.state <> 'SUCCESS'`,
    [ns],
  );
  assert.deepEqual(wasted, [], 'no subflow task run gave up on a child that succeeded (its retry would start the child again)');

  await checkDashboard(s, ns);

  // Figures.
  const ex = await q(s, `SELECT flow_id, state, count(*)::int AS n FROM executions WHERE namespace = $1 GROUP BY 1, 2`, [ns]);
  const executions: Record<string, Record<string, number>> = {};
  for (const r of ex) (executions[r.flow_id] ??= {})[r.state] = r.n;
  const runs = await q(
    s,
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE t.attempt > 1)::int AS retries FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE e.namespace = $1`,
    [ns],
  );
  const reasons = await q(
    s,
    `SELECT t.reason, count(*)::int AS n FROM task_runs t JOIN executions e ON e.id = t.execution_id
     WHERE e.namespace = $1 AND t.state IN ('FAILED', 'TIMED_OUT') GROUP BY 1`,
    [ns],
  );
  const success = await q(
    s,
    `SELECT DISTINCT e.inputs->>'key' AS key FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE e.namespace = $1 AND t.task_key = 'call' AND t.state = 'SUCCESS'`,
    [ns],
  );
  if (o.httpCalls) for (const r of success) assert.ok(o.httpCalls(r.key) >= 1, `the http task of ${r.key} succeeded, so the server saw it`);
  return {
    namespace: ns,
    submissions: {
      acknowledged: subs.filter((x) => x.outcome === 'acknowledged').length,
      unknown: subs.filter((x) => x.outcome === 'unknown').length,
      refusedThenRetried: subs.filter((x) => x.refused > 0).length,
      webhook: subs.filter((x) => x.via === 'webhook').length,
    },
    executions,
    taskRuns: runs[0].n,
    retries: runs[0].retries,
    retryReasons: Object.fromEntries(reasons.map((r) => [r.reason || '(exit code)', r.n])),
    logLines,
    scheduleFires: fires.length,
    httpCalls: success.reduce((a, r) => a + (o.httpCalls?.(r.key) ?? 0), 0),
  };
}

/** getDashboard's KPIs (24h and 7d, this namespace and the whole deployment) against a recount from `executions`. */
export async function checkDashboard(s: Stack, ns: string): Promise<void> {
  for (const range of ['24h', '7d']) {
    for (const filter of [ns, undefined]) {
      const r = await s.api('GET', `/api/v1/stats/dashboard?range=${range}${filter ? `&namespace=${encodeURIComponent(filter)}` : ''}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const { from, to, kpis } = r.body;
      const [c] = await q(
        s,
        `SELECT count(*) FILTER (WHERE state = ANY($4) AND ended_at >= $2 AND ended_at < $3)::int AS executions,
                count(*) FILTER (WHERE state = 'SUCCESS' AND ended_at >= $2 AND ended_at < $3)::int AS succeeded,
                count(*) FILTER (WHERE state = 'FAILED' AND ended_at >= $2 AND ended_at < $3)::int AS failed,
                count(*) FILTER (WHERE state = 'TIMED_OUT' AND ended_at >= $2 AND ended_at < $3)::int AS timed_out,
                count(*) FILTER (WHERE state = 'CANCELLED' AND ended_at >= $2 AND ended_at < $3)::int AS cancelled,
                count(*) FILTER (WHERE state = 'SKIPPED' AND ended_at >= $2 AND ended_at < $3)::int AS skipped,
                count(*) FILTER (WHERE state IN ('RUNNING', 'CANCELLING'))::int AS running,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) FILTER (WHERE state IN ('SUCCESS', 'FAILED', 'TIMED_OUT') AND ended_at >= $2 AND ended_at < $3) AS median
         FROM executions WHERE ($1::text IS NULL OR namespace = $1 OR namespace LIKE $1 || '.%')`,
        [filter ?? null, from, to, ENDED],
      );
      const where = `dashboard ${range} ${filter ?? '(all namespaces)'}`;
      for (const k of ['executions', 'succeeded', 'failed', 'timed_out', 'cancelled', 'skipped', 'running']) assert.equal(kpis[k], c[k], `${where}: ${k}`);
      const rate = c.succeeded + c.failed + c.timed_out ? c.succeeded / (c.succeeded + c.failed + c.timed_out) : null;
      if (rate === null) assert.equal(kpis.success_rate, null, `${where}: success_rate`);
      else assert.ok(Math.abs(kpis.success_rate - rate) < 1e-9, `${where}: success_rate ${kpis.success_rate} vs ${rate}`);
      if (c.median !== null) assert.ok(Math.abs(Number(kpis.median_duration_ms) - Number(c.median)) < 1, `${where}: median_duration_ms ${kpis.median_duration_ms} vs ${c.median}`);
    }
  }
}
