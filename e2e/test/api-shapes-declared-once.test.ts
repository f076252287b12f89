// The API's shapes are declared once, in the spec package: the web UI, the
// CLI, the gateway and the tests use the types generated from the OpenAPI
// document (@svc/api-spec, src/openapi-types.generated.ts) instead of retyping
// them. This test parses every TypeScript file under apps/*/src, apps/*/test
// and e2e/test with the TypeScript compiler API and fails on
//   - an interface or type alias named like a schema of the document
//     (components.schemas), unless it is an alias of the generated types;
//   - an interface, type alias or inline object type (`ctx.body as {...}`,
//     `api<{...}>(...)`) whose property names are exactly those of a schema
//     (schemas with two properties or more: `{ items }` or `{ name }` alone say
//     nothing);
//   - an intersection of a generated type (`Schemas['X']`,
//     `components['schemas']['X']`, `Answer<'op'>`) with an object type that
//     declares a property the document already declares for it: a field
//     retyped on top of the generated one (the way a free-form field used to
//     be read), instead of declared in the spec.
// `FlowFile.*` schemas are the flow file's (the flow schema, @svc/flow-schema,
// is their source), not API objects. A check of a small source with known
// faults runs first, so a checker that finds nothing cannot pass.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { buildOpenApiDocument } from '@svc/api-spec';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Declarations (or the object types inside them) whose property set equals a schema's, with why they are not the API object. */
// The log rows of the engine's read model (LogRow, ts as int8 text) and the stored alert channels of
// @svc/alerts (AlertChannel) have the property sets of API objects, but live in packages, which this
// test does not scan.
const NOT_API_OBJECTS: { file: string; name: string; why: string }[] = [];

interface SchemaIndex {
  names: Set<string>;
  /** Sorted property names joined by commas → the schemas with exactly those properties. */
  byProperties: Map<string, string[]>;
  /** `Schemas['X']` or `Answer<'op'>` → the properties the document declares for it. */
  declared: Map<string, Set<string>>;
}

interface Doc {
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string; properties?: object } }> }> }>>;
}

function schemaIndex(doc: Doc): SchemaIndex {
  const schemas = doc.components.schemas;
  const names = new Set<string>();
  const byProperties = new Map<string, string[]>();
  const declared = new Map<string, Set<string>>();
  for (const [name, schema] of Object.entries(schemas)) {
    declared.set(`Schemas['${name}']`, new Set(Object.keys(schema.properties ?? {})));
    if (name.startsWith('FlowFile.')) continue;
    names.add(name);
    const props = Object.keys(schema.properties ?? {}).sort();
    if (props.length < 2) continue;
    const key = props.join(',');
    byProperties.set(key, [...(byProperties.get(key) ?? []), name]);
  }
  // An operation's answer: the JSON body of its first 2xx response, a component or inline.
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      const status = Object.keys(op.responses ?? {}).find((s) => s.startsWith('2'));
      const schema = status ? op.responses?.[status]?.content?.['application/json']?.schema : undefined;
      if (!op.operationId || !schema) continue;
      const ref = schema.$ref?.replace('#/components/schemas/', '');
      const props = ref ? schemas[ref]?.properties : schema.properties;
      declared.set(`Answer<'${op.operationId}'>`, new Set(Object.keys(props ?? {})));
    }
  }
  return { names, byProperties, declared };
}

/** `components['schemas']['X']`, `Schemas['X']` or `Answer<'op'>` (its default status), as the key of {@link SchemaIndex.declared}. */
function generatedKey(text: string): string | undefined {
  const schema = /^(?:components\s*\[\s*'schemas'\s*\]|Schemas)\s*\[\s*'([^']+)'\s*\]$/.exec(text);
  if (schema) return `Schemas['${schema[1]}']`;
  const answer = /^Answer\s*<\s*'([^']+)'\s*>$/.exec(text);
  return answer ? `Answer<'${answer[1]}'>` : undefined;
}

/** An indexed access into the generated types (`components['schemas']['X']`, `Schemas['X']`, `operations[...]`) or a helper over them. */
const GENERATED = /\b(components|Schemas|operations|ApiOperations|paths)\s*\[|\b(Answer|RequestBody)\s*</;

function memberNames(members: ts.NodeArray<ts.TypeElement>): string[] | undefined {
  const out: string[] = [];
  for (const m of members) {
    // Index signatures, call signatures and computed names: not a plain object shape.
    if (!m.name || !(ts.isIdentifier(m.name) || ts.isStringLiteral(m.name))) return undefined;
    out.push(m.name.text);
  }
  return out.sort();
}

/** The name of the interface or type alias an object type is part of, if any. */
function enclosingDeclaration(node: ts.Node): string | undefined {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) return n.name.text;
  }
  return undefined;
}

