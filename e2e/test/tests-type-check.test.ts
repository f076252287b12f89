// Every test file is type-checked, as the sources are by their builds: the
// Node tests (apps/*/test, packages/*/test, e2e/test, the *.test.ts beside
// sources, bench/) with tsconfig.tests.json, the web UI's unit and browser
// tests with apps/web/tsconfig.test.json (its own module resolution and DOM
// types). tsx runs tests without checking them, so without this a test could
// call a helper with the wrong arguments (a predicate's promise taken as
// `true`, say) and pass for the wrong reason.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

function typeCheck(project: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [tsc, '-p', project, '--pretty', 'false'], { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr }),
    );
  });
}

for (const project of ['tsconfig.tests.json', 'apps/web/tsconfig.test.json']) {
  test(`the test files of ${project} type-check`, { timeout: 300_000 }, async () => {
    const { code, out } = await typeCheck(project);
    const errors = out.split('\n').filter((l) => /error TS\d+/.test(l));
    assert.deepEqual(errors, [], `tsc -p ${project} found ${errors.length} errors:\n${out}`);
    assert.equal(code, 0, out);
  });
}
