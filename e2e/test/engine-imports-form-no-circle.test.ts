// The engine's files import one way (STYLE.md habit 14): types and statements
// at the bottom, systems above them, the façade on top. A system gets the
// peers it calls back in its constructor instead of importing them, so no two
// files import each other, directly or around a loop. This test reads every
// import of packages/engine/src (`import type` included: a type import ties
// two files together as much as a value import) and fails on any circle,
// naming it; and on the two layering rules the lint also holds (sql/ and
// planning/ never import systems/; resources.ts imports types only).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const src = path.join(root, 'packages/engine/src');

interface Import {
  /** The imported file, relative to src (`systems/start.ts`). */
  target: string;
  typeOnly: boolean;
}

/** The .ts files of the engine's source (tests beside pure code included), relative to src. */
function files(base = src, dir = base): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      // Generated code (Prisma's client) is not ours to arrange.
      if (e.name !== 'generated') out.push(...files(base, p));
    } else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path.relative(base, p));
  }
  return out.sort();
}

/** The relative imports and re-exports of one file: `import`, `import type`, `export ... from`, `import()`. */
function importsOf(file: string, base = src): Import[] {
  const text = fs.readFileSync(path.join(base, file), 'utf8');
  const out: Import[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
    const spec = m[4] ?? m[5];
    const resolved = path.relative(base, path.resolve(path.join(base, path.dirname(file)), spec)).replace(/\.js$/, '.ts');
    // A .tsx file is imported as .js too.
    const target = fs.existsSync(path.join(base, resolved)) || !fs.existsSync(path.join(base, resolved.replace(/\.ts$/, '.tsx'))) ? resolved : resolved.replace(/\.ts$/, '.tsx');
    // `import { type A, type B }` is type-only too.
    const names = m[3] ?? '';
    const allTypes =
      !!m[2] ||
      (/^\{[^}]*\}$/.test(names.trim()) &&
        names
          .replace(/[{}\s]/g, '')
          .split(',')
          .filter(Boolean)
          .every((n) => n.startsWith('type')));
    out.push({ target, typeOnly: !m[5] && allTypes });
  }
  return out;
}

const graphOf = (base: string) => new Map(files(base).map((f) => [f, importsOf(f, base)]));
const engineGraph = graphOf(src);
const graph = engineGraph;

/** The circles of the graph: one per strongly connected component of more than one file (or a file importing itself), each as a path. */
function circles(graph: Map<string, Import[]> = engineGraph): string[][] {
  // Tarjan's algorithm over the file graph.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const { target: w } of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      const self = graph.get(v)!.some((i) => i.target === v);
      if (comp.length > 1 || self) out.push(comp.sort());
    }
  };
  for (const f of graph.keys()) if (!idx.has(f)) visit(f);
  return out;
}

test('no import circle inside packages/engine/src (type imports count)', () => {
  assert.deepEqual(circles(), []);
});

test('no import circle inside the source of any app or package either (generated code aside)', () => {
  const found: string[] = [];
  for (const group of ['apps', 'packages'])
    for (const ws of fs.readdirSync(path.join(root, group)).sort()) {
      const base = path.join(root, group, ws, 'src');
      if (!fs.existsSync(base)) continue;
      for (const c of circles(graphOf(base))) found.push(`${group}/${ws}/src: ${c.join(', ')}`);
    }
  assert.deepEqual(found, []);
});

test('sql/ and planning/ import nothing from systems/, and resources.ts imports types only', () => {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    for (const i of imports) {
      if (/^(sql|planning)\//.test(file) && i.target.startsWith('systems/')) found.push(`${file} imports ${i.target}`);
      if (file === 'resources.ts' && !i.typeOnly) found.push(`resources.ts imports values of ${i.target}`);
    }
  }
  assert.deepEqual(found, []);
});

test('the check sees imports and circles', () => {
  // Guards the parsing above: were it to find nothing, both rules would pass.
  assert.ok(graph.get('engine.ts')!.some((i) => i.target.startsWith('systems/')));
  assert.ok(graph.get('resources.ts')!.length > 0);
  const saved = new Map(graph);
  graph.set('a.ts', [{ target: 'b.ts', typeOnly: true }]);
  graph.set('b.ts', [{ target: 'a.ts', typeOnly: false }]);
  try {
    assert.deepEqual(circles(), [['a.ts', 'b.ts']]);
  } finally {
    graph.clear();
    for (const [k, v] of saved) graph.set(k, v);
  }
});
