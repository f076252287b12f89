// A process given a bad configuration must stop with exit code 2 and name every
// variable at fault (spec: "another value stops the server with exit code 2";
// STYLE.md habit 5). This runs the built package in a real child process, the
// way each app's main() calls it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const built = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/index.js');

const MAIN = `
import { loadConfig } from ${JSON.stringify(pathToFileURL(built).href)};
const config = loadConfig();
process.stdout.write(JSON.stringify({ port: config.port, logFormat: config.logFormat, keys: config.masterKeys.length }));
`;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runMain(svcEnv: Record<string, string>): Promise<Outcome> {
  // Only PATH and HOME from the parent, so SVC_* variables of the developer's shell cannot change the outcome.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...svcEnv };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a process with an invalid configuration', { timeout: 30_000 }, () => {
  it('has the package built', () => {
    assert.ok(fs.existsSync(built), `${built} is missing: build @svc/config first (tsc -p packages/config)`);
  });

  it('starts normally when the configuration is valid', async () => {
    const key = crypto.randomBytes(32).toString('base64');
    const { code, stdout, stderr } = await runMain({ SVC_PORT: '9123', SVC_LOG_FORMAT: 'text', SVC_MASTER_KEYS: `k1:${key}` });
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(stdout), { port: 9123, logFormat: 'text', keys: 1 });
  });

  it('exits 2 on SVC_LOG_FORMAT=xml', async () => {
    const { code, stdout, stderr } = await runMain({ SVC_LOG_FORMAT: 'xml' });
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.equal(stderr, 'invalid configuration:\n  SVC_LOG_FORMAT: must be one of json, text (got "xml")\n');
  });

  it('exits 2 on a bad SVC_*_MS period, naming the variable and the accepted range', async () => {
    const { code, stdout, stderr } = await runMain({ SVC_SCHEDULER_TICK_MS: '1s', SVC_KILL_DELAY_MS: '-5' });
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.equal(
      stderr,
      'invalid configuration:\n' +
        '  SVC_KILL_DELAY_MS: must be a whole number of milliseconds from 0 to 3600000 (got "-5")\n' +
        '  SVC_SCHEDULER_TICK_MS: must be a whole number of milliseconds from 10 to 3600000 (got "1s")\n',
    );
  });

  it('exits 2 and lists every variable at fault when several are bad at once', async () => {
    const shortKey = crypto.randomBytes(16).toString('base64');
    const bad = {
      SVC_PORT: '70000',
      SVC_PUBLIC_URL: 'ftp://svc.example.com',
      SVC_SESSION_TTL: '7d',
      SVC_MASTER_KEYS: `main:${shortKey}`,
      SVC_ADMIN_EMAIL: 'admin@example.com',
      SVC_POOLS: 'GPU',
      SVC_EXECUTORS: 'process,lambda',
      SVC_WORKER_SLOTS: '0',
      SVC_MAX_FILE_BYTES: '10XB',
      SVC_LOG_LEVEL: 'verbose',
      SVC_LOG_FORMAT: 'xml',
      SVC_TOKEN: 'svc_has space',
    };
    const { code, stdout, stderr } = await runMain(bad);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    const lines = stderr.trimEnd().split('\n');
    assert.equal(lines[0], 'invalid configuration:');
    const named = lines.slice(1).map((line) => /^ {2}(SVC_[A-Z0-9_]+): /.exec(line)?.[1]);
    const expected = [...Object.keys(bad).filter((v) => v !== 'SVC_ADMIN_EMAIL'), 'SVC_ADMIN_PASSWORD'];
    assert.deepEqual([...named].sort(), expected.sort());
    assert.match(stderr, /SVC_PORT: must be a port number from 0 to 65535 \(got "70000"\)/);
    assert.match(stderr, /SVC_ADMIN_PASSWORD: must be set when SVC_ADMIN_EMAIL is set/);
    // Secrets are named but never echoed, and no stack trace reaches the operator.
    assert.ok(!stderr.includes(shortKey));
    assert.ok(!stderr.includes('has space'));
    assert.ok(!stderr.includes('    at '));
  });
});
