// A bad period or interval variable stops the service that reads it like any
// bad configuration: exit code 2 and one line per variable at fault (STYLE.md
// habit 5). Before, SVC_SSE_KEEPALIVE_MS was an unhandled error (exit 1) in
// the api-gateway and SVC_WATCHDOG_MS was ignored by maintenance. Each built
// process runs with nothing but PATH, HOME and a fresh data directory: it
// reads its configuration before it looks for a database.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { root } from './stack.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-periods-config-'));
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function run(app: string, svcEnv: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_DATA_DIR: dataDir, SVC_LOG_FORMAT: 'text', ...svcEnv };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'apps', app, 'dist', 'main.js')], { env, cwd: dataDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const range = 'must be a whole number of milliseconds from 10 to 3600000';
const cases: { app: string; bad: Record<string, string>; good: Record<string, string>; report: string }[] = [
  {
    app: 'api-gateway',
    bad: { SVC_SSE_KEEPALIVE_MS: '0' },
    report: `  SVC_SSE_KEEPALIVE_MS: ${range} (got "0")\n`,
    good: { SVC_SSE_KEEPALIVE_MS: '250' },
  },
  {
    app: 'maintenance',
    bad: { SVC_WATCHDOG_MS: '5s' },
    report: `  SVC_WATCHDOG_MS: ${range} (got "5s")\n`,
    good: { SVC_WATCHDOG_MS: '500' },
  },
  {
    app: 'scheduler',
    bad: { SVC_SCHEDULER_TICK_MS: '1s', SVC_SCHEDULER_SYNC_MS: '200', SVC_SCHEDULER_SWEEP_MS: '5' },
    report: `  SVC_SCHEDULER_TICK_MS: ${range} (got "1s")\n  SVC_SCHEDULER_SWEEP_MS: ${range} (got "5")\n`,
    good: { SVC_SCHEDULER_TICK_MS: '50', SVC_SCHEDULER_SYNC_MS: '200', SVC_SCHEDULER_SWEEP_MS: '3600000' },
  },
];

for (const c of cases) {
  test(`${c.app}: ${Object.keys(c.bad).join(', ')} not whole numbers of milliseconds from 10 to 3600000 exit 2, naming each variable at fault`, { timeout: 30_000 }, async () => {
    const { code, stdout, stderr } = await run(c.app, c.bad);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.equal(stderr, `invalid configuration:\n${c.report}`);
  });

  test(`${c.app}: valid ${Object.keys(c.good).join(', ')} pass the configuration`, { timeout: 30_000 }, async () => {
    const { code, stdout, stderr } = await run(c.app, c.good);
    assert.doesNotMatch(stdout + stderr, /invalid configuration/);
    // Past the configuration it looks for a database, and there is none here.
    assert.equal(code, 1);
    assert.match(stdout + stderr, /SVC_DATABASE_URL is not set and no embedded PostgreSQL is running/);
  });
}
