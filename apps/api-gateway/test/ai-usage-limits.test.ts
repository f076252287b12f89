// Daily AI limits: assistant turns and triages (requested, and
// automatic) take a request, each model call adds its tokens, counted per
// user and UTC day in ai_usage. Past a user's or the deployment's limit: 429
// rate_limited naming the limit and when it resets, with Retry-After; a turn
// that passes the token limit stops before its next model call. Admins read
// the day's use on GET /api/v1/ai/usage (declared in the OpenAPI document).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { buildOpenApiDocument } from '@svc/api-spec';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';
import { aiClient } from './ai-helpers.js';
import { startOpenAIStandin, type Answer, type Standin, type StandinRequest } from '../../../e2e/test/openai-standin.js';

const API_KEY = 'sk-usage-' + crypto.randomBytes(10).toString('hex');
let gw: TestGateway;
let tight: TestGateway;
let llm: Standin;
let current: () => TestGateway = () => gw;

function decide(r: StandinRequest): Answer {
  const msgs = r.body.messages;
  if (msgs[0]?.content?.includes('You triage failed workflow executions')) return { text: '{"summary": "s", "probable_cause": "c", "suggested_fix": "f", "evidence": []}' };
  if (!r.body.tools) return { text: 'ok' };
  const u = [...msgs].reverse().find((m) => m.role === 'user')?.content ?? '';
  if (u.includes('use a tool') && msgs[msgs.length - 1]!.role !== 'tool') return { toolCalls: [{ name: 'get_flow_schema', arguments: {} }] };
  return { text: 'Hello' };
}

const { call, turn, newConversation } = aiClient(() => current());

async function setup(g: TestGateway) {
  current = () => g;
  await makeUser(g, 'root@example.com', 'admin');
  await makeUser(g, 'op1@example.com', 'operator');
  await makeUser(g, 'op2@example.com', 'operator');
  const tokens = {
    admin: await makeToken(g, await login(g, 'root@example.com'), 'admin'),
    op1: await makeToken(g, await login(g, 'op1@example.com'), 'operator'),
    op2: await makeToken(g, await login(g, 'op2@example.com'), 'operator'),
  };
  assert.equal((await call(tokens.admin, 'PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-1', base_url: llm.url, api_key: API_KEY })).status, 200);
  return tokens;
}

before(async () => {
  llm = await startOpenAIStandin(decide);
  const keys = `k1:${crypto.randomBytes(32).toString('base64')}`;
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: keys, SVC_AI_USER_REQUESTS_PER_DAY: '2', SVC_AI_TOTAL_REQUESTS_PER_DAY: '3' } });
  tight = await startTestGateway({ env: { SVC_MASTER_KEYS: keys, SVC_AI_USER_TOKENS_PER_DAY: '10' } });
});

after(async () => {
  await gw?.close();
  await tight?.close();
  await llm?.close();
});

function assertLimited(r: { status: number; headers: Record<string, unknown>; body: string; json(): { error: { code: string; message: string } } }, setting: string) {
  assert.equal(r.status, 429, r.body);
  assert.equal(r.json().error.code, 'rate_limited');
  assert.match(r.json().error.message, new RegExp(`${setting}\\).*resets at \\d{4}-\\d{2}-\\d{2}T00:00:00\\.000Z`));
  const retry = Number(r.headers['retry-after']);
  assert.ok(retry >= 1 && retry <= 86_400, `Retry-After ${String(r.headers['retry-after'])}`);
  assert.ok(!r.body.includes(API_KEY));
}

