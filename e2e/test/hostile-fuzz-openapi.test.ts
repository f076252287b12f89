// Every operation of the OpenAPI document, fuzzed over real HTTP against a
// real gateway with fast-check: request bodies generated from the operation's
// own schema (valid, mutated, any JSON, malformed text, wrong media types and
// encodings), hostile path and query parameters, and a few fixed monsters per
// operation (a body past the limit, JSON nested 50,000 deep, invalid UTF-8,
// prototype-pollution keys). Each answer must be below 500, carry
// X-Request-Id, and be in the error envelope when it is an error; after each
// operation the gateway still answers /healthz and its process is alive.
//
// Reproduce a failure with the seed it reports:
//   SVC_FUZZ_SEED=<seed> SVC_FUZZ_ONLY=<operationId> npm test -- e2e/test/hostile-fuzz-openapi
// SVC_FUZZ_RUNS sets the generated requests per operation (default 20);
// SVC_FUZZ_SHRINK=1 shrinks a failure to a smaller request (slower).
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { buildOpenApiDocument } from '@svc/api-spec';
import { claimTaskRuns, loadRunTokenKey, signRunToken } from '@svc/engine/internal';
import { startStack, type Stack } from './stack.js';
import { answerOf, assertWellFormed } from './hostile/envelope.js';
import { hostileJson, hostileString, mutatedArbitrary, schemaArbitrary } from './hostile/schema-arbitrary.js';

const SEED = Number(process.env.SVC_FUZZ_SEED ?? 20_240_024);
const RUNS = Number(process.env.SVC_FUZZ_RUNS ?? 20);
const ONLY = process.env.SVC_FUZZ_ONLY;
/** A small body limit keeps the "past the limit" requests cheap; the check is the same at 10 MiB. */
const MAX_BODY = 64 * 1024;
const NS = 'fz';

type Json = Record<string, any>;
const doc = buildOpenApiDocument() as Json;

interface Op {
  id: string;
  method: string;
  path: string;
  params: { name: string; in: string; schema: Json; required: boolean }[];
  body?: { contentType: string; schema: Json };
  auth: string;
}

const ops: Op[] = [];
for (const [p, item] of Object.entries(doc.paths as Json)) {
  for (const [method, o] of Object.entries(item as Json)) {
    const content = o.requestBody?.content as Json | undefined;
    const contentType = content ? Object.keys(content)[0]! : undefined;
    ops.push({
      id: o.operationId,
      method: method.toUpperCase(),
      path: p,
      params: o.parameters ?? [],
      ...(contentType ? { body: { contentType, schema: content![contentType].schema } } : {}),
      auth: o['x-min-role'],
    });
  }
}
// Deletes last, so the fixtures stay for the operations that read them.
ops.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));

let s: Stack;
/** Real objects for path parameters, so part of the requests get past the lookups. */
const fixtures: Record<string, string> = {};
let runToken = '';
const counts = new Map<string, number>();

before(async () => {
  s = await startStack({ dispatchers: 0, maintenance: false, env: { SVC_MAX_BODY_BYTES: String(MAX_BODY) } });
  await s.saveFlow(NS, {
    'hello.flow.yaml': [
      'id: hello',
      'inputs: [{id: who, type: string, default: world}]',
      'triggers: [{id: hook, type: webhook, inputs: {who: "{{ trigger.body.who }}"}}]',
      'tasks:',
      '  - {id: say, type: command, command: [echo, "{{ inputs.who }}"], executor: {type: process, pool: nobody}}',
      '',
    ].join('\n'),
    'run.sh': 'echo hi\n',
  });
  const ex = await s.trigger(NS, 'hello');
  await s.waitFor(ex.id, (e) => e.task_runs[0]?.state === 'QUEUED');
  const [run] = await claimTaskRuns(s.db, { instanceId: 'fuzz', pools: ['nobody'], executorType: 'process', limit: 1, now: new Date() });
  assert.ok(run, 'a task run to point runner operations at');
  runToken = signRunToken(await loadRunTokenKey(s.db), run.id, new Date(Date.now() + 3600_000));
  const flowView = (await s.api('GET', `/api/v1/flows/${NS}/hello`)).body;
  const user = await s.api('POST', '/api/v1/users', { email: 'fuzz-target@example.com', role: 'viewer', name: 'Target' });
  const token = await s.api('POST', '/api/v1/tokens', { name: 'fuzz-target', role: 'viewer' });
  const revision = (await s.api('GET', `/api/v1/flows/${NS}/hello/revisions`)).body.items?.[0]?.id;
  Object.assign(fixtures, {
    namespace: NS,
    flowId: 'hello',
    executionId: ex.id,
    taskRunId: run.id,
    triggerId: 'hook',
    webhookKey: flowView.triggers.find((t: any) => t.id === 'hook').webhook_key,
    userId: user.body?.id ?? 'nouser',
    tokenId: token.body?.id ?? 'notoken',
    revisionId: revision ?? '1',
    key: 'FUZZ_KEY',
    name: 'vault-fz',
    sourceId: '01J0000000000000000000000',
    artifactId: '01J0000000000000000000000',
    conversationId: '01J0000000000000000000000',
    actionId: '01J0000000000000000000000',
  });
});

