// infra/migrate.mjs (the migration Job's and Compose's `migrate` command)
// writes its lines with the project's logger, as the services do: one JSON
// object per line with timestamp, level and service, or the text format when
// SVC_LOG_FORMAT says so; a bad log setting ends it with exit code 2.
// Run as in an image: the script beside an app's node_modules (here a link to
// the maintenance app's), against a real PostgreSQL.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { root } from './stack.js';

let tdb: TestDatabase;
let dir: string;

before(async () => {
  tdb = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-migrate-'));
  fs.copyFileSync(path.join(root, 'infra/migrate.mjs'), path.join(dir, 'migrate.mjs'));
  fs.symlinkSync(path.join(root, 'apps/maintenance/node_modules'), path.join(dir, 'node_modules'));
});

after(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await tdb?.drop();
});

function migrate(env: Record<string, string>) {
  const r = spawnSync(process.execPath, [path.join(dir, 'migrate.mjs')], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, lines: `${r.stdout}${r.stderr}`.split('\n').filter(Boolean) };
}

test('migrations are reported as JSON lines of the project logger', () => {
  const r = migrate({ SVC_DATABASE_URL: tdb.url });
  assert.equal(r.code, 0, r.lines.join('\n'));
  const lines = r.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const done = lines.find((l) => l.message === 'migrations');
  assert.ok(done, r.lines.join('\n'));
  assert.equal(done.level, 'info');
  assert.equal(done.service, 'svc-migrate');
  assert.ok(!Number.isNaN(Date.parse(String(done.timestamp))), 'an ISO timestamp');
  assert.deepEqual(done.pending, []);
  assert.ok(Array.isArray(done.applied), 'the migrations applied by this run are listed');
  // Nothing of the database URL (its password) is written.
  assert.ok(!r.lines.join('\n').includes(new URL(tdb.url).password || '\u0000'), 'no password in the output');
});

test('SVC_LOG_FORMAT=text gives readable lines, and a migrated database gets nothing applied', () => {
  const r = migrate({ SVC_DATABASE_URL: tdb.url, SVC_LOG_FORMAT: 'text' });
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.match(r.lines.join('\n'), /INFO +\[svc-migrate\] migrations applied=\[\]/);
});

test('a bad log setting or no database URL ends with exit code 2 and a logged reason', () => {
  const bad = migrate({ SVC_DATABASE_URL: tdb.url, SVC_LOG_LEVEL: 'loud' });
  assert.equal(bad.code, 2);
  const line = JSON.parse(bad.lines[0]!) as Record<string, unknown>;
  assert.equal(line.level, 'error');
  assert.match(String(line.message), /SVC_LOG_LEVEL/);
  const none = migrate({});
  assert.equal(none.code, 2);
  assert.match(none.lines.join('\n'), /"service":"svc-migrate".*SVC_DATABASE_URL is not set/);
});
