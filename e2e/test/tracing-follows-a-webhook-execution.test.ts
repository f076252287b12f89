// Opt-in tracing (docs/operating/tracing.md) with real processes: a stack
// started with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver
// this test runs on loopback (OTEL_EXPORTER_OTLP_PROTOCOL=http/json, so the
// spans are JSON it can read). A webhook starts an execution whose command
// task prints $TRACEPARENT: the receiver gets spans of svc-api-gateway (the
// webhook request), of svc-dispatcher (`dispatch task`, continuing the
// traceparent stored on the execution) and the planner's `plan execution`,
// all in one trace, and the task printed a traceparent of that trace. A batch's
// executions continue the batch request's trace, and a flow trigger's execution
// the trace of the execution that fired it. A stack without the variable sends no span,
// stores no traceparent, and its task sees no TRACEPARENT.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { flow, sh, until } from './engine-support.js';
import { startStack, type Stack } from './stack.js';

interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

const received: ReceivedSpan[] = [];
const posts: string[] = [];
/** Every body the receiver got, as sent. */
const bodies: string[] = [];
let receiver: http.Server;
let endpoint = '';
let on: Stack | undefined;
let off: Stack | undefined;
const NS = 'traced';

type AnyValue = { stringValue?: string };
type OtlpJson = {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: AnyValue }[] };
    scopeSpans?: { spans?: { name: string; traceId: string; spanId: string; parentSpanId?: string }[] }[];
  }[];
};

