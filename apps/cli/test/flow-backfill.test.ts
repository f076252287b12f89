// svc flow backfill against a real stack with a scheduler
// process: the dry run prints the fire times over a DST change (UTC and the
// schedule's wall clock) and creates nothing; a backfill runs to the end
// through a pause, a restart of the scheduler and a resume, its executions
// labelled and carrying the schedule's payload; cancel stops one as a unit;
// the changes are audited, and a viewer may read but not start one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, svc, tempHome, until, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
const NS = 'cli.backfill';
const FLOW = `${NS}/nightly`;

before(async () => {
  s = await startStack({ maintenance: false });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await s.saveFlow(NS, {
    'nightly.flow.yaml': `id: nightly
triggers:
  - id: berlin
    type: schedule
    cron: "30 2 * * *"
    timezone: Europe/Berlin
tasks:
  - id: t
    type: command
    command: ["true"]
`,
  });
});

after(async () => {
  await s?.stop();
  home.cleanup();
});

const scheduler = () => s.startApp('scheduler', { SVC_SCHEDULER_TICK_MS: '200' });
/** Stops a scheduler process and waits for its exit. */
async function stop(p: ReturnType<typeof scheduler>): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
  await p.exited;
}

test('--dry-run prints the fire times in UTC and in the zone, over the spring-forward day, and creates nothing', async () => {
  const r = await svc(['flow', 'backfill', FLOW, '--from', '2026-03-27', '--to', '2026-03-30T23:59:59Z', '--dry-run'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), [
    '4 fire time(s) of berlin (30 2 * * *, Europe/Berlin); dry run, nothing created',
    '2026-03-27T01:30:00.000Z  2026-03-27 02:30 +01:00',
    '2026-03-28T01:30:00.000Z  2026-03-28 02:30 +01:00',
    // 02:30 does not exist on 29 March: the next valid minute, as the scheduler fires it.
    '2026-03-29T01:00:00.000Z  2026-03-29 03:00 +02:00',
    '2026-03-30T00:30:00.000Z  2026-03-30 02:30 +02:00',
  ]);
  const rows = await s.db.query(`SELECT count(*)::int AS n FROM backfills`);
  assert.equal(rows.rows[0].n, 0);
});

test('a backfill runs to the end through pause, a scheduler restart and resume; its executions are labelled with the schedule payload', async (t) => {
  let sched = scheduler();
  t.after(() => stop(sched));
  const c = await svc(['flow', 'backfill', FLOW, '--from', '2026-03-27', '--to', '2026-03-31', '--max-in-flight', '2', '-o', 'json'], { env });
  assert.equal(c.code, 0, c.stderr);
  const created = JSON.parse(c.stdout);
  assert.equal(created.state, 'running');
  assert.equal(created.progress.total, 4);
  assert.equal(created.label, `backfill:${created.id}`);

  const p = await svc(['flow', 'backfill', 'pause', created.id], { env });
  assert.equal(p.code, 0, p.stderr);
  assert.match(p.stderr, new RegExp(`backfill ${created.id} paused`));
  const paused = JSON.parse((await svc(['flow', 'backfill', 'status', created.id, '-o', 'json'], { env })).stdout);
  assert.equal(paused.state, 'paused');
  // Paused: whatever was created before the pause, nothing more comes. Never more than max-in-flight run at
  // once (the task is `true`: runs may end, and others start, in the moment before the pause lands).
  assert.ok(paused.progress.running <= 2, `at most max-in-flight running: ${JSON.stringify(paused.progress)}`);
  await new Promise((r) => setTimeout(r, 1000));
  const still = JSON.parse((await svc(['flow', 'backfill', 'status', created.id, '-o', 'json'], { env })).stdout);
  assert.equal(still.progress.left, paused.progress.left);

  // A restart of the scheduler: the backfill's state is in rows.
  await stop(sched);
  sched = scheduler();
  const res = await svc(['flow', 'backfill', 'resume', created.id], { env });
  assert.equal(res.code, 0, res.stderr);
  const done = await until(
    async () => {
      const b = JSON.parse((await svc(['flow', 'backfill', 'status', created.id, '-o', 'json'], { env })).stdout);
      return b.state === 'done' ? b : undefined;
    },
    90_000,
    'backfill done',
  );
  assert.deepEqual(done.progress, { total: 4, done: 4, running: 0, failed: 0, left: 0, cancelled: 0 });

  const table = await svc(['flow', 'backfill', 'status', created.id], { env });
  assert.match(table.stdout, /progress:\s+4 done, 0 running, 0 failed, 0 left \(of 4\)/);
  const list = await svc(['flow', 'backfill', 'list', FLOW], { env });
  assert.match(list.stdout, new RegExp(`${created.id}\\s+berlin\\s+2026-03-27 00:00:00\\s+2026-03-31 00:00:00\\s+done`));

  const ex = await s.api('GET', `/api/v1/executions?label=${encodeURIComponent(created.label)}&limit=100`);
  assert.equal(ex.status, 200);
  const payloads = ex.body.items
    .map((e: { trigger_payload: Record<string, unknown> }) => e.trigger_payload)
    .sort((a: { fire_time: string }, b: { fire_time: string }) => a.fire_time.localeCompare(b.fire_time));
  assert.deepEqual(
    payloads,
    ['2026-03-27T01:30:00.000Z', '2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z'].map((t) => ({
      fire_time: t,
      schedule: 'berlin',
      cron: '30 2 * * *',
      timezone: 'Europe/Berlin',
      backfill: created.id,
    })),
  );
  for (const e of ex.body.items) {
    assert.equal(e.trigger_type, 'schedule');
    assert.equal(e.state, 'SUCCESS');
  }

  const audit = await s.api('GET', `/api/v1/audit?resource=${encodeURIComponent(`backfill:${created.id}`)}&limit=50`);
  assert.deepEqual(audit.body.items.map((a: { action: string }) => a.action).sort(), ['backfill.create', 'backfill.pause', 'backfill.resume']);
});

