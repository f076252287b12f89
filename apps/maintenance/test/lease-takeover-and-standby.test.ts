// The `maintenance` lease across instances: a real maintenance process takes
// it and runs its work at once; killed with SIGKILL it cannot release it, and
// another instance takes it over once the TTL has passed (the test moves that
// instance's clock past the 30 s instead of waiting) and runs its work at once.
// While one instance holds the lease, another does nothing.
import { testEngine } from '@svc/engine/internal';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readLease } from '@svc/db';
import { createMaintenanceMetrics, LEASE_TTL_MS, MAINTENANCE_LEASE, readCleanupRecord, startMaintenance, type Maintenance } from '../src/index.js';
import { count, DAY, HOUR, setupEnv, testClock, type TestEnv } from './support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let env: TestEnv;
before(async () => {
  env = await setupEnv();
});
after(() => env.close());

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function startProcess(): { child: ChildProcess; output: () => string; exited: Promise<unknown> } {
  let out = '';
  const child = spawn(process.execPath, [path.join(root, 'apps/maintenance/dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      SVC_DATABASE_URL: env.tdb.url,
      SVC_STORAGE_URL: pathToFileURL(path.join(env.dir, 'objects')).href,
      SVC_DATA_DIR: path.join(env.dir, 'data'),
      SVC_HEALTH_PORT: '0',
      SVC_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out, exited: new Promise((r) => child.once('exit', r)) };
}

const plantExpiredLoginAttempts = async (now: Date, n: number) => {
  for (let i = 0; i < n; i++) {
    await env.db.pool.query(`INSERT INTO login_attempts (email, ip, succeeded, at) VALUES ('old@x', '1.1.1.1', false, $1)`, [new Date(now.getTime() - 2 * DAY)]);
  }
};
const expiredLeft = () => count(env.db, `SELECT 1 FROM login_attempts WHERE email = 'old@x'`);

function inProcess(instanceId: string, now: () => Date): Maintenance {
  return startMaintenance({
    db: env.db,
    storage: env.storage,
    log: env.log.child({ instance: instanceId }),
    metrics: createMaintenanceMetrics({ defaultMetrics: false }),
    instanceId,
    now,
    engine: testEngine({ pool: env.db.pool, storage: env.storage, now }),
    retentionDays: 90,
    // Nothing periodic: the test drives ticks and runs.
    leaseTickMs: 24 * HOUR,
    // Once a year (1 January, 00:00 UTC): node-cron's clock is the process's, not the test's.
    retentionCron: '0 0 1 1 *',
    storageCleanupCron: '0 0 1 1 *',
    watchdogMs: 24 * HOUR,
    settleMs: 0,
  });
}

test('a SIGKILLed holder: another instance takes the lease once the TTL passed and runs its work at once', async () => {
  const p = startProcess();
  try {
    const instanceId = await waitFor('the instance row', async () => {
      const r = await env.db.pool.query<{ id: string }>(`SELECT id FROM instances WHERE kind = 'maintenance' AND metadata->>'pid' = $1`, [String(p.child.pid)]);
      return r.rows[0]?.id;
    });
    await waitFor('the process to hold the lease', async () => (await readLease(env.db.pool, MAINTENANCE_LEASE))?.holderId === instanceId);
    // It ran its work on taking the lease: the storage cleanup record is its.
    const rec = await waitFor('the cleanup record', async () => {
      const r = await readCleanupRecord(env.db.pool);
      return r?.instance_id === instanceId && r.outcome === 'ok' ? r : undefined;
    });
    const port = await waitFor('the metrics port', async () => /"message":"health listening"[^\n]*"port":(\d+)/.exec(p.output())?.[1]);
    const metrics = await waitFor('metrics of the first run', async () => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return /svc_maintenance_runs_total\{job="retention",outcome="ok"\} 1/.test(text) ? text : undefined;
    });
    assert.match(metrics, /svc_maintenance_lease_held 1/);
    assert.match(metrics, /svc_maintenance_runs_total\{job="storage_cleanup",outcome="ok"\} 1/);
    assert.match(metrics, /process_cpu_seconds_total/);
    assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);

    p.child.kill('SIGKILL');
    await p.exited;
    const killedAt = Date.now();
    const lease = await readLease(env.db.pool, MAINTENANCE_LEASE);
    assert.equal(lease?.holderId, instanceId, 'a killed holder does not release its lease');
    await plantExpiredLoginAttempts(new Date(), 4);

    // Ten seconds later by the successor's clock the lease is still the dead holder's.
    const clock = testClock(new Date(killedAt + 10_000));
    const successor = inProcess('successor', clock.now);
    try {
      assert.equal(await successor.keeper.tick(), false);
      assert.equal(await successor.runNow(), null, 'not the holder: no work');
      assert.equal(await expiredLeft(), 4);

      // Past the TTL (30 s after the dead holder's last renewal, which was before the kill).
      clock.set(new Date(killedAt + LEASE_TTL_MS + 1_000));
      assert.equal(await successor.keeper.tick(), true);
      assert.equal((await readLease(env.db.pool, MAINTENANCE_LEASE))?.holderId, 'successor');
      await successor.idle(); // the run started by taking the lease
      assert.equal(await expiredLeft(), 0);
      const report = await successor.runNow();
      assert.ok(report);
      // The dead holder's cleanup ran less than 24 hours ago: not due again.
      assert.equal(report.storage.ran, false);
      assert.equal(report.storage.ran === false && report.storage.last?.started_at, rec.started_at);
    } finally {
      await successor.stop();
    }
    assert.equal(await readLease(env.db.pool, MAINTENANCE_LEASE), null, 'released on a clean stop');
  } finally {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  }
});

test('a second instance does nothing while the first holds the lease, and takes over when it stops', async () => {
  const clock = testClock(new Date(Date.now() + 5 * DAY));
  const first = inProcess('first', clock.now);
  assert.equal(await first.keeper.tick(), true);
  await first.idle();
  const second = inProcess('second', clock.now);
  try {
    assert.equal(await second.keeper.tick(), false);
    await plantExpiredLoginAttempts(clock.now(), 3);
    clock.advance(HOUR);
    await first.keeper.tick();
    assert.equal(await second.keeper.tick(), false, 'renewed by the holder, so still not free');
    assert.equal(await second.runNow(), null);
    assert.equal(await expiredLeft(), 3, 'the standby instance deleted nothing');

    const report = await first.runNow();
    assert.equal(report?.retention.rows.login_attempts, 3);
    assert.equal(await expiredLeft(), 0);

    await first.stop();
    assert.equal(await second.keeper.tick(), true, 'a clean stop frees the lease at once');
    await second.idle();
    assert.equal((await readLease(env.db.pool, MAINTENANCE_LEASE))?.holderId, 'second');
  } finally {
    await first.stop();
    await second.stop();
  }
});
