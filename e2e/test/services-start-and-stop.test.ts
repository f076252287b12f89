// Each deployable app as a real process against a real database: it starts,
// registers its instance row, and on SIGTERM stops cleanly (exit 0, instance
// marked stopped, maintenance lease released). Bad configuration exits 2.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let tdb: TestDatabase;
let pool: pg.Pool;

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 2 });
  pool.on('error', () => undefined);
});
after(async () => {
  await pool.end();
  await tdb.drop();
});

function startApp(app: string, env: Record<string, string> = {}): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let out = '';
  const child = spawn(process.execPath, [path.join(root, 'apps', app, 'dist', 'main.js')], {
    env: { PATH: process.env.PATH, SVC_DATABASE_URL: tdb.url, SVC_PORT: '0', SVC_LOG_LEVEL: 'info', SVC_DATA_DIR: path.join(root, '.test-data', `svc-${app}`), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const instanceOf = async (kind: string) =>
  (await pool.query(`SELECT * FROM instances WHERE kind = $1 AND metadata->>'pid' IS NOT NULL ORDER BY started_at DESC LIMIT 1`, [kind])).rows[0];

for (const [app, kind] of [
  ['api-gateway', 'api-gateway'],
  ['scheduler', 'scheduler'],
  ['dispatcher', 'dispatcher'],
  ['maintenance', 'maintenance'],
] as const) {
  test(`${app} registers its instance and stops cleanly on SIGTERM`, async () => {
    const p = startApp(app, { SVC_POOLS: 'default,gpu' });
    const row = await waitFor(`${kind} instance row`, async () => {
      const r = await instanceOf(kind);
      return r && Number(r.metadata.pid) === p.child.pid ? r : undefined;
    });
    assert.equal(row.stopped_at, null);
    assert.equal(typeof row.version, 'string');
    if (kind === 'dispatcher') {
      assert.deepEqual(row.pools, ['default', 'gpu']);
      assert.deepEqual(row.executors, ['inline', 'process']);
    }
    if (kind === 'maintenance') {
      await waitFor('maintenance lease', async () => (await pool.query(`SELECT holder_id FROM leases WHERE name = 'maintenance' AND holder_id = $1`, [row.id])).rowCount);
    }
    if (kind === 'api-gateway') await waitFor('listening', async () => p.output().includes('"listening"'));
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0, p.output());
    const after = (await pool.query(`SELECT stopped_at FROM instances WHERE id = $1`, [row.id])).rows[0];
    assert.ok(after.stopped_at, 'instance marked stopped');
    if (kind === 'maintenance') {
      assert.equal((await pool.query(`SELECT 1 FROM leases WHERE name = 'maintenance'`)).rowCount, 0, 'lease released on stop');
    }
    assert.match(p.output(), /"message":"stopped"/);
  });
}

test('a second maintenance instance takes the lease when the first stops', async () => {
  const a = startApp('maintenance');
  const holderA = await waitFor('first holder', async () => (await pool.query(`SELECT holder_id FROM leases WHERE name = 'maintenance'`)).rows[0]?.holder_id);
  const b = startApp('maintenance');
  const idB = await waitFor('second instance', async () => {
    const r = await pool.query(`SELECT id FROM instances WHERE kind = 'maintenance' AND metadata->>'pid' = $1`, [String(b.child.pid)]);
    return r.rows[0]?.id as string | undefined;
  });
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await pool.query(`SELECT holder_id FROM leases WHERE name = 'maintenance'`)).rows[0]?.holder_id, holderA, 'the holder keeps it');
  a.child.kill('SIGTERM');
  assert.equal(await a.exited, 0);
  await waitFor('takeover by the second instance', async () => (await pool.query(`SELECT 1 FROM leases WHERE name = 'maintenance' AND holder_id = $1`, [idB])).rowCount, 15_000);
  b.child.kill('SIGTERM');
  assert.equal(await b.exited, 0);
});

test('every app exits with code 2 and names the variables at fault on bad configuration', async () => {
  for (const app of ['api-gateway', 'scheduler', 'dispatcher', 'maintenance']) {
    const p = startApp(app, { SVC_LOG_FORMAT: 'xml', SVC_WORKER_SLOTS: '-1' });
    assert.equal(await p.exited, 2, app);
    assert.match(p.output(), /SVC_LOG_FORMAT/);
    assert.match(p.output(), /SVC_WORKER_SLOTS/);
  }
});