after(async () => {
  // The figures for e2e/RELIABILITY.md.
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  console.log(`fuzzed ${counts.size} operations with ${total} requests (seed ${SEED}, ${RUNS} generated runs each): ${JSON.stringify(Object.fromEntries(counts))}`);
  await s?.stop();
});

interface Req {
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

async function send(op: Op, req: Req): Promise<void> {
  counts.set(op.id, (counts.get(op.id) ?? 0) + 1);
  const what = `${op.id} ${op.method} ${req.path}${req.query}`;
  let r: Response | undefined;
  for (let attempt = 1; !r; attempt++) {
    try {
      r = await fetch(`${s.url}${req.path}${req.query}`, { method: op.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(60_000) });
    } catch (err) {
      const cause = (err as Error & { cause?: Error & { code?: string } }).cause;
      // A kept-alive socket the gateway closed as it was reused (its idle timeout, on a loaded machine): once more on a new one.
      if (attempt === 1 && s.procs[0]!.child.exitCode === null && ['UND_ERR_SOCKET', 'ECONNRESET'].includes(cause?.code ?? '')) continue;
      throw new Error(`${what}: no answer (${(err as Error).message}: ${cause?.code ?? ''} ${cause?.message ?? ''}); gateway alive: ${s.procs[0]!.child.exitCode === null}`);
    }
  }
  assertWellFormed(await answerOf(r), what);
}

/** The credential of `op`'s kind, or (sometimes) a wrong one. */
function credential(op: Op, variant: number): Record<string, string> {
  if (variant === 1) return {};
  if (variant === 2) return { authorization: 'Bearer svc_notarealtokennotarealtokennotarealtoken000' };
  if (variant === 3) return { cookie: 'svc_session=forged; svc_session=again', origin: s.url };
  if (op.auth === 'run_token') return { authorization: `Bearer ${runToken}` };
  return { authorization: `Bearer ${s.token}` };
}

function fixtureFor(op: Op, name: string): string {
  if (name === 'key' && op.path.startsWith('/hooks/')) return fixtures.webhookKey!;
  return fixtures[name] ?? 'x';
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  '',
];

/** Percent-encodes a path segment; a lone surrogate becomes U+FFFD first, as a browser would send it. */
const enc = (v: string) => encodeURIComponent(v.toWellFormed());

/** Path parameters: mostly the fixture, else a hostile string, sent encoded or raw. */
const paramValue = (op: Op, name: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(enc(fixtureFor(op, name))) },
    { weight: 2, arbitrary: hostileString().map(enc) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%00', '..', '%2e%2e', '.%2e/.%2e', '%c0%ae%c0%ae', '%ff%fe', 'a%2fb', '%E2%80%AE') },
  );

/** Query parameters: declared ones with generated, hostile or repeated values, plus unknown ones. */
function queryArb(op: Op): fc.Arbitrary<string> {
  const declared = op.params.filter((p) => p.in === 'query');
  const one = (p: (typeof declared)[number]) =>
    fc.oneof(
      schemaArbitrary(p.schema, doc).map((v) => [[p.name, typeof v === 'string' ? v : JSON.stringify(v)]]),
      hostileString().map((v) => [[p.name, v]]),
      fc.constantFrom('-1', '0', '201', '5001', '1e9', '99999999999999999999', 'abc', '').map((v) => [[p.name, v]]),
      fc.tuple(hostileString(), hostileString()).map(([a, b]) => [
        [p.name, a],
        [p.name, b],
      ]),
    );
  return fc
    .tuple(
      fc.subarray(declared).chain((ps) => (ps.length ? fc.tuple(...ps.map(one)) : fc.constant([] as string[][][]))),
      fc.array(fc.tuple(hostileString(), hostileString()), { maxLength: 2 }),
    )
    .map(([pairs, extra]) => {
      const q = new URLSearchParams();
      for (const group of pairs) for (const [k, v] of group) q.append(k!, v!);
      for (const [k, v] of extra) q.append(k || 'x', v);
      const out = q.toString();
      return out ? `?${out}` : '';
    });
}

/** A body and its headers: schema-valid, mutated, any JSON, or malformed; usually as JSON, sometimes not. */
function bodyArb(op: Op): fc.Arbitrary<{ body?: string; headers: Record<string, string> }> {
  const schema = op.body?.contentType === 'application/json' ? op.body.schema : undefined;
  const text = fc.oneof(
    { weight: schema ? 4 : 0, arbitrary: schemaArbitrary(schema, doc).map((v) => JSON.stringify(v)) },
    { weight: schema ? 3 : 0, arbitrary: mutatedArbitrary(schema, doc).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: hostileJson().map((v) => JSON.stringify(v) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.constantFrom('{', '{"a":', '[1,2', '{"a":1}}', 'nul', '\ufeff{}', '{"a":1,}', "{'a':1}", '{"__proto__":{"admin":true}}'),
      ),
    },
  );
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant(op.body?.contentType === '*/*' ? 'application/json' : (op.body?.contentType ?? 'application/json')) },
    { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  );
  return fc.oneof(
    {
      weight: op.body ? 8 : 1,
      arbitrary: fc.tuple(text, contentType).map(([body, ct]): { body?: string; headers: Record<string, string> } => ({ body, headers: ct ? { 'content-type': ct } : {} })),
    },
    { weight: op.body ? 1 : 3, arbitrary: fc.constant<{ body?: string; headers: Record<string, string> }>({ headers: {} }) },
  );
}

