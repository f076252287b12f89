// Retention of backfills end to end: backfills created and ended over the
// API, then a maintenance process (SVC_RETENTION_DAYS=2) taking the lease
// runs its retention pass. A backfill cancelled more than 2 days ago is gone
// with its fire times: GET /api/v1/backfills/{id} answers the spec's 404
// not_found envelope and the flow's list no longer shows it; one cancelled
// now, and running and paused ones however old, read as before. The pass's
// `retention` log line counts the deleted rows by table.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { startStack, type Stack } from './stack.js';

type Backfill = components['schemas']['Backfill'];

let s: Stack;
const NS = 'bf.retention';
before(async () => {
  s = await startStack({ maintenance: false, dispatchers: 0 });
  await s.saveFlow(NS, {
    'nightly.flow.yaml': `id: nightly
triggers:
  - id: h
    type: schedule
    cron: "0 * * * *"
tasks:
  - id: t
    type: command
    command: ["true"]
`,
  });
});
after(() => s?.stop());

/** A backfill of four hourly fire times (no scheduler runs here: it makes no execution). */
async function create(): Promise<Backfill> {
  const r = await s.api<Backfill>('POST', `/api/v1/flows/${NS}/nightly/backfills`, { from: '2026-03-01T00:00:00Z', to: '2026-03-01T03:00:00Z' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.progress.total, 4);
  return r.body;
}
async function act(id: string, action: 'cancel' | 'pause'): Promise<void> {
  const r = await s.api('POST', `/api/v1/backfills/${id}/${action}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
}
const get = (id: string) => s.api<Backfill | { error: { code: string; message: string } }>('GET', `/api/v1/backfills/${id}`);

test('a backfill ended more than SVC_RETENTION_DAYS ago is deleted by maintenance and then answers 404 not_found; the others stay', async () => {
  const old = await create();
  await act(old.id, 'cancel');
  const recent = await create();
  await act(recent.id, 'cancel');
  const running = await create();
  const paused = await create();
  await act(paused.id, 'pause');
  // Days pass: the cancelled one ended 3 days ago; the running and paused ones were made 400 days ago.
  await s.db.query(`UPDATE backfills SET ended_at = ended_at - interval '3 days', updated_at = updated_at - interval '3 days' WHERE id = $1`, [old.id]);
  await s.db.query(`UPDATE backfills SET created_at = created_at - interval '400 days', updated_at = updated_at - interval '400 days' WHERE id = ANY($1)`, [
    [running.id, paused.id],
  ]);
  const kept = [recent.id, running.id, paused.id];
  const before = await Promise.all(kept.map(async (id) => (await get(id)).body));
  assert.deepEqual(
    before.map((b) => (b && 'state' in b ? b.state : b)),
    ['cancelled', 'running', 'paused'],
  );
  assert.equal((await get(old.id)).status, 200);

  // The lease holder runs retention when it takes the lease.
  const m = s.startApp('maintenance', { SVC_RETENTION_DAYS: '2', SVC_LOG_LEVEL: 'info' });
  const deadline = Date.now() + 60_000;
  let logged: { rows?: Record<string, number> } | undefined;
  while (!logged) {
    logged = m
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { message?: string; rows?: Record<string, number> })
      .find((l) => l.message === 'retention');
    assert.ok(Date.now() < deadline, `no retention log line from maintenance:\n${m.output()}`);
    if (!logged) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(logged.rows?.backfills, 1, JSON.stringify(logged));
  assert.equal(logged.rows?.backfill_runs, 4, JSON.stringify(logged));

  const gone = await get(old.id);
  assert.equal(gone.status, 404);
  assert.deepEqual(gone.body, { error: { code: 'not_found', message: `no backfill ${old.id}` } });
  const list = await s.api<{ items: Backfill[] }>('GET', `/api/v1/flows/${NS}/nightly/backfills`);
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.items.map((b) => b.id).sort(), [...kept].sort());
  assert.equal((await s.db.query(`SELECT 1 FROM backfill_runs WHERE backfill_id = $1`, [old.id])).rowCount, 0);
  // The others read as before: state, progress and times.
  assert.deepEqual(await Promise.all(kept.map(async (id) => (await get(id)).body)), before);
});