before(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      posts.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      bodies.push(body);
      if (req.url === '/v1/traces') {
        const doc = JSON.parse(body) as OtlpJson;
        for (const rs of doc.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? [])
            for (const sp of ss.spans ?? []) received.push({ service, name: sp.name, traceId: sp.traceId, spanId: sp.spanId, parentSpanId: sp.parentSpanId || undefined });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

after(async () => {
  await on?.stop();
  await off?.stop();
  receiver.close();
});

const traced = flow({
  id: 'traced',
  triggers: [{ id: 'incoming', type: 'webhook' }],
  tasks: [{ id: 'show', type: 'command', command: sh('echo "traceparent=${TRACEPARENT:-none}"') }],
});

async function webhookRun(s: Stack): Promise<{ id: string; printed: string; key: string }> {
  await s.saveFlow(NS, { 'traced.flow.yaml': traced });
  const key = ((await s.api('GET', `/api/v1/flows/${NS}/traced`)).body.triggers as { id: string; webhook_key: string }[]).find((t) => t.id === 'incoming')!.webhook_key;
  const r = await fetch(`${s.url}/hooks/${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(r.status, 201);
  const { execution_id: id } = (await r.json()) as { execution_id: string };
  const done = await s.waitEnded(id, 60_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  const lines = (await s.db.query(`SELECT text FROM log_lines WHERE execution_id = $1 AND stream = 'stdout' ORDER BY n`, [id])).rows.map((x: { text: string }) => x.text);
  const printed = lines.find((l) => l.startsWith('traceparent='));
  assert.ok(printed, JSON.stringify(lines));
  return { id, printed: printed.slice('traceparent='.length), key };
}

test('with OTEL_EXPORTER_OTLP_ENDPOINT, one trace runs from the webhook through the dispatcher to the task', { timeout: 180_000 }, async () => {
  on = await startStack({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200', SVC_LOG_LEVEL: 'info' } });
  const { id, printed, key } = await webhookRun(on);
  // A request about the execution is logged with its id (mountOperations takes it from the path).
  await on.api('GET', `/api/v1/executions/${id}`);
  const gatewayLines = () =>
    on!.procs[0]!.output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const requestLine = await until(
    'the request line of getExecution',
    () => gatewayLines().find((l) => l.message === 'http request' && l.route === '/api/v1/executions/{executionId}'),
    10_000,
  );
  assert.equal(requestLine.execution_id, id);
  const stored = (await on.db.query(`SELECT traceparent FROM executions WHERE id = $1`, [id])).rows[0] as { traceparent: string | null };
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(stored.traceparent ?? '');
  assert.ok(m, `stored traceparent ${stored.traceparent}`);
  const traceId = m[1]!;
  assert.match(printed, new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`), 'the task continues the same trace');
  const spans = await until(
    'spans of the gateway and the dispatcher in the trace',
    () => {
      const mine = received.filter((sp) => sp.traceId === traceId);
      return mine.some((sp) => sp.service === 'svc-api-gateway') && mine.some((sp) => sp.service === 'svc-dispatcher' && sp.name === 'dispatch task') ? mine : undefined;
    },
    60_000,
  );
  const gateway = spans.filter((sp) => sp.service === 'svc-api-gateway');
  // The webhook request's server span is the trace's root, and the stored context is one of the gateway's spans.
  assert.ok(
    gateway.some((sp) => !sp.parentSpanId),
    JSON.stringify(gateway),
  );
  assert.ok(
    gateway.some((sp) => sp.spanId === m[2]),
    'the stored traceparent names a gateway span',
  );
  const dispatch = spans.find((sp) => sp.service === 'svc-dispatcher' && sp.name === 'dispatch task')!;
  assert.equal(dispatch.parentSpanId, m[2], 'dispatch task is a child of the stored context');
  assert.equal(printed.split('-')[2], dispatch.spanId, "the task's TRACEPARENT is the dispatch span's");
  // The planning of the execution (its end, once the task reported) continues the trace too, wherever it ran.
  await until('a plan execution span in the trace', () => received.some((sp) => sp.traceId === traceId && sp.name === 'plan execution' && sp.parentSpanId === m[2]), 30_000);
  // The webhook key is a credential: no span carries it (the path reads /hooks/{key}), nor the admin's API token.
  const sent = bodies.join('\n');
  assert.ok(sent.includes('/hooks/{key}'), 'the webhook request span is there, its path redacted');
  assert.equal(sent.includes(key), false, 'the webhook key reached the tracing backend');
  assert.equal(sent.includes(on.token), false, 'an API token reached the tracing backend');
  // Probes are not traced.
  assert.equal(received.filter((sp) => /healthz|readyz|metrics/.test(sp.name)).length, 0);
  // A batch trigger's executions continue the trace of the request that created them, each its own dispatch.
  const batch = await on.api('POST', `/api/v1/flows/${NS}/traced/executions/batch`, { items: [{}, {}] });
  assert.equal(batch.status, 201, JSON.stringify(batch.body));
  const ids = (batch.body.executions as { id: string }[]).map((e) => e.id);
  const rows = (await on.db.query(`SELECT traceparent FROM executions WHERE id = ANY($1)`, [ids])).rows as { traceparent: string | null }[];
  const batchTraces = new Set(rows.map((r) => /^00-([0-9a-f]{32})-/.exec(r.traceparent ?? '')?.[1]));
  assert.equal(batchTraces.size, 1, JSON.stringify(rows));
  const batchTrace = [...batchTraces][0];
  assert.ok(batchTrace && batchTrace !== traceId, 'the batch request began a trace of its own');
  for (const x of ids) assert.equal((await on.waitEnded(x, 60_000)).state, 'SUCCESS');
  await until('two dispatch task spans in the batch trace', () => received.filter((sp) => sp.traceId === batchTrace && sp.name === 'dispatch task').length >= 2, 30_000);
  // A flow trigger's execution continues the trace of the execution whose end fired it.
  await on.saveFlow(NS, {
    'follower.flow.yaml': flow({
      id: 'follower',
      triggers: [{ id: 'after_traced', type: 'flow', flow: `${NS}/traced`, states: ['SUCCESS'] }],
      tasks: [{ id: 'f', type: 'command', command: sh('true') }],
    }),
  });
  const upstream = await on.trigger(NS, 'traced');
  assert.equal((await on.waitEnded(upstream.id, 60_000)).state, 'SUCCESS');
  const upContext = /^00-([0-9a-f]{32})-([0-9a-f]{16})-/.exec(
    ((await on.db.query(`SELECT traceparent FROM executions WHERE id = $1`, [upstream.id])).rows[0] as { traceparent: string | null }).traceparent ?? '',
  );
  assert.ok(upContext, 'the upstream stored its request span');
  const follower = (await until(
    "the follower's execution",
    async () => (await on!.db.query(`SELECT id, traceparent FROM executions WHERE flow_id = 'follower' AND trigger_type = 'flow'`)).rows[0],
    30_000,
  )) as { id: string; traceparent: string | null };
  assert.equal(/^00-([0-9a-f]{32})-/.exec(follower.traceparent ?? '')?.[1], upContext[1], "the follower's execution stores the upstream's trace");
  assert.equal((await on.waitEnded(follower.id, 60_000)).state, 'SUCCESS');
  const fire = await until('a fire flow trigger span', () => received.find((sp) => sp.traceId === upContext[1] && sp.name === 'fire flow trigger'), 30_000);
  assert.equal(fire.parentSpanId, upContext[2], "the firing is a child of the upstream's stored context");
  assert.equal(follower.traceparent?.split('-')[2], fire.spanId, 'the follower stores the firing span');
  await until(
    "the follower's dispatch task span in the same trace",
    () => received.some((sp) => sp.traceId === upContext[1] && sp.name === 'dispatch task' && sp.parentSpanId === fire.spanId),
    30_000,
  );
});

test('without the variable no span is sent, no traceparent is stored and the task sees no TRACEPARENT', { timeout: 180_000 }, async () => {
  await on?.stop();
  on = undefined;
  const before = posts.length;
  off = await startStack({});
  const { id, printed } = await webhookRun(off);
  assert.equal(printed, 'none');
  assert.equal((await off.db.query(`SELECT traceparent FROM executions WHERE id = $1`, [id])).rows[0].traceparent, null);
  assert.deepEqual(posts.slice(before), []);
});
