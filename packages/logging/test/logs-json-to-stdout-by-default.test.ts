// With no stream given, a logger writes to the process's stdout: this is what
// each app relies on when it is run under a supervisor that collects stdout.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const built = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/index.js');

it('a default logger writes JSON lines to stdout and nothing to stderr', { timeout: 30_000 }, async () => {
  assert.ok(fs.existsSync(built), `${built} is missing: build @svc/logging first`);
  const main = `
    import { createLogger } from ${JSON.stringify(pathToFileURL(built).href)};
    const log = createLogger({ service: 'scheduler' });
    log.info('tick', { due: 3 });
    log.error('failed', { err: new Error('boom') });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', main], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  assert.equal(stderr, '');
  const lines = stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(lines.length, 2);
  assert.deepEqual([lines[0]!.service, lines[0]!.message, lines[0]!.due], ['scheduler', 'tick', 3]);
  assert.equal((lines[1]!.err as { message: string }).message, 'boom');
  assert.match((lines[1]!.err as { stack: string }).stack, /^Error: boom/);
});
