// Benchmark: saveChanges latency over HTTP for 1,000 small files in one save
// and for one 10 MB file (uploadFile, octet-stream), and the time to build the
// bundle of each snapshot. A real api-gateway process on a real PostgreSQL,
// file object store. Each measurement is the median of 5 runs on fresh content.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const db = await import(path.join(root, 'packages/db/dist/index.js'));
const identity = await import(path.join(root, 'packages/identity/dist/index.js'));
const namespaces = await import(path.join(root, 'packages/namespaces/dist/index.js'));
const storageLib = await import(path.join(root, 'packages/storage/dist/index.js'));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-ns-'));
  fs.chmodSync(dir, 0o755);
  const pg = await db.startPostgresKeeper(path.join(dir, 'pg'), { database: 'svc', ephemeral: true, stdio: 'ignore' });
  const setup = db.createDb({ url: pg.url, poolSize: 2 });
  await db.applyMigrations(setup.pool);
  await identity.createUser(setup.pool, { email: 'bench@example.com', role: 'admin', password: 'bench password 1' }, new Date());
  const port = 20000 + Math.floor(Math.random() * 20000);
  const base = `http://127.0.0.1:${port}`;
  const objects = path.join(dir, 'objects');
  const gw = spawn(process.execPath, [path.join(root, 'apps/api-gateway/dist/main.js')], {
    env: { ...process.env, SVC_DATABASE_URL: pg.url, SVC_PORT: String(port), SVC_DATA_DIR: dir, SVC_STORAGE_URL: `file://${objects}`, SVC_LOG_LEVEL: 'warn' },
    stdio: 'inherit',
  });
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {}
      await new Promise((r) => setTimeout(r, 100));
    }
    const login = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench password 1' }),
    });
    const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie'))[0];
    const tok = await (
      await fetch(`${base}/api/v1/tokens`, {
        method: 'POST',
        headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'b', role: 'admin' }),
      })
    ).json();
    const auth = { authorization: `Bearer ${tok.secret}` };
    await fetch(`${base}/api/v1/namespaces`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }) });
    const storage = await storageLib.createObjectStore(`file://${objects}`);

    const small = [],
      smallBundle = [],
      large = [],
      largeBundle = [];
    for (let round = 0; round < 5; round++) {
      const changes = Array.from({ length: 1000 }, (_, i) => ({ op: 'put', path: `small/${round}/f${i}.py`, content: `# file ${i} ${crypto.randomUUID()}\nprint(${i})\n` }));
      let t = process.hrtime.bigint();
      const r = await fetch(`${base}/api/v1/namespaces/bench/changes`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'bench', changes }),
      });
      if (r.status !== 201) throw new Error(`save: ${r.status} ${await r.text()}`);
      small.push(ms(t));
      const v = await r.json();
      t = process.hrtime.bigint();
      await namespaces.ensureBundle(setup.pool, storage, v.snapshot_id, new Date());
      smallBundle.push(ms(t));

      const big = crypto.randomBytes(10_000_000);
      t = process.hrtime.bigint();
      const u = await fetch(`${base}/api/v1/namespaces/bench/file?path=big/${round}.bin`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/octet-stream' },
        body: big,
      });
      if (u.status !== 201) throw new Error(`upload: ${u.status} ${await u.text()}`);
      large.push(ms(t));
      const lv = await u.json();
      t = process.hrtime.bigint();
      await namespaces.ensureBundle(setup.pool, storage, lv.snapshot_id, new Date());
      largeBundle.push(ms(t));
      // Keep the namespace under the bundle limit for the next round.
      await fetch(`${base}/api/v1/namespaces/bench/changes`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'clean', changes: [{ op: 'delete', path: `big/${round}.bin` }] }),
      });
    }
    return {
      save_1000_small_files_ms: +median(small).toFixed(1),
      bundle_after_1000_small_files_ms: +median(smallBundle).toFixed(1),
      upload_one_10MB_file_ms: +median(large).toFixed(1),
      bundle_with_10MB_file_ms: +median(largeBundle).toFixed(1),
      note: 'bundles grow each round (1,000 more small files per round); the medians are of rounds 1-5',
    };
  } finally {
    gw.kill('SIGTERM');
    await new Promise((r) => gw.once('exit', r));
    await setup.close();
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