function requestArb(op: Op): fc.Arbitrary<Req & { variant: number }> {
  const names = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  return fc
    .record({
      params: fc.tuple(...names.map((n) => paramValue(op, n))),
      query: queryArb(op),
      body: op.method === 'GET' ? fc.constant<{ body?: string; headers: Record<string, string> }>({ headers: {} }) : bodyArb(op),
      // 0 and 4..9: the right credential; 1: none; 2: an unknown token; 3: a forged cookie.
      variant: fc.nat({ max: 9 }),
    })
    .map(({ params, query, body, variant }) => {
      let path = op.path;
      names.forEach((n, i) => (path = path.replace(`{${n}}`, (params as string[])[i]! || 'x')));
      return { path, query, headers: { ...credential(op, variant), ...body.headers }, ...(body.body !== undefined ? { body: body.body } : {}), variant };
    });
}

async function gatewayStillServes(what: string): Promise<void> {
  const gw = s.procs[0]!.child;
  assert.equal(gw.exitCode, null, `the gateway exited after ${what}`);
  assert.equal(gw.signalCode, null, `the gateway was killed after ${what}`);
  const r = await fetch(`${s.url}/healthz`, { signal: AbortSignal.timeout(30_000) });
  assert.equal(r.status, 200, `/healthz after ${what}`);
}

function withNul(v: unknown): unknown {
  if (typeof v === 'string') return `${v}\u0000x`;
  if (Array.isArray(v)) return v.map(withNul);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withNul(x)]));
  return v;
}

