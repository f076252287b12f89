// Stops a real PostgreSQL under a running gateway: /readyz turns 503 with the
// database check failing, /healthz stays 200.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { applyMigrations, createDb, startPostgresKeeper } from '@svc/db';
import { startTestGateway } from './helpers.js';

test('readyz fails the database check when the database is stopped; healthz stays 200', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pg-stop-'));
  fs.chmodSync(dir, 0o755);
  const pg = await startPostgresKeeper(dir, { database: 'svc', ephemeral: true, stdio: 'ignore', settings: { fsync: 'off' } });
  const setup = createDb({ url: pg.url, poolSize: 1 });
  await applyMigrations(setup.pool);
  await setup.close();
  const gw = await startTestGateway({ databaseUrl: pg.url });
  try {
    assert.equal((await fetch(`${gw.url}/readyz`)).status, 200);
    await pg.stop();
    const r = await fetch(`${gw.url}/readyz`);
    assert.equal(r.status, 503);
    const body = (await r.json()) as { status: string; checks: Record<string, string>; failed: string[] };
    assert.equal(body.status, 'fail');
    assert.ok(body.failed.includes('database'));
    assert.notEqual(body.checks.database, 'ok');
    assert.equal(body.checks.storage, 'ok');
    assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
    // Gauges whose queries fail have no series, but /metrics still answers.
    const m = await fetch(`${gw.url}/metrics`);
    assert.equal(m.status, 200);
    const text = await m.text();
    assert.doesNotMatch(text, /^svc_executions\{/m);
    assert.match(text, /^process_cpu_user_seconds_total/m);
  } finally {
    await gw.close();
    await pg.stop();
  }
});
