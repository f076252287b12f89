// Secrets reach services as files (Docker and Kubernetes secret mounts): a
// real api-gateway whose environment holds SVC_DATABASE_URL_FILE and
// SVC_MASTER_KEYS_FILE, and neither SVC_DATABASE_URL nor SVC_MASTER_KEYS,
// comes up, is ready, and seals a secret with the key from the file. Both
// forms at once, or a missing file, stop it with exit code 2 naming the
// variables and the path, and nothing of the files' content.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { createUser } from '@svc/identity';
import { root } from './stack.js';

let tdb: TestDatabase;
let dir: string;
let dbFile: string;
let keysFile: string;
const key = crypto.randomBytes(32).toString('base64');

before(async () => {
  tdb = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-secret-files-'));
  dbFile = path.join(dir, 'database_url');
  keysFile = path.join(dir, 'master_keys');
  // As `printf '%s\n'` and Compose/Kubernetes secrets write them: one trailing newline.
  fs.writeFileSync(dbFile, `${tdb.url}\n`, { mode: 0o600 });
  fs.writeFileSync(keysFile, `f1:${key}\n`, { mode: 0o600 });
});
after(async () => {
  await tdb?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Gateway {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** The api-gateway with exactly `svcEnv` as its SVC_* variables (nothing inherited). */
function startGateway(svcEnv: Record<string, string>): Gateway {
  let out = '';
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_PORT: '0', SVC_LOG_LEVEL: 'info', SVC_DATA_DIR: path.join(dir, 'data'), ...svcEnv };
  const child = spawn(process.execPath, [path.join(root, 'apps/api-gateway/dist/main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out, exited: new Promise((r) => child.once('exit', (code) => r(code))) };
}

async function listeningUrl(gw: Gateway): Promise<string> {
  const until = Date.now() + 60_000;
  for (;;) {
    const m = /"message":"listening"[^\n]*"url":"(http:[^"]+)"/.exec(gw.output()) ?? /"url":"(http:[^"]+)"[^\n]*"message":"listening"/.exec(gw.output());
    if (m) return m[1]!;
    if (gw.child.exitCode !== null) throw new Error(`gateway exited ${gw.child.exitCode}:\n${gw.output()}`);
    if (Date.now() > until) throw new Error(`gateway did not listen:\n${gw.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('the api-gateway reads SVC_DATABASE_URL and SVC_MASTER_KEYS from files, with neither in its environment', async () => {
  const gw = startGateway({ SVC_DATABASE_URL_FILE: dbFile, SVC_MASTER_KEYS_FILE: keysFile });
  try {
    const url = await listeningUrl(gw);
    // What the process really has (Linux): the paths, not the values.
    const environ = fs.readFileSync(`/proc/${gw.child.pid}/environ`, 'utf8').split('\0');
    assert.ok(environ.includes(`SVC_DATABASE_URL_FILE=${dbFile}`) && environ.includes(`SVC_MASTER_KEYS_FILE=${keysFile}`));
    assert.deepEqual(
      environ.filter((e) => /^SVC_(DATABASE_URL|MASTER_KEYS)=/.test(e)),
      [],
    );
    const ready = await fetch(`${url}/readyz`);
    const report = (await ready.json()) as { checks: Record<string, string> };
    assert.equal(ready.status, 200, JSON.stringify(report));
    assert.equal(report.checks.database, 'ok');
    assert.equal(report.checks.master_keys, 'ok');

    // The key from the file seals secrets (with no key, PUT would be 409 builtin_provider_disabled).
    const db = new pg.Pool({ connectionString: tdb.url, max: 1 });
    try {
      await createUser(db, { email: 'files@example.com', role: 'admin', password: 'files password 1' }, new Date());
      const login = await fetch(`${url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'files@example.com', password: 'files password 1' }),
      });
      const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
      const put = await fetch(`${url}/api/v1/secrets/FROM_FILE_KEY`, {
        method: 'PUT',
        headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
        body: JSON.stringify({ value: 'sealed with the key of a file' }),
      });
      assert.equal(put.status, 200, await put.text());
      const row = await db.query(`SELECT key_id FROM secrets WHERE key = 'FROM_FILE_KEY'`);
      assert.deepEqual(
        row.rows.map((r) => r.key_id),
        ['f1'],
      );
    } finally {
      await db.end();
    }

    gw.child.kill('SIGTERM');
    assert.equal(await gw.exited, 0, gw.output());
    for (const secret of [key, new URL(tdb.url).password].filter((s) => s.length >= 6)) assert.ok(!gw.output().includes(secret), 'a secret in the log');
  } finally {
    if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
  }
});

test('both SVC_MASTER_KEYS and SVC_MASTER_KEYS_FILE, or a missing file, exit 2 naming them and not the content', async () => {
  const both = startGateway({ SVC_DATABASE_URL_FILE: dbFile, SVC_MASTER_KEYS: `f1:${key}`, SVC_MASTER_KEYS_FILE: keysFile });
  assert.equal(await both.exited, 2, both.output());
  assert.match(both.output(), /SVC_MASTER_KEYS_FILE: SVC_MASTER_KEYS and SVC_MASTER_KEYS_FILE are both set; set only one/);
  assert.ok(!both.output().includes(key));

  const missing = path.join(dir, 'not-mounted');
  const gone = startGateway({ SVC_DATABASE_URL_FILE: missing, SVC_MASTER_KEYS_FILE: keysFile });
  assert.equal(await gone.exited, 2, gone.output());
  assert.match(gone.output(), new RegExp(`SVC_DATABASE_URL_FILE: cannot read "${missing.replace(/[/.]/g, '\\$&')}": no such file`));
  assert.ok(!gone.output().includes(key));
});