test('cancel stops a backfill as one unit; errors are in the envelope; a viewer reads but cannot start one', async () => {
  // No scheduler: nothing is created, so the cancel finds every fire time left.
  const live = await s.db.query(`SELECT 1 FROM instances WHERE kind = 'scheduler' AND stopped_at IS NULL`);
  assert.equal(live.rowCount, 0, 'no scheduler runs');
  const c = await svc(['flow', 'backfill', FLOW, '--from', '2026-01-01', '--to', '2026-02-01', '--trigger', 'berlin', '-o', 'json'], { env });
  assert.equal(c.code, 0, c.stderr);
  const b = JSON.parse(c.stdout);
  assert.equal(b.progress.total, 31);
  const x = await svc(['flow', 'backfill', 'cancel', b.id, '-o', 'json'], { env });
  assert.equal(x.code, 0, x.stderr);
  const cancelled = JSON.parse(x.stdout);
  assert.equal(cancelled.state, 'cancelled');
  assert.deepEqual([cancelled.progress.left, cancelled.progress.cancelled], [0, 31]);
  const again = await svc(['flow', 'backfill', 'cancel', b.id], { env });
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /cancelled/);

  const noTrigger = await svc(['flow', 'backfill', FLOW, '--from', '2026-01-01', '--to', '2026-01-02', '--trigger', 'nope'], { env });
  assert.notEqual(noTrigger.code, 0);
  assert.match(noTrigger.stderr, /no schedule trigger nope/);
  const future = await s.api('POST', `/api/v1/flows/${NS}/nightly/backfills`, { from: '2026-01-01T00:00:00Z', to: '2999-01-01T00:00:00Z' });
  assert.equal(future.status, 422);
  assert.equal(future.body.error.code, 'validation_failed');
  const missing = await svc(['flow', 'backfill', FLOW, '--from', '2026-01-01'], { env });
  assert.equal(missing.code, 2);

  // A token with the viewer role (of the admin user: a token's role may be lower than its user's).
  const tok = await s.api('POST', '/api/v1/tokens', { name: 'viewer', role: 'viewer' });
  assert.equal(tok.status, 201);
  const venv = { ...home.env, SVC_URL: s.url, SVC_TOKEN: tok.body.secret };
  const read = await svc(['flow', 'backfill', 'status', b.id], { env: venv });
  assert.equal(read.code, 0, read.stderr);
  const start = await svc(['flow', 'backfill', FLOW, '--from', '2026-01-01', '--to', '2026-01-02', '--dry-run'], { env: venv });
  assert.notEqual(start.code, 0);
  assert.match(start.stderr, /403|forbidden|role/i);
});
