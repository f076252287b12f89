// The operation id is the type key of the API, end to end: a route handler's
// request parts come typed from its operation (@svc/http HandlerContext<P, Op>,
// from the types generated from the OpenAPI document), and a call of the web
// UI or the CLI gets its answer's type from the path it calls (the typed
// client of @svc/api-spec). This test parses the sources with the TypeScript
// compiler API and fails on
//   - a cast of a request part in a route file of the gateway:
//     `ctx.body as X`, `(ctx.query ?? {}) as X`, `ctx.params as X`,
//     `ctx.cursor as X`, `ctx.principal as X`, `req.body as X`, the
//     destructured `body`/`query`/`params`/`cursor`/`principal` cast the same
//     way, or a variable taken from one of them (`const c = ctx.cursor`,
//     `const { lines } = body`, a field of either) cast later: the cursor is
//     typed by the operation's entry in OPERATION_CURSORS, and the principal
//     is present for every operation that needs a credential;
//   - an explicit answer type at an API call site of the web UI or the CLI:
//     `api<X>(...)`, `request<X>(...)`, `listAll<X>(...)`,
//     `client.get<X>(...)`, `.post<X>`, `.list<X>`, `.all<X>`... (the old
//     call forms, and any new one that names its answer instead of taking it
//     from the document).
//   - a stream read beside the client in the web UI: an EventSource, a
//     response body read by hand (`.getReader()`, `.pipeThrough(...)`, a
//     TextDecoderStream, `for await` over `.body`), or a `fetch(...)` outside
//     the web client's adapter (apps/web/src/api.ts): the live pages and the
//     assistant read their streams with the client's `stream` and
//     `streamPost`, which reconnect, resume and read bodies the same way
//     everywhere.
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
const PARTS = new Set(['body', 'query', 'params', 'cursor', 'principal']);
/** Functions and methods that call the API: with a type argument, the call names its own answer type. */
const CALLS = new Set(['api', 'request', 'listAll', 'prefetch']);
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'request', 'list', 'all', 'pages', 'stream', 'ndjson', 'raw', 'json']);

/** `(x ?? {})`, `(x)`, `x!`, `await x` → x. */
function unwrap(e: ts.Expression): ts.Expression {
  for (;;) {
    if (ts.isParenthesizedExpression(e)) e = e.expression;
    else if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) e = e.left;
    else if (ts.isNonNullExpression(e)) e = e.expression;
    else if (ts.isAwaitExpression(e)) e = e.expression;
    else return e;
  }
}

/**
 * The request parts of one route source, and the variables taken from them:
 * a parameter or variable bound from a part (`{ cursor }`, `{ body: payload }`,
 * `const b = ctx.body`, `const { limit } = ctx.query`, `const after = cursor?.name`).
 * Symbols, not names, so a `c` of one handler is not another's.
 */
class Parts {
  private readonly taken = new Set<ts.Symbol>();
  constructor(private readonly checker: ts.TypeChecker) {}

  /** `ctx.body`, `req.query`, `ctx.req.params`, a bare part destructured from the context, a variable taken from one, or a field of any of them. */
  is(e: ts.Expression): boolean {
    let x = unwrap(e);
    for (;;) {
      if (ts.isIdentifier(x)) {
        const symbol = this.checker.getSymbolAtLocation(x);
        return (symbol !== undefined && this.taken.has(symbol)) || (symbol === undefined && PARTS.has(x.text)) || this.isBoundPart(x, symbol);
      }
      if (ts.isPropertyAccessExpression(x) && PARTS.has(x.name.text) && /^(ctx|req|request|c)$|\.req$/.test(x.expression.getText())) return true;
      if (ts.isPropertyAccessExpression(x) || ts.isElementAccessExpression(x)) x = unwrap(x.expression);
      else return false;
    }
  }

