// The layering, checked: apps never depend on apps, packages never depend on
// apps, and the test-only packages (the Kubernetes stand-in, the container
// test helpers) never reach production dependencies, not even through another
// package. Each rule is read from the manifests (pnpm resolves a workspace
// import only when the manifest declares it) and from every import in the
// sources, so an undeclared reach into another package's folder fails too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TEST_ONLY = new Set(['@svc/k8s-standin', '@svc/container-testing']);

interface Workspace {
  name: string;
  dir: string;
  kind: 'app' | 'package';
  deps: string[];
  devDeps: string[];
}

function workspaces(): Workspace[] {
  const out: Workspace[] = [];
  for (const [parent, kind] of [
    ['apps', 'app'],
    ['packages', 'package'],
  ] as const) {
    for (const d of fs.readdirSync(path.join(root, parent))) {
      const file = path.join(root, parent, d, 'package.json');
      if (!fs.existsSync(file)) continue;
      const m = JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
      const ws = (o?: Record<string, string>) => Object.keys(o ?? {}).filter((k) => k.startsWith('@svc/'));
      out.push({ name: m.name, dir: `${parent}/${d}`, kind, deps: ws(m.dependencies), devDeps: ws(m.devDependencies) });
    }
  }
  return out;
}

const all = workspaces();
const byName = new Map(all.map((w) => [w.name, w]));

test('apps and packages depend on no app', () => {
  const found = all.flatMap((w) => [...w.deps, ...w.devDeps].filter((d) => byName.get(d)?.kind === 'app').map((d) => `${w.dir} → ${d}`));
  assert.deepEqual(found, []);
});

test('no production dependency reaches a test-only package, directly or through another', () => {
  const found: string[] = [];
  for (const w of all) {
    if (TEST_ONLY.has(w.name)) continue;
    const seen = new Set<string>();
    const walk = (name: string, via: string[]) => {
      if (seen.has(name)) return;
      seen.add(name);
      if (TEST_ONLY.has(name)) found.push(`${w.dir}: ${[...via, name].join(' → ')}`);
      for (const d of byName.get(name)?.deps ?? []) walk(d, [...via, name]);
    };
    for (const d of w.deps) walk(d, []);
  }
  assert.deepEqual(found, []);
});

/** Every import specifier of the .ts/.tsx files under `dir` (tests and sources). */
function importsUnder(dir: string): { file: string; spec: string }[] {
  const out: { file: string; spec: string }[] = [];
  const visit = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) visit(p);
      else if (/\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith('.d.ts')) {
        const text = fs.readFileSync(p, 'utf8');
        for (const m of text.matchAll(/(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm)) {
          out.push({ file: path.relative(root, p), spec: (m[1] ?? m[2] ?? m[3])! });
        }
      }
    }
  };
  visit(path.join(root, dir));
  return out;
}

test('sources import only the workspaces their manifest declares, and never an app or a test-only package from production code', () => {
  const found: string[] = [];
  for (const w of all) {
    const declared = new Set([...w.deps, ...w.devDeps, w.name]);
    for (const { file, spec } of importsUnder(w.dir)) {
      const isTest = /(^|\/)test\/|\.test\.tsx?$|\/testing\//.test(file);
      const pkg = spec.startsWith('@svc/') ? spec.split('/').slice(0, 2).join('/') : null;
      if (pkg && !declared.has(pkg)) found.push(`${file}: imports ${spec}, not in ${w.dir}/package.json`);
      if (pkg && byName.get(pkg)?.kind === 'app') found.push(`${file}: imports the app ${spec}`);
      if (pkg && TEST_ONLY.has(pkg) && !isTest && !TEST_ONLY.has(w.name)) found.push(`${file}: production code imports the test-only ${spec}`);
      // A relative path into another workspace's folder bypasses its manifest and its exports.
      if (spec.startsWith('.')) {
        const target = path.relative(root, path.resolve(root, path.dirname(file), spec));
        const other = all.find((o) => o !== w && (target === o.dir || target.startsWith(`${o.dir}/`)));
        if (other && !isTest) found.push(`${file}: reaches into ${other.dir} by a relative path (${spec})`);
        if (other?.kind === 'app') found.push(`${file}: reaches into the app ${other.dir} (${spec})`);
      }
    }
  }
  assert.deepEqual(found, []);
});

test('the checks see imports: the runner bundle imports @svc/runner, and the dispatcher tests import the Kubernetes stand-in', () => {
  // Guards the parsing above: were it to find nothing, every rule would pass.
  assert.ok(importsUnder('packages/runner-bundle').some((i) => i.spec.startsWith('@svc/runner')));
  assert.ok(importsUnder('apps/dispatcher').some((i) => i.spec === '@svc/k8s-standin' && /test/.test(i.file)));
});
