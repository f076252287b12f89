// A bad SVC_SCHEDULER_*_MS stops the scheduler like any bad configuration:
// exit code 2 and one line per variable at fault (STYLE.md habit 5).
// The built process runs with nothing but PATH, HOME and a fresh data
// directory: it reads its configuration before it looks for a database.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/main.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-scheduler-config-'));
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function run(svcEnv: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_DATA_DIR: dataDir, SVC_LOG_FORMAT: 'text', ...svcEnv };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main], { env, cwd: dataDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a scheduler period that is not a whole number of milliseconds from 10 to 3600000 exits 2 naming each variable', { timeout: 30_000 }, async () => {
  const { code, stdout, stderr } = await run({ SVC_SCHEDULER_TICK_MS: '1s', SVC_SCHEDULER_SYNC_MS: '200', SVC_SCHEDULER_SWEEP_MS: '5' });
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.equal(
    stderr,
    'invalid configuration:\n' +
      '  SVC_SCHEDULER_TICK_MS: must be a whole number of milliseconds from 10 to 3600000 (got "1s")\n' +
      '  SVC_SCHEDULER_SWEEP_MS: must be a whole number of milliseconds from 10 to 3600000 (got "5")\n',
  );
});

test('valid scheduler periods pass the configuration', { timeout: 30_000 }, async () => {
  const { code, stdout, stderr } = await run({ SVC_SCHEDULER_TICK_MS: '50', SVC_SCHEDULER_SYNC_MS: '200', SVC_SCHEDULER_SWEEP_MS: '3600000' });
  assert.doesNotMatch(stdout + stderr, /invalid configuration/);
  // Past the configuration it looks for a database, and there is none here.
  assert.equal(code, 1);
  assert.match(stdout + stderr, /SVC_DATABASE_URL is not set and no embedded PostgreSQL is running/);
});