  /**
   * A part destructured under its own name (`{ body }`, `{ cursor }`) from a
   * handler's context, or a helper's parameter named after one (`keyOf(cursor)`).
   */
  private isBoundPart(x: ts.Identifier, symbol: ts.Symbol | undefined): boolean {
    const decl = symbol?.valueDeclaration;
    if (decl === undefined || !PARTS.has(x.text)) return false;
    if (ts.isParameter(decl)) return true;
    return ts.isBindingElement(decl) && PARTS.has((decl.propertyName ?? decl.name).getText()) && ts.isParameter(decl.parent.parent);
  }

  /** Records the names a declaration binds from a part. */
  bind(name: ts.BindingName, from: ts.Expression | undefined, isParameter: boolean): void {
    if (ts.isIdentifier(name)) {
      if (from !== undefined && this.is(from)) this.add(name);
      return;
    }
    for (const el of name.elements) {
      if (ts.isOmittedExpression(el)) continue;
      const key = el.propertyName?.getText() ?? (ts.isIdentifier(el.name) ? el.name.text : '');
      // `{ body: payload }` of a handler's context, or anything destructured from a part.
      const fromPart = (from !== undefined && this.is(from)) || (isParameter && ts.isObjectBindingPattern(name) && PARTS.has(key));
      if (fromPart) this.addAll(el.name);
    }
  }

  private addAll(name: ts.BindingName): void {
    if (ts.isIdentifier(name)) this.add(name);
    else for (const el of name.elements) if (!ts.isOmittedExpression(el)) this.addAll(el.name);
  }

  private add(id: ts.Identifier): void {
    const symbol = this.checker.getSymbolAtLocation(id);
    if (symbol) this.taken.add(symbol);
  }
}

function line(sf: ts.SourceFile, node: ts.Node): number {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

/** One source parsed and bound alone (no imports, no lib): enough to tell which declaration a name refers to. */
function bound(file: string, text: string): { sf: ts.SourceFile; checker: ts.TypeChecker } {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const host: ts.CompilerHost = {
    getSourceFile: (name) => (name === file ? sf : undefined),
    getDefaultLibFileName: () => 'lib.d.ts',
    writeFile: () => undefined,
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (name) => name === file,
    readFile: () => undefined,
  };
  const program = ts.createProgram([file], { noLib: true, noResolve: true, types: [] }, host);
  return { sf: program.getSourceFile(file) ?? sf, checker: program.getTypeChecker() };
}

/** Casts of request parts, and of what was taken from them, in a route source. */
function requestPartCasts(file: string, text: string): string[] {
  const { sf, checker } = bound(file, text);
  const parts = new Parts(checker);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    // Declarations are met before their uses: a source is read in order.
    if (ts.isVariableDeclaration(node)) parts.bind(node.name, node.initializer, false);
    if (ts.isParameter(node)) parts.bind(node.name, undefined, true);
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && parts.is(node.expression)) {
      if (!(ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(sf) === 'const')) found.push(`${file}:${line(sf, node)}: ${node.getText(sf).slice(0, 100)}`);
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

/** The web client's adapter: the one web source that may call fetch itself (the client's fetch, and the prefetch it takes over). */
const WEB_ADAPTER = 'apps/web/src/api.ts';
/** Globals through which `fetch` is reached. */
const GLOBALS = /^(window|globalThis|self)$/;

/** Streams read, and requests sent, beside the typed client in a web UI source. */
function streamsBesideClient(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const add = (node: ts.Node) => found.push(`${file}:${line(sf, node)}: ${node.getText(sf).slice(0, 100)}`);
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && (node.text === 'EventSource' || node.text === 'TextDecoderStream')) add(node.parent);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isPropertyAccessExpression(callee) && (callee.name.text === 'getReader' || callee.name.text === 'pipeThrough')) add(node);
      const isFetch =
        (ts.isIdentifier(callee) && callee.text === 'fetch') ||
        (ts.isPropertyAccessExpression(callee) && callee.name.text === 'fetch' && GLOBALS.test(callee.expression.getText(sf)));
      if (isFetch && file !== WEB_ADAPTER) add(node);
    } else if (ts.isForOfStatement(node) && node.awaitModifier && ts.isPropertyAccessExpression(unwrap(node.expression))) {
      if ((unwrap(node.expression) as ts.PropertyAccessExpression).name.text === 'body') add(node.expression);
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
    'const p = ctx.params as { id: string };',
    'const r = req.body as unknown;',
    'const c = ctx.cursor as { id: string } | undefined;',
    'const who = ctx.principal! as { userId: string };',
    'const id = ctx.principal!.userId as string;',
    'const ok = ctx.body;',
    'const kind = ["a", "b"] as const;',
    'const handlers = {',
    '  list({ query, cursor, principal }) {',
    '    const q = query as { limit: number };',
    '    const after = (cursor as { id: string } | undefined)?.id;',
    '    const p = principal as { role: string };',
    '    return [q, after, p];',
    '  },',
    '  post({ body: payload }) {',
    '    const { lines } = payload;',
    '    const first = lines[0] as string;',
    '    const all = lines as string[];',
    '    return [first, all];',
    '  },',
    '  get(ctx) {',
    '    const c = ctx.cursor;',
    '    const key = c?.id;',
    '    return [c as { id: string }, key as string];',
    '  },',
    '  other() {',
    '    const keyOf = (cursor) => cursor as { id: string };',
    '    const c = { id: 1 };',
    '    const lines = [1];',
    '    return [c as unknown, lines as number[], "x" as const];',
    '  },',
    '};',
  ].join('\n');
  const found = requestPartCasts('route.ts', route);
  assert.deepEqual(
    found.map((f) => Number(f.split(':')[1])),
    [1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 19, 20, 26, 26, 29],
    found.join('\n'),
  );
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
  const streams = [
    'const es = new EventSource("/api/v1/executions/x/events", { withCredentials: true });',
    'const res = await fetch("/api/v1/ai/conversations/c/messages", { method: "POST" });',
    'const r = await window.fetch(url);',
    'const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();',
    'for await (const chunk of res.body!) parse(chunk);',
    'await client.stream("/api/v1/executions/{executionId}/events", { params: { path: { executionId } } }, { onEvent });',
    'await client.streamPost("/api/v1/ai/conversations/{conversationId}/messages", init, { onEvent });',
    'for await (const page of client.pages("/api/v1/flows")) show(page);',
  ].join('\n');
  // EventSource; fetch; window.fetch; pipeThrough, TextDecoderStream and getReader; for await over a body.
  assert.equal(streamsBesideClient('apps/web/src/page.tsx', streams).length, 7);
  assert.equal(streamsBesideClient(WEB_ADAPTER, 'const r = await fetch(request);').length, 0, "the adapter's own fetch");
});

