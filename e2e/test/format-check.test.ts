// The formatter's check of `npm test`: every TypeScript and JavaScript file of
// the repository is as Prettier writes it (.prettierrc.json; .prettierignore
// leaves out the generated API types, the Prisma client and everything that
// is not code). `npm run format` rewrites them; `npm run format:check` is
// this check alone. A second test gives it a badly formatted file, so the
// first cannot pass because the check never looks.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const prettier = path.join(root, 'node_modules/prettier/bin/prettier.cjs');

function check(args: string[], cwd = root): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [prettier, '--check', ...args], { cwd, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr }),
    );
  });
}

test('every code file is formatted as Prettier writes it (npm run format)', { timeout: 300_000 }, async () => {
  const { code, out } = await check(['--log-level', 'warn', '.']);
  const files = out
    .split('\n')
    .filter((l) => l.startsWith('[warn] ') && !l.includes('Code style issues'))
    .map((l) => l.slice(7));
  assert.deepEqual(files, [], `not formatted (run npm run format):\n${out}`);
  assert.equal(code, 0, out);
});

test('the check finds a file that is not formatted, with the repository settings', { timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-format-'));
  try {
    fs.copyFileSync(path.join(root, '.prettierrc.json'), path.join(dir, '.prettierrc.json'));
    fs.writeFileSync(path.join(dir, 'good.ts'), "export const a = { b: 'c' };\n");
    fs.writeFileSync(path.join(dir, 'bad.ts'), 'export const a = {b:"c"}\n');
    const r = await check(['good.ts', 'bad.ts'], dir);
    assert.notEqual(r.code, 0);
    assert.match(r.out, /bad\.ts/);
    assert.doesNotMatch(r.out, /good\.ts/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