test('per-user and deployment request limits: 429 rate_limited with Retry-After; triage counts; admins see the use', async () => {
  current = () => gw;
  const t = await setup(gw);
  const c1 = await newConversation(t.op1);
  for (let i = 0; i < 2; i++) assert.equal((await turn(t.op1, c1, 'hi')).events.at(-1)!.data.stop_reason, 'end_turn');
  assertLimited(await call(t.op1, 'POST', `/api/v1/ai/conversations/${c1}/messages`, { content: 'hi' }), 'SVC_AI_USER_REQUESTS_PER_DAY');

  // A requested triage counts: op2's takes the deployment's third and last request.
  assert.equal((await call(t.admin, 'POST', '/api/v1/namespaces', { name: 'team' })).status, 201);
  await gw.db.pool.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes) VALUES ('snap-u', 'team', 'h', 0, 0)`);
  await gw.db.pool.query(
    `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, created_at, ended_at)
     VALUES ('ex-u', 'FAILED', 'team', 'f', 'snap-u', '{"id":"f","tasks":[]}', 'test', 'manual', now(), now())`,
  );
  assert.equal((await call(t.op2, 'POST', '/api/v1/executions/ex-u/insights')).status, 202);
  for (let i = 0; i < 100; i++) {
    const s = (await call(t.op2, 'GET', '/api/v1/executions/ex-u/insights')).json<{ items: { state: string }[] }>().items[0]?.state;
    if (s === 'done' || s === 'failed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const c2 = await newConversation(t.op2);
  assertLimited(await call(t.op2, 'POST', `/api/v1/ai/conversations/${c2}/messages`, { content: 'hi' }), 'SVC_AI_TOTAL_REQUESTS_PER_DAY');
  assertLimited(await call(t.op2, 'POST', '/api/v1/executions/ex-u/insights'), 'SVC_AI_TOTAL_REQUESTS_PER_DAY');

  assert.equal((await call(t.op1, 'GET', '/api/v1/ai/usage')).status, 403, 'admins only');
  const u = await call(t.admin, 'GET', '/api/v1/ai/usage');
  assert.equal(u.status, 200, u.body);
  const usage = u.json<{
    day: string;
    limits: Record<string, number>;
    total: { requests: number; tokens: number };
    users: { email: string | null; requests: number; tokens: number }[];
  }>();
  assert.equal(usage.day, new Date().toISOString().slice(0, 10));
  assert.deepEqual(usage.limits, { user_requests: 2, user_tokens: 1_000_000, total_requests: 3, total_tokens: 10_000_000 });
  assert.equal(usage.total.requests, 3);
  const op1 = usage.users.find((x) => x.email === 'op1@example.com');
  const op2 = usage.users.find((x) => x.email === 'op2@example.com');
  assert.deepEqual([op1?.requests, op1?.tokens], [2, 30], 'two turns of one model call, 15 tokens each');
  assert.deepEqual([op2?.requests, op2?.tokens], [1, 15], 'the triage');
  assert.equal(usage.total.tokens, 45);
  assert.ok(!u.body.includes(API_KEY));
  assert.equal((await call(t.admin, 'GET', '/api/v1/ai/usage?day=2020-01-01')).json<{ total: { requests: number } }>().total.requests, 0);
  assert.equal((await call(t.admin, 'GET', '/api/v1/ai/usage?day=yesterday')).status, 422);
  // Of the pattern's shape but no day of the calendar: 422 on day, not a 500 from the database.
  for (const day of ['2026-13-01', '2026-02-30', '2026-00-10', '9999-99-99']) {
    const r = await call(t.admin, 'GET', `/api/v1/ai/usage?day=${day}`);
    assert.equal(r.status, 422, day);
    assert.equal(r.json<{ error: { details: { field: string }[] } }>().error.details[0]!.field, 'day');
  }
  assert.equal((await call(t.admin, 'GET', '/api/v1/ai/usage?day=2024-02-29')).status, 200, 'a leap day');
  assert.ok(!JSON.stringify(gw.logs()).includes(API_KEY));
});

test('the token limit stops a turn before its next model call, and refuses the next turn', async () => {
  current = () => tight;
  const t = await setup(tight);
  const c = await newConversation(t.op1);
  const before = llm.requests.length;
  const r = await turn(t.op1, c, 'use a tool please');
  const err = r.events.find((e) => e.event === 'error');
  assert.equal(err?.data.code, 'rate_limited', r.raw);
  assert.match(err!.data.message, /SVC_AI_USER_TOKENS_PER_DAY/);
  assert.equal(r.events.at(-1)!.event, 'end');
  assert.equal(llm.requests.length - before, 1, 'no second model call');
  assertLimited(await call(t.op1, 'POST', `/api/v1/ai/conversations/${c}/messages`, { content: 'hi' }), 'SVC_AI_USER_TOKENS_PER_DAY');
  // Another user still may: the limit is per user.
  const c2 = await newConversation(t.op2);
  assert.equal((await turn(t.op2, c2, 'hi')).events.at(-1)!.data.stop_reason, 'end_turn');
});

test('GET /api/v1/ai/usage is in the OpenAPI document, admin only', () => {
  const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { 'x-min-role'?: string }>> };
  assert.equal(doc.paths['/api/v1/ai/usage']?.get?.['x-min-role'], 'admin');
});
