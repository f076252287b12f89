// Fault injection: PostgreSQL restarted under load. The suite's shared
// cluster cannot be stopped, so this file runs its stack on a private
// embedded PostgreSQL of its own (its own port and data directory), stops it
// (a fast shutdown: every connection is cut) in the middle of a busy run of
// 100 executions, keeps it down for a while, and starts it again on the same
// port and data. Every app must ride it out without a restart, and after the
// run every invariant of faults/invariants.ts holds.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startPostgresKeeper, type KeptPostgres } from '@svc/db';
import { prepareTemplate } from '@svc/db/testing';
import { startStack, type Stack } from './stack.js';
import { sleep, until } from './engine-support.js';
import { keepSchedulesDue, setUpBusy, startHttpTarget, submitBusy, type HttpTarget } from './faults/busy-run.js';
import { checkRound, drain, q } from './faults/invariants.js';
import { gatewayUp, online } from './faults/apps.js';

const EXECUTIONS = 100;
/** How long PostgreSQL stays down. */
const DOWN_MS = 10_000;

let dir: string;
let cluster: KeptPostgres;
let s: Stack;
let target: HttpTarget;
const settings = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '200' };

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-faults-pg-'));
  fs.chmodSync(dir, 0o755);
  cluster = await startPostgresKeeper(dir, { database: 'postgres', stdio: 'ignore', settings });
  await prepareTemplate(cluster.adminUrl);
  // startStack makes its database on the cluster this names (read at each call).
  const shared = process.env.SVC_TEST_PG_ADMIN_URL;
  process.env.SVC_TEST_PG_ADMIN_URL = cluster.adminUrl;
  try {
    target = await startHttpTarget();
    s = await startStack({ dispatchers: 2 });
  } finally {
    if (shared === undefined) delete process.env.SVC_TEST_PG_ADMIN_URL;
    else process.env.SVC_TEST_PG_ADMIN_URL = shared;
  }
  // Started and online before the fault: a start-up that cannot reach the database exits by design.
  await online(s, s.startApp('scheduler'));
});
after(async () => {
  await s?.stop();
  await target?.close();
  await cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('PostgreSQL restarted mid-run: every app rides it out; nothing lost, nothing stuck, nothing doubled', async (t) => {
  const ns = 'pg-restart';
  const hookKey = await setUpBusy(s, ns, target.url);
  const pids = s.procs.map((p) => p.child.pid);
  const stopSchedules = keepSchedulesDue(s, ns);
  const run = submitBusy(s, ns, { count: EXECUTIONS, webhookKey: hookKey });
  await until('the run to be busy', async () => run.sent() >= EXECUTIONS / 2, 180_000, 100);
  const [busy] = await q(
    s,
    `SELECT count(*) FILTER (WHERE t.state = 'RUNNING')::int AS running, count(DISTINCT e.id) FILTER (WHERE e.state = 'RUNNING')::int AS executions
                             FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE e.namespace = $1`,
    [ns],
  );

  const stoppedAt = Date.now();
  await cluster.stop();
  const stopMs = Date.now() - stoppedAt;
  await sleep(DOWN_MS);
  cluster = await startPostgresKeeper(dir, { database: 'postgres', stdio: 'ignore', settings, port: cluster.port });
  const downMs = Date.now() - stoppedAt;
  const backAt = Date.now();
  // The gateway answers readiness again once it reaches the database.
  await until('/readyz to pass', async () => (await fetch(`${s.url}/readyz`).catch(() => null))?.status === 200, 60_000, 200);
  const readyAfterMs = Date.now() - backAt;

  const subs = await run.done;
  await stopSchedules();
  assert.equal((await s.api('PATCH', `/api/v1/flows/${ns}/busy`, { enabled: false })).status, 200);
  const drainMs = await drain(s, ns);
  // No app died of it: the same processes, all still running.
  for (const p of s.procs) assert.equal(p.child.exitCode, null, `pid ${p.child.pid} exited:\n${p.output().slice(-3000)}`);
  assert.deepEqual(
    s.procs.map((p) => p.child.pid),
    pids,
    'no process was restarted',
  );
  await gatewayUp(s);
  const figures = await checkRound(s, ns, subs, { httpCalls: (k) => target.calls.get(k) ?? 0 });
  figures.drainMs = drainMs;
  t.diagnostic(
    JSON.stringify({
      fault: 'PostgreSQL stopped and started',
      runningTaskRunsAtStop: busy.running,
      runningExecutionsAtStop: busy.executions,
      stopMs,
      downMs,
      readyAfterMs,
      ...figures,
    }),
  );
  assert.equal(figures.submissions.acknowledged, EXECUTIONS);
  assert.ok(figures.scheduleFires >= 1, 'the schedule fired during the round');
});
