// The lint of `npm test`: typescript-eslint's type-checked recommended rules
// and the exhaustive-switch rule over apps/*/src and packages/*/src, with the
// configuration of eslint.config.mjs (`npm run lint` runs the same). Two more
// tests lint fixtures with known violations, so the first cannot pass because
// the rules never fire.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { engineLayerRules, exhaustiveSwitchRules, SOURCES, typeCheckedConfig } from '../../eslint.config.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslintBin = path.join(root, 'node_modules/eslint/bin/eslint.js');
const fixtures = path.join(root, 'e2e/test/fixtures/lint');
/** Type-aware linting of the whole repository holds every package's TypeScript program at once. */
const HEAP_MB = 6144;

type Result = Pick<ESLint.LintResult, 'filePath' | 'messages'>;

function violations(results: Result[]): string[] {
  return results.flatMap((r) => r.messages.map((m) => `${path.relative(root, r.filePath)}:${m.line ?? 0}:${m.column ?? 0} ${m.message}${m.ruleId ? ` (${m.ruleId})` : ''}`));
}

/** The lines of a fixture marked `// VIOLATION`, with the rules named after it. */
function marked(file: string): { line: number; rules: string[] }[] {
  return fs
    .readFileSync(path.join(fixtures, file), 'utf8')
    .split('\n')
    .flatMap((l, i) => {
      const m = /\/\/ VIOLATION ?(.*)$/.exec(l);
      return m ? [{ line: i + 1, rules: m[1] ? m[1].split(',').map((r) => r.trim()) : [] }] : [];
    });
}

test('apps/*/src and packages/*/src pass the type-checked recommended rules and the exhaustive-switch rule', async () => {
  // A child process, as `npm run lint` runs it.
  const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number }>((resolve) => {
    execFile(process.execPath, [`--max-old-space-size=${HEAP_MB}`, eslintBin, '--format', 'json', ...SOURCES], { cwd: root, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) =>
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
  // Not vacuous: the targets are found and linted, the UI's .tsx among them.
  assert.ok(files.length > 300, `only ${files.length} files were linted`);
  for (const f of ['packages/state-machine/src/transitions.ts', 'apps/api-gateway/src/routes/secrets.ts', 'apps/web/src/App.tsx', 'packages/k8s-standin/src/server.ts'])
    assert.ok(files.includes(f), `${f} was not linted`);
  assert.ok(!files.some((f) => f.includes('/dist/') || f.includes('/generated/') || f.endsWith('.test.ts')), 'dist, generated or test files were linted');
  const found = violations(results);
  assert.deepEqual(found, [], `${found.length} lint violations (run: npm run lint):\n${found.join('\n')}`);
  assert.equal(code, 0, stderr);
});

test('the type-checked rules report unsafe any and an async function without await, and accept a typed parse', async () => {
  const eslint = new ESLint({ cwd: fixtures, overrideConfigFile: true, overrideConfig: typeCheckedConfig(['**/*.ts'], fixtures) });
  const [result] = await eslint.lintFiles(['unsafe.ts']);
  const found = result.messages.map((m) => ({ line: m.line, rule: (m.ruleId ?? '').replace('@typescript-eslint/', '') }));
  const want = marked('unsafe.ts').flatMap((m) => m.rules.map((rule) => ({ line: m.line, rule })));
  assert.equal(want.length, 4);
  const key = (f: { line: number; rule: string }) => `${f.line} ${f.rule}`;
  assert.deepEqual(found.map(key).sort(), want.map(key).sort(), JSON.stringify(result.messages, null, 2));
});

test('the exhaustive-switch rule reports a missing case, also behind a default, and accepts a switch ending in assertNever', async () => {
  const eslint = new ESLint({
    cwd: fixtures,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: fixtures } },
        plugins: { '@typescript-eslint': tseslint.plugin },
        rules: exhaustiveSwitchRules,
      },
    ],
  });
  const [result] = await eslint.lintFiles(['switches.ts']);
  const lines = marked('switches.ts').map((m) => m.line);
  assert.equal(lines.length, 2);
  assert.deepEqual(
    result.messages.map((m) => m.line),
    lines,
    JSON.stringify(result.messages, null, 2),
  );
  for (const m of result.messages) {
    assert.equal(m.ruleId, '@typescript-eslint/switch-exhaustiveness-check');
    assert.match(m.message, /Cases not matched: "amber"/);
  }
});

test("the engine's layer rules report a statement importing a system and a value import in resources.ts, and accept type imports", async () => {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { '@typescript-eslint': tseslint.plugin } }, ...engineLayerRules],
  });
  const lint = async (file: string, code: string) =>
    (await eslint.lintText(code, { filePath: path.join(root, 'packages/engine/src', file) }))[0].messages.map((m) => `${m.line} ${m.ruleId ?? ''}`);
  const rule = '@typescript-eslint/no-restricted-imports';
  assert.deepEqual(await lint('sql/fixture.ts', "import type { FollowUp } from '../types.js';\nimport { Outbox } from '../systems/outbox.js';\nexport { Outbox };\n"), [
    `2 ${rule}`,
  ]);
  assert.deepEqual(await lint('planning/fixture.ts', "import type { Starts } from '../systems/start.js';\nexport type { Starts };\n"), [`1 ${rule}`]);
  assert.deepEqual(
    await lint(
      'resources.ts',
      "import type pg from 'pg';\nimport type { FollowUp } from './types.js';\nimport { CHANNELS } from './channels.js';\nexport type { pg, FollowUp };\nexport { CHANNELS };\n",
    ),
    [`3 ${rule}`],
  );
  assert.deepEqual(await lint('systems/fixture.ts', "import { Outbox } from './outbox.js';\nexport { Outbox };\n"), []);
});
