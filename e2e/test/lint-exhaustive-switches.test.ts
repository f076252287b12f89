// The lint of `npm test`: every switch over a union in apps/*/src and
// packages/*/src handles every member (STYLE.md habit 2), checked by ESLint's
// type-aware @typescript-eslint/switch-exhaustiveness-check with the options
// of eslint.config.mjs. A second test lints a fixture with two violations, so
// the first cannot pass because the rule never fires.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { exhaustiveSwitchRules } from '../../eslint.config.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslintBin = path.join(root, 'node_modules/eslint/bin/eslint.js');
/** What `npm run lint` lints (package.json; there the shell expands the directories). */
const TARGETS = ['apps/*/src/**/*.ts', 'packages/*/src/**/*.ts'];

type Result = Pick<ESLint.LintResult, 'filePath' | 'messages'>;

function violations(results: Result[]): string[] {
  return results.flatMap((r) => r.messages.map((m) => `${path.relative(root, r.filePath)}:${m.line ?? 0}:${m.column ?? 0} ${m.message}${m.ruleId ? ` (${m.ruleId})` : ''}`));
}

test('every switch over a union in apps/*/src and packages/*/src is exhaustive', async () => {
  // A child process: type-aware linting holds a TypeScript program per package.
  const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number }>((resolve) => {
    execFile(process.execPath, [eslintBin, '--format', 'json', ...TARGETS], { cwd: root, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ stdout, stderr, code: err ? (typeof err.code === 'number' ? err.code : 1) : 0 }),
    );
  });
  let results: Result[];
  try {
    results = JSON.parse(stdout) as Result[];
  } catch {
    assert.fail(`eslint exited with ${code} without a report:\n${stderr}${stdout}`);
  }
  const files = results.map((r) => path.relative(root, r.filePath));
  // Not vacuous: the targets are found and linted.
  assert.ok(files.length > 200, `only ${files.length} files were linted`);
  for (const f of ['packages/state-machine/src/transitions.ts', 'apps/api-gateway/src/routes/secrets.ts']) assert.ok(files.includes(f), `${f} was not linted`);
  assert.ok(!files.some((f) => f.includes('/dist/') || f.includes('/generated/') || f.endsWith('.test.ts')), 'dist, generated or test files were linted');
  const found = violations(results);
  assert.deepEqual(found, [], `${found.length} lint violations (run: npm run lint):\n${found.join('\n')}`);
  assert.equal(code, 0, stderr);
});

test('the rule reports a missing case, also behind a default, and accepts a switch ending in assertNever', async () => {
  const dir = path.join(root, 'e2e/test/fixtures/lint-exhaustive-switches');
  const eslint = new ESLint({
    cwd: dir,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: dir } },
        plugins: { '@typescript-eslint': tseslint.plugin },
        rules: exhaustiveSwitchRules,
      },
    ],
  });
  const results = await eslint.lintFiles(['switches.ts']);
  const found = results.flatMap((r) => r.messages.map((m) => ({ line: m.line, ruleId: m.ruleId, message: m.message })));
  const source = fs.readFileSync(path.join(dir, 'switches.ts'), 'utf8').split('\n');
  const marked = source.flatMap((l, i) => (l.includes('// VIOLATION') ? [i + 1] : []));
  assert.equal(marked.length, 2);
  assert.deepEqual(
    found.map((f) => f.line),
    marked,
    JSON.stringify(found, null, 2),
  );
  for (const f of found) {
    assert.equal(f.ruleId, '@typescript-eslint/switch-exhaustiveness-check');
    assert.match(f.message, /Cases not matched: "amber"/);
  }
});
