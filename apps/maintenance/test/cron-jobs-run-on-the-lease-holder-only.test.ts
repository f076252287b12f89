// The lease holder's periodic jobs at operator-set cron times: two real
// maintenance processes with SVC_RETENTION_CRON and SVC_STORAGE_CLEANUP_CRON
// firing every second; node-cron ticks in both, and only the one holding the
// `maintenance` lease runs the jobs (its run counters climb, the standby's
// stay at nothing). Stopped, the holder releases the lease and the other
// process takes the jobs over. A malformed cron stops a process at start,
// naming the variable.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readLease } from '@svc/db';
import { MAINTENANCE_LEASE } from '../src/index.js';
import { setupEnv, type TestEnv } from './support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let env: TestEnv;
before(async () => {
  env = await setupEnv();
});
after(() => env.close());

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startProcess(extra: Record<string, string>): Proc {
  let out = '';
  const child = spawn(process.execPath, [path.join(root, 'apps/maintenance/dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      SVC_DATABASE_URL: env.tdb.url,
      SVC_STORAGE_URL: pathToFileURL(path.join(env.dir, 'objects')).href,
      SVC_DATA_DIR: path.join(env.dir, 'data'),
      SVC_HEALTH_PORT: '0',
      SVC_LOG_LEVEL: 'info',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out, exited: new Promise((r) => child.once('exit', (code) => r(code))) };
}

const EVERY_SECOND = { SVC_RETENTION_CRON: '* * * * * *', SVC_STORAGE_CLEANUP_CRON: '*/1 * * * * *' };

async function instanceIdOf(p: Proc): Promise<string> {
  return waitFor('the instance row', async () => {
    const r = await env.db.pool.query<{ id: string }>(`SELECT id FROM instances WHERE kind = 'maintenance' AND metadata->>'pid' = $1`, [String(p.child.pid)]);
    return r.rows[0]?.id;
  });
}

/** The process's run counters by job and outcome, from its /metrics. */
async function runs(port: string): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^svc_maintenance_runs_total\{job="(\w+)",outcome="(\w+)"\} (\d+)$/gm)) out[`${m[1]}/${m[2]}`] = Number(m[3]);
  return out;
}
const total = (r: Record<string, number>, job: string) => Object.entries(r).reduce((n, [k, v]) => (k.startsWith(`${job}/`) ? n + v : n), 0);

test('cron jobs every second run on the lease holder only, and move with the lease', async () => {
  const a = startProcess(EVERY_SECOND);
  const b = startProcess(EVERY_SECOND);
  try {
    const [idA, idB] = await Promise.all([instanceIdOf(a), instanceIdOf(b)]);
    const holderId = await waitFor('a holder', async () => (await readLease(env.db.pool, MAINTENANCE_LEASE))?.holderId);
    assert.ok(holderId === idA || holderId === idB);
    const [holder, standby] = holderId === idA ? [a, b] : [b, a];
    const portOf = (p: Proc) => waitFor('the metrics port', async () => /"message":"health listening"[^\n]*"port":(\d+)/.exec(p.output())?.[1]);
    const [holderPort, standbyPort] = await Promise.all([portOf(holder), portOf(standby)]);

    // One run at taking the lease, then one a second: well past it within a few seconds.
    const before = total(await runs(holderPort), 'retention');
    await waitFor('retention every second on the holder', async () => total(await runs(holderPort), 'retention') >= before + 3);
    // The cleanup check runs on its own cron; under load its ticks can trail retention's, so wait for them too.
    await waitFor('the storage cleanup check to tick on the holder too', async () => total(await runs(holderPort), 'storage_cleanup') >= 3);
    const ran = await runs(holderPort);
    assert.equal(ran['storage_cleanup/ok'], 1, 'the cleanup itself ran once: at most once in 24 hours');
    assert.equal(ran['retention/error'], undefined);
    // The standby's cron ticked as often, and did nothing.
    assert.deepEqual(await runs(standbyPort), {});

    // A clean stop releases the lease; the other process takes it and its cron jobs start running.
    holder.child.kill('SIGTERM');
    assert.equal(await holder.exited, 0);
    await waitFor('the standby to take the lease', async () => (await readLease(env.db.pool, MAINTENANCE_LEASE))?.holderId === (holder === a ? idB : idA));
    await waitFor('retention every second on the new holder', async () => total(await runs(standbyPort), 'retention') >= 3);
    assert.equal((await runs(standbyPort))['storage_cleanup/ok'], undefined, "the first holder's cleanup is less than 24 hours old");
  } finally {
    for (const p of [a, b]) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all([a.exited, b.exited]);
  }
});

test('a malformed cron refuses to start: exit code 2, the variable named with what is wrong', async () => {
  const p = startProcess({ SVC_RETENTION_CRON: '61 * * * *', SVC_STORAGE_CLEANUP_CRON: 'every day' });
  const code = await p.exited;
  assert.equal(code, 2, p.output());
  assert.match(p.output(), /SVC_RETENTION_CRON[^\n]*minute: 61/);
  assert.match(p.output(), /SVC_STORAGE_CLEANUP_CRON[^\n]*expected 5 or 6 fields but got 2/);
});