test('route handlers take their request parts typed from the operation: no cast of ctx.body, ctx.query, ctx.params, ctx.cursor, ctx.principal or req.body', () => {
  const found = sources('apps/api-gateway/src/routes').flatMap((f) => requestPartCasts(path.relative(root, f), fs.readFileSync(f, 'utf8')));
  assert.deepEqual(
    found,
    [],
    'type the handler by its operation (a method of the map returned `satisfies OperationHandlers<P>`) instead of casting; a cursor is typed by its entry in OPERATION_CURSORS (@svc/api-spec)',
  );
});

test('the web UI and the CLI call the API without naming the answer type: the typed client takes it from the path', () => {
  const files = [...sources('apps/web/src'), ...sources('apps/cli/src')];
  assert.ok(files.length > 50, 'the web and CLI sources were found');
  const found = files.flatMap((f) => answerTypesAtCalls(path.relative(root, f), fs.readFileSync(f, 'utf8')));
  assert.deepEqual(found, [], "call the typed client (@svc/api-spec/client): client.get('/api/v1/executions/{executionId}', { params: { path: { executionId } } })");
});

test('the web UI reads its event streams and sends its requests through the typed client: no EventSource, no body read by hand, no fetch beside the adapter', () => {
  const found = sources('apps/web/src')
    .filter((f) => !/\.test\.tsx?$/.test(f))
    .flatMap((f) => streamsBesideClient(path.relative(root, f), fs.readFileSync(f, 'utf8')));
  assert.deepEqual(found, [], "read a stream with client.stream('/api/v1/executions/{executionId}/events', ...) or client.streamPost(...) of apps/web/src/api.ts");
});
