// Every package a production source file imports at run time is a runtime
// dependency of its workspace package. The images install each app with
// `pnpm deploy --prod` (infra/deploy-app.sh), which leaves devDependencies
// out: a module found in the monorepo through a devDependency is missing in
// the image, and the app dies at start (maintenance did, on @svc/identity).
// Production sources: apps/*/src and packages/*/src, without tests and
// without the testing helpers a package exports for other packages' tests
// (testing.ts, testing/, *-testing.ts). Type-only imports are erased and so
// exempt. A second test runs the check on a fixture that breaks the rule.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUILTINS = new Set(builtinModules);

/** The package an import specifier names, or undefined for a relative path or a builtin. */
function packageOf(spec: string): string | undefined {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || BUILTINS.has(spec.split('/')[0]!)) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Run-time import specifiers of a TypeScript source (static, re-exports and dynamic), leaving out `import type`. */
export function runtimeImports(source: string): string[] {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) if (!m[2]) out.push(m[3]!);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

const isProduction = (rel: string) => !/(^|\/)(test|testing)(\/|$)|\.test\.tsx?$|(^|\/)testing\.ts$|-testing\.ts$|\.d\.ts$/.test(rel);

function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** What a workspace package imports at run time without declaring it among dependencies/peerDependencies. */
export function undeclared(pkgDir: string): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
    name: string;
    dependencies?: object;
    peerDependencies?: object;
    optionalDependencies?: object;
  };
  const declared = new Set([pkg.name, ...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]);
  const out: string[] = [];
  for (const file of files(path.join(pkgDir, 'src'))) {
    const rel = path.relative(path.join(pkgDir, 'src'), file);
    if (!isProduction(rel)) continue;
    for (const spec of runtimeImports(fs.readFileSync(file, 'utf8'))) {
      const name = packageOf(spec);
      if (name && !declared.has(name)) out.push(`${path.relative(root, file)} imports ${name}`);
    }
  }
  return out;
}

// apps/web is bundled by Vite into static files: its imports are build inputs, not installed at run time.
const PACKAGES = ['apps', 'packages']
  .flatMap((d) => fs.readdirSync(path.join(root, d)).map((n) => path.join(root, d, n)))
  .filter((d) => fs.existsSync(path.join(d, 'package.json')) && !d.endsWith(`${path.sep}web`));

test('every package imported at run time by apps/*/src and packages/*/src is among its dependencies', () => {
  assert.ok(PACKAGES.length > 20, `found ${PACKAGES.length} workspace packages`);
  assert.deepEqual(PACKAGES.flatMap(undeclared), []);
});

