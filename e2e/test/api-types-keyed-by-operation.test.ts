// The operation id is the type key of the API, end to end: a route handler's
// request parts come typed from its operation (@svc/http HandlerContext<P, Op>,
// from the types generated from the OpenAPI document), and a call of the web
// UI or the CLI gets its answer's type from the path it calls (the typed
// client of @svc/api-spec). This test parses the sources with the TypeScript
// compiler API and fails on
//   - a cast of a request part in a route file of the gateway:
//     `ctx.body as X`, `(ctx.query ?? {}) as X`, `ctx.params as X`,
//     `req.body as X`, or the destructured `body`/`query`/`params` cast the
//     same way;
//   - an explicit answer type at an API call site of the web UI or the CLI:
//     `api<X>(...)`, `request<X>(...)`, `listAll<X>(...)`,
//     `client.get<X>(...)`, `.post<X>`, `.list<X>`, `.all<X>`... (the old
//     call forms, and any new one that names its answer instead of taking it
//     from the document).
// A check of a small source with known faults runs first, so a checker that
// finds nothing cannot pass.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The request parts of a handler's context and of an express request. */
const PARTS = new Set(['body', 'query', 'params']);
/** Functions and methods that call the API: with a type argument, the call names its own answer type. */
const CALLS = new Set(['api', 'request', 'listAll', 'prefetch']);
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'request', 'list', 'all', 'pages', 'stream', 'ndjson', 'raw', 'json']);

/** `(x ?? {})`, `(x)` → x. */
function unwrap(e: ts.Expression): ts.Expression {
  for (;;) {
    if (ts.isParenthesizedExpression(e)) e = e.expression;
    else if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) e = e.left;
    else if (ts.isNonNullExpression(e)) e = e.expression;
    else return e;
  }
}

/** `ctx.body`, `req.query`, `ctx.req.params`, or a bare `body` destructured from the context. */
function isRequestPart(e: ts.Expression): boolean {
  const x = unwrap(e);
  if (ts.isIdentifier(x)) return PARTS.has(x.text);
  if (ts.isPropertyAccessExpression(x)) return PARTS.has(x.name.text) && /^(ctx|req|request|c)$|\.req$/.test(x.expression.getText());
  return false;
}

function line(sf: ts.SourceFile, node: ts.Node): number {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

/** Casts of request parts in a route source. */
function requestPartCasts(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && isRequestPart(node.expression)) {
      if (node.type.kind !== ts.SyntaxKind.ConstKeyword) found.push(`${file}:${line(sf, node)}: ${node.getText(sf).slice(0, 100)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** API calls with an explicit answer type in a web or CLI source. */
function answerTypesAtCalls(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.typeArguments?.length) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      const isApi = ts.isIdentifier(callee)
        ? CALLS.has(name)
        : ts.isPropertyAccessExpression(callee) && METHODS.has(name) && !/^(Object|Reflect|Promise|JSON|Array)$/.test(callee.expression.getText(sf));
      if (isApi) found.push(`${file}:${line(sf, node)}: ${node.getText(sf).slice(0, 100)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') walk(p);
      } else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  walk(path.join(root, dir));
  return out;
}

test('the checker finds casts of request parts and answer types at call sites in a source made to have them', () => {
  const route = [
    'const a = ctx.body as RequestBody<"x">;',
    'const b = (ctx.body ?? {}) as { title?: string };',
    'const q = query as { limit: number };',
    'const p = ctx.params as { id: string };',
    'const r = req.body as unknown;',
    'const ok = ctx.body;',
    'const fine = cursor as { id: string };',
  ].join('\n');
  assert.equal(requestPartCasts('route.ts', route).length, 5);
  const calls = [
    'const a = await api<Execution>("GET", "/executions/x");',
    'const b = await client.get<Execution>("/api/v1/executions/x");',
    'const c = await app.client(cmd).list<Artifact>("/api/v1/a");',
    'const d = await api.request<Me>("GET", "/api/v1/auth/me");',
    'const e = await listAll<Namespace>("/namespaces");',
    'const ok = await api.get("/api/v1/executions/{executionId}", { params: { path: { executionId } } });',
    'const [s] = useState<string>("");',
    'const m = new Map<string, number>();',
  ].join('\n');
  assert.equal(answerTypesAtCalls('page.tsx', calls).length, 5);
});

test('route handlers take their request parts typed from the operation: no cast of ctx.body, ctx.query, ctx.params or req.body', () => {
  const found = sources('apps/api-gateway/src/routes').flatMap((f) => requestPartCasts(path.relative(root, f), fs.readFileSync(f, 'utf8')));
  assert.deepEqual(found, [], 'type the handler by its operation (a method of the map returned `satisfies OperationHandlers<P>`) instead of casting');
});

test('the web UI and the CLI call the API without naming the answer type: the typed client takes it from the path', () => {
  const files = [...sources('apps/web/src'), ...sources('apps/cli/src')];
  assert.ok(files.length > 50, 'the web and CLI sources were found');
  const found = files.flatMap((f) => answerTypesAtCalls(path.relative(root, f), fs.readFileSync(f, 'utf8')));
  assert.deepEqual(found, [], "call the typed client (@svc/api-spec/client): client.get('/api/v1/executions/{executionId}', { params: { path: { executionId } } })");
});