function containsTypeLiteral(node: ts.Node): boolean {
  let found = false;
  const visit = (n: ts.Node) => {
    if (found) return;
    if (ts.isTypeLiteralNode(n) || ts.isLiteralTypeNode(n)) found = true;
    else ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

/** The findings of one file, as `file:line what`. */
function check(file: string, text: string, index: SchemaIndex): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const at = (n: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
  const allowed = (name: string | undefined) => name !== undefined && NOT_API_OBJECTS.some((a) => a.file === file && a.name === name);
  const byProps = (members: ts.NodeArray<ts.TypeElement>) => {
    const names = memberNames(members);
    return names && names.length >= 2 ? index.byProperties.get(names.join(',')) : undefined;
  };
  const visit = (n: ts.Node) => {
    if (ts.isInterfaceDeclaration(n)) {
      const name = n.name.text;
      if (index.names.has(name)) out.push(`${at(n)} interface ${name} is a schema of the document: use the generated type`);
      // An interface that extends another has more properties than its own members.
      const match = n.heritageClauses?.length ? undefined : byProps(n.members);
      if (match && !allowed(name)) out.push(`${at(n)} interface ${name} has the properties of ${match.join(' and ')}: use the generated type`);
    } else if (ts.isTypeAliasDeclaration(n)) {
      const name = n.name.text;
      const derived = GENERATED.test(n.type.getText(sf)) || !containsTypeLiteral(n.type);
      if (index.names.has(name) && !derived) out.push(`${at(n)} type ${name} is a schema of the document: use the generated type`);
      const match = ts.isTypeLiteralNode(n.type) ? byProps(n.type.members) : undefined;
      if (match && !allowed(name)) out.push(`${at(n)} type ${name} has the properties of ${match.join(' and ')}: use the generated type`);
    } else if (ts.isTypeLiteralNode(n) && !ts.isTypeAliasDeclaration(n.parent)) {
      const match = byProps(n.members);
      if (match && !allowed(enclosingDeclaration(n))) out.push(`${at(n)} an object type with the properties of ${match.join(' and ')}: use the generated type`);
    }
    if (ts.isIntersectionTypeNode(n)) {
      const bases = n.types.map((t) => generatedKey(t.getText(sf))).filter((k): k is string => k !== undefined && index.declared.has(k));
      for (const lit of n.types.filter(ts.isTypeLiteralNode)) {
        for (const name of memberNames(lit.members) ?? []) {
          const base = bases.find((b) => index.declared.get(b)!.has(name));
          if (base) out.push(`${at(lit)} retypes ${name} of ${base}, which the document declares: use the generated field (or declare it in the spec)`);
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** apps/*\/src, apps/*\/test and e2e/test: every .ts and .tsx file, as paths relative to the repository. */
function sources(): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(root, rel);
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
      const p = path.posix.join(rel, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  for (const app of fs.readdirSync(path.join(root, 'apps'))) {
    walk(`apps/${app}/src`);
    walk(`apps/${app}/test`);
  }
  walk('e2e/test');
  return out.sort();
}

const doc = buildOpenApiDocument() as unknown as Doc;
const index = schemaIndex(doc);

test('the checker finds shapes retyped from the document, and lets aliases of the generated types and other shapes pass', () => {
  const token = Object.keys(doc.components.schemas.ApiToken?.properties ?? {});
  assert.ok(token.length >= 2, 'the document has an ApiToken schema with properties');
  const fields = (names: string[]) => names.map((p) => `${p}: unknown;`).join(' ');
  const source = [
    `interface Execution { id: string }`,
    `type TaskRun = { id: string; task_key: string };`,
    `type Role = 'viewer' | 'admin';`,
    `interface Token { ${fields(token)} }`,
    `const body = ctx.body as { ${fields([...token].reverse())} };`,
    `type Flow = components['schemas']['Flow'] & { definition?: FlowDefinition };`,
    `type Files = Answer<'listFiles'> & { version?: number };`,
    // Allowed: aliases of the generated types, extended with fields the document does not declare or not, and shapes of the UI's own.
    `type Summary = Schemas['ExecutionSummary'] & { triage_summary?: string | null };`,
    `type User = Schemas['User'];`,
    `type Page<T> = Pick<Answer<'listExecutions'>, 'next_cursor'> & { items: T[] };`,
    `interface Props { id: string; onSelect: () => void }`,
    `interface Named extends Base { ${fields(token)} }`,
    `const page = await api<{ items: unknown[] }>('GET', '/x');`,
  ].join('\n');
  assert.deepEqual(check('fixture.ts', source, index), [
    'fixture.ts:1 interface Execution is a schema of the document: use the generated type',
    'fixture.ts:2 type TaskRun is a schema of the document: use the generated type',
    'fixture.ts:3 type Role is a schema of the document: use the generated type',
    'fixture.ts:4 interface Token has the properties of ApiToken: use the generated type',
    'fixture.ts:5 an object type with the properties of ApiToken: use the generated type',
    "fixture.ts:6 retypes definition of Schemas['Flow'], which the document declares: use the generated field (or declare it in the spec)",
    "fixture.ts:7 retypes version of Answer<'listFiles'>, which the document declares: use the generated field (or declare it in the spec)",
  ]);
});

test('no API shape is declared outside packages/api-spec (apps/*/src, apps/*/test, e2e/test)', () => {
  const files = sources();
  assert.ok(files.includes('apps/web/src/types.ts') && files.includes('apps/cli/src/ui/watch.ts'), 'the web UI and the CLI are checked');
  const findings = files.flatMap((f) => check(f, fs.readFileSync(path.join(root, f), 'utf8'), index));
  assert.deepEqual(
    findings,
    [],
    `API shapes declared outside the spec package (packages/api-spec; the web UI aliases them in apps/web/src/types.ts, the CLI in apps/cli/src/api/types.ts):\n${findings.join('\n')}`,
  );
  for (const a of NOT_API_OBJECTS) assert.ok(files.includes(a.file), `${a.file} (allowed ${a.name}) still exists`);
});