test('the check finds a devDependency imported at run time, and leaves type-only imports and tests alone', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deps-lint-'));
  try {
    fs.mkdirSync(path.join(dir, 'src/test'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: '@svc/x', dependencies: { pg: '1' }, devDependencies: { '@svc/identity': '1', 'smtp-server': '1' } }));
    fs.writeFileSync(
      path.join(dir, 'src/a.ts'),
      [
        "import pg from 'pg';",
        "import type { A } from '@svc/identity/types';",
        "import { b } from '@svc/identity';",
        "// import x from 'left-pad';",
        "const m = await import('smtp-server');",
        "export { c } from './c.js';",
        "import fs from 'node:fs';",
      ].join('\n'),
    );
    fs.writeFileSync(path.join(dir, 'src/test/t.ts'), "import { SMTPServer } from 'smtp-server';\n");
    fs.writeFileSync(path.join(dir, 'src/testing.ts'), "import { SMTPServer } from 'smtp-server';\n");
    assert.deepEqual(
      undeclared(dir).map((l) => l.replace(/^.*src\//, '')),
      ['a.ts imports @svc/identity', 'a.ts imports smtp-server'],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * The other half: what a workspace package declares (dependencies and
 * devDependencies) and nothing of it uses. A dependency is used when a file of
 * the package names it in an import or require (tests, scripts and configs
 * included), or the package's scripts run one of its commands; type packages
 * (@types/*) go with their library. What is used in another way is listed here
 * with how.
 */
const USED_OTHERWISE: Record<string, string> = {
  // openapi-lint.test.ts runs the `redocly` command's JS entry, found through this package's node_modules.
  'packages/api-spec @redocly/cli': 'run by path',
  // infra-manifests.test.ts imports each object's model by a specifier computed from its apiVersion.
  'e2e kubernetes-models': 'imported as kubernetes-models/<apiVersion>',
  'e2e @kubernetes-models/keda': 'imported as @kubernetes-models/keda/<apiVersion> (the keda.sh group)',
  // tracing.ts registers its ESM loader hook by name: module.register('@opentelemetry/instrumentation/hook.mjs').
  'packages/service @opentelemetry/instrumentation': 'registered as a loader hook (@opentelemetry/instrumentation/hook.mjs)',
  'e2e @kubernetes-models/prometheus-operator': 'imported as @kubernetes-models/prometheus-operator/<apiVersion> (the monitoring.coreos.com group)',
};

function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', '.turbo', '.test-data'].includes(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...allFiles(p));
    else if (/\.(m?[jt]sx?|cjs|cts|mts)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** The command names a dependency installs (its package.json `bin`). */
function commandsOf(pkgDir: string, dep: string): string[] {
  try {
    const { bin } = JSON.parse(fs.readFileSync(path.join(pkgDir, 'node_modules', dep, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
    return typeof bin === 'string' ? [dep.split('/').pop()!] : Object.keys(bin ?? {});
  } catch {
    return [];
  }
}

/** Dependencies a workspace package declares and none of its files or scripts use. */
export function unused(pkgDir: string, usedOtherwise: Record<string, string> = USED_OTHERWISE): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const named = new Set<string>();
  for (const file of allFiles(pkgDir)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+|\bresolve\s*\(\s*)['"`]([^'"`./$][^'"`$]*)/g)) {
      const name = packageOf(m[1]!);
      if (name) named.add(name);
    }
  }
  const scripts = Object.values(pkg.scripts ?? {}).join(' ');
  const rel = path.relative(root, pkgDir);
  const out: string[] = [];
  for (const [kind, deps] of [
    ['dependencies', pkg.dependencies],
    ['devDependencies', pkg.devDependencies],
  ] as const) {
    for (const dep of Object.keys(deps ?? {})) {
      if (named.has(dep) || usedOtherwise[`${rel} ${dep}`]) continue;
      if (dep.startsWith('@types/') && named.has(dep.slice('@types/'.length).replace(/^(.+?)__(.+)$/, '@$1/$2'))) continue;
      if (dep.startsWith('@types/') && (dep === '@types/node' || kind === 'devDependencies')) continue;
      if (commandsOf(pkgDir, dep).some((c) => new RegExp(`(^|[\\s;&|(])${c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|$)`).test(scripts))) continue;
      out.push(`${rel} ${kind} ${dep}`);
    }
  }
  return out;
}

const WORKSPACE = [...PACKAGES, path.join(root, 'apps/web'), path.join(root, 'e2e'), path.join(root, 'bench')];

test('every dependency a workspace package declares is used by its files or its scripts', () => {
  assert.deepEqual(
    WORKSPACE.flatMap((d) => unused(d)),
    [],
  );
  // Every exception still names a real declaration: a stale one hides nothing.
  for (const key of Object.keys(USED_OTHERWISE)) {
    const [dir, dep] = key.split(' ') as [string, string];
    const pkg = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as { dependencies?: object; devDependencies?: object };
    assert.ok(dep in (pkg.dependencies ?? {}) || dep in (pkg.devDependencies ?? {}), `${key} is not declared any more`);
  }
});

test('the unused check finds a declared dependency nothing imports, and counts imports, requires and commands', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deps-unused-'));
  try {
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'node_modules/typescript'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules/typescript/package.json'), JSON.stringify({ name: 'typescript', bin: { tsc: './bin/tsc' } }));
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name: '@svc/x',
        scripts: { build: 'tsc -p tsconfig.json' },
        dependencies: { pg: '1', 'left-pad': '1', '@scope/lib': '1', cjs: '1' },
        devDependencies: { typescript: '1', 'smtp-server': '1', '@types/pg': '1', 'is-odd': '1' },
      }),
    );
    fs.writeFileSync(
      path.join(dir, 'src/a.ts'),
      ["import pg from 'pg';", "import { x } from '@scope/lib/sub';", "const c = require('cjs');", "// import odd from 'is-odd'; in a comment is still text"].join('\n'),
    );
    fs.writeFileSync(path.join(dir, 'src/a.test.ts'), "const m = await import('smtp-server');\n");
    assert.deepEqual(unused(dir, {}), [`${path.relative(root, dir)} dependencies left-pad`]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