/** The fixed monsters every operation gets, whatever fast-check draws. */
function fixedRequests(op: Op): Req[] {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(fixtureFor(op, n)));
  const auth = credential(op, 0);
  const json = { ...auth, 'content-type': 'application/json' };
  const deep = '['.repeat(50_000) + ']'.repeat(50_000);
  const deepObject = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
  return [
    { path, query: '', headers: json, body: JSON.stringify({ pad: 'x'.repeat(MAX_BODY + 10) }) },
    { path, query: '', headers: json, body: deep },
    { path, query: '', headers: json, body: deepObject },
    { path, query: '', headers: json, body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0x22, 0x7d]) },
    { path, query: '', headers: { ...json, 'content-encoding': 'gzip' }, body: '{"not":"gzip"}' },
    { path, query: '', headers: { ...json, 'content-encoding': 'x-unknown' }, body: '{}' },
    { path, query: '', headers: json, body: '{"__proto__":{"role":"admin","polluted":true},"constructor":{"prototype":{"polluted":true}}}' },
    // Every string of a schema-shaped body holding a NUL (PostgreSQL text cannot).
    ...(op.body?.contentType === 'application/json'
      ? [{ path, query: '', headers: json, body: JSON.stringify(withNul(fc.sample(schemaArbitrary(op.body.schema, doc), { seed: SEED, numRuns: 1 })[0])) }]
      : []),
    { path, query: `?${'a'.repeat(7000)}=1&limit=${'9'.repeat(400)}&cursor=${'%'.repeat(50)}`, headers: auth },
  ];
}

/**
 * A JSON body streamed without a Content-Length (chunked), four times the
 * limit: the gateway must count what arrives and refuse it (413), not buffer it.
 */
function chunkedHugeBody(op: Op): Promise<void> {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(fixtureFor(op, n)));
  counts.set(op.id, (counts.get(op.id) ?? 0) + 1);
  return new Promise((resolve, reject) => {
    const req = http.request(`${s.url}${path}`, { method: op.method, headers: { ...credential(op, 0), 'content-type': 'application/json' } });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`${op.id}: a chunked body of ${4 * MAX_BODY} bytes got no answer within 60 s`));
    }, 60_000);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        clearTimeout(timer);
        try {
          const headers = new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)] as [string, string]));
          assertWellFormed({ status: res.statusCode!, headers, text }, `${op.id} chunked huge body`);
          if (op.auth !== 'public' || op.id === 'login')
            assert.ok([401, 403, 404, 413, 415, 422, 429].includes(res.statusCode!), `${op.id} chunked huge body: ${res.statusCode} ${text}`);
          resolve();
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', () => undefined); // a server may close once it answered
    // '[' then spaces: JSON that never ends, in two writes so it goes out chunked.
    req.write('[');
    req.end(Buffer.alloc(4 * MAX_BODY, 0x20));
  });
}

for (const op of ops) {
  if (ONLY && op.id !== ONLY) continue;
  test(`fuzz ${op.id} (${op.method} ${op.path}): no 5xx, errors in the envelope, the gateway keeps serving`, async () => {
    const seed = SEED + ops.indexOf(op);
    await fc.assert(
      fc.asyncProperty(requestArb(op), async (req) => {
        await send(op, req);
      }),
      { seed, numRuns: RUNS, endOnFailure: !process.env.SVC_FUZZ_SHRINK, verbose: 1 },
    );
    for (const req of fixedRequests(op)) {
      if (op.method === 'GET' && req.body !== undefined) continue; // fetch sends no body with GET
      await send(op, req);
    }
    if (op.body?.contentType === 'application/json') await chunkedHugeBody(op);
    await gatewayStillServes(op.id);
  });
}

test('after the whole fuzz run the gateway answers and reported no unexpected error', async () => {
  await gatewayStillServes('the whole run');
  // The error middleware logs every 500 as "request failed": none may appear.
  assert.doesNotMatch(s.procs[0]!.output(), /"request failed"/, s.procs[0]!.output().slice(-3000));
  // Prototype pollution through a body changed nothing the next request sees.
  assert.equal((await s.api('GET', '/api/v1/auth/me')).body.polluted, undefined);
});
