// The AI and MCP surfaces hold the same lines as /api/v1:
// - a user whose password was reset (temporary password) is refused on /mcp
//   with 403 password_change_required, as on every /api/v1 operation;
// - answers are masked with the secrets the answer's own scopes resolve (the
//   execution's namespace, its parents, globals, and what the run used), not
//   with every stored secret: a guess of another namespace's secret put in a
//   run's inputs comes back as it was given, so masking is no oracle;
// - /mcp applies the JSON depth limit of /api/v1 (422 on field `body`);
// - every MCP tool carries readOnlyHint / destructiveHint / idempotentHint;
// - testAIProvider does not send the stored key to another base URL (422
//   `api_key`), and an ollama / OpenAI-compatible provider needs a base URL
//   (422 `base_url`).
// No secret value that the caller did not put in itself reaches a response,
// a stored row or the gateway's log.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw } from './identity-helpers.js';
import { aiClient } from './ai-helpers.js';
import { startOpenAIStandin, type Answer, type Standin, type StandinRequest } from '../../../e2e/test/openai-standin.js';

const A_USED = 'alpha-used-' + crypto.randomBytes(10).toString('hex');
const A_OTHER = 'alpha-other-' + crypto.randomBytes(10).toString('hex');
const GLOBAL = 'global-' + crypto.randomBytes(10).toString('hex');
const B_SECRET = 'bravo-' + crypto.randomBytes(10).toString('hex');
const API_KEY = 'sk-stored-' + crypto.randomBytes(10).toString('hex');

let gw: TestGateway;
let llm: Standin;
let other: Standin;
let admin: string, operator: string, pwUser: string, pwUserId: string;

function decide(r: StandinRequest): Answer {
  const msgs = r.body.messages;
  if (msgs[0]?.content?.includes('You triage failed workflow executions'))
    return { text: '{"summary": "it failed", "probable_cause": "x", "suggested_fix": "y", "evidence": ["E1"]}' };
  if (!r.body.tools) return { text: 'ok' };
  if (msgs[msgs.length - 1]!.role === 'tool') return { text: 'Read.' };
  return {
    toolCalls: [
      { name: 'get_execution', arguments: { execution_id: 'ex-alpha' } },
      { name: 'list_executions', arguments: {} },
    ],
  };
}

const { call, turn, newConversation } = aiClient(() => gw);

async function mcp(token: string) {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** Secret values that no answer here may show: the caller never put them anywhere. */
function assertNoSecret(where: string, text: string) {
  for (const [name, v] of Object.entries({ A_USED, A_OTHER, GLOBAL, API_KEY })) assert.ok(!text.includes(v), `${name} reached ${where}`);
}

before(async () => {
  llm = await startOpenAIStandin(decide);
  other = await startOpenAIStandin(() => ({ text: 'ok' }));
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: `k1:${crypto.randomBytes(32).toString('base64')}` } });
  await makeUser(gw, 'root@example.com', 'admin');
  await makeUser(gw, 'op@example.com', 'operator');
  const pw = await makeUser(gw, 'pw@example.com', 'operator');
  pwUserId = pw.id;
  admin = await makeToken(gw, await login(gw, 'root@example.com'), 'admin');
  operator = await makeToken(gw, await login(gw, 'op@example.com'), 'operator');
  pwUser = await makeToken(gw, await login(gw, 'pw@example.com'), 'operator');
  for (const name of ['alpha', 'bravo']) assert.equal((await call(admin, 'POST', '/api/v1/namespaces', { name })).status, 201);
  assert.equal((await call(admin, 'PUT', '/api/v1/namespaces/alpha/secrets/USED', { value: A_USED })).status, 200);
  assert.equal((await call(admin, 'PUT', '/api/v1/namespaces/alpha/secrets/OTHER', { value: A_OTHER })).status, 200);
  assert.equal((await call(admin, 'PUT', '/api/v1/namespaces/bravo/secrets/B', { value: B_SECRET })).status, 200);
  assert.equal((await call(admin, 'PUT', '/api/v1/secrets/G', { value: GLOBAL })).status, 200);
  // An operator of alpha put a guess of bravo's secret in a run's inputs; the run used alpha's USED
  // (printed by a careless task into its error), and its error quotes the other values too.
  await gw.db.pool.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes) VALUES ('snap-a', 'alpha', 'h', 0, 0)`);
  await gw.db.pool.query(
    `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, inputs, created_by, trigger_type, created_at, ended_at, error, secret_keys_used)
     VALUES ('ex-alpha', 'FAILED', 'alpha', 'f', 'snap-a', '{"id":"f","tasks":[]}', $1, 'test', 'manual', now() - interval '1 minute', now() - interval '1 minute', $2, '{USED}')`,
    [JSON.stringify({ guess: B_SECRET }), `failed with ${A_USED}; other ${A_OTHER}; global ${GLOBAL}`],
  );
  assert.equal((await call(admin, 'PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-1', base_url: llm.url, api_key: API_KEY })).status, 200);
});

after(async () => {
  await gw?.close();
  await llm?.close();
  await other?.close();
});

test('a user whose password was reset gets 403 password_change_required on /mcp, as on /api/v1', async () => {
  assert.equal((await call(pwUser, 'GET', '/api/v1/executions')).status, 200);
  const reset = await call(admin, 'POST', `/api/v1/users/${pwUserId}/reset-password`);
  assert.equal(reset.status, 200, reset.body);
  const api = await call(pwUser, 'GET', '/api/v1/executions');
  assert.equal(api.status, 403);
  assert.equal(api.json().error.code, 'password_change_required');
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  const r = await raw(
    gw,
    'POST',
    '/mcp',
    { authorization: `Bearer ${pwUser}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    JSON.stringify(init),
  );
  assert.equal(r.status, 403, r.body);
  assert.equal(r.json().error.code, 'password_change_required');
});

test("MCP answers mask the secrets of the answer's own scopes, not a guess of another namespace's secret", async () => {
  const client = await mcp(operator);
  try {
    const exec = JSON.stringify(await client.callTool({ name: 'get_execution', arguments: { execution_id: 'ex-alpha' } }));
    assert.ok(exec.includes(B_SECRET), `the input as given, not masked: ${exec.slice(0, 400)}`);
    assert.match(exec, /failed with \*\*\*; other \*\*\*; global \*\*\*/);
    assertNoSecret('an MCP get_execution', exec);
    const list = JSON.stringify(await client.callTool({ name: 'list_executions', arguments: {} }));
    assertNoSecret('an MCP list_executions', list);
  } finally {
    await client.close();
  }
});

test('assistant answers, stored conversations and triage evidence mask the same way', async () => {
  const id = await newConversation(operator);
  const t = await turn(operator, id, 'what about ex-alpha?');
  const result = t.events.find((e) => e.event === 'tool_result' && e.data.name === 'get_execution');
  assert.ok(result?.data.ok, t.raw);
  const text = JSON.stringify(result.data.result);
  assert.ok(text.includes(B_SECRET), 'the guess is not masked');
  assert.match(text, /failed with \*\*\*; other \*\*\*; global \*\*\*/);
  assertNoSecret('the event stream', t.raw);
  const conv = await call(operator, 'GET', `/api/v1/ai/conversations/${id}`);
  assert.ok(conv.body.includes(B_SECRET), 'read back the same way: no oracle on re-read');
  assertNoSecret('the stored conversation', conv.body);
  assertNoSecret('the model requests', JSON.stringify(llm.requests.map((r) => r.body)));

  const tr = await call(operator, 'POST', '/api/v1/executions/ex-alpha/insights');
  assert.equal(tr.status, 202, tr.body);
  let insight: { state: string; evidence: { content: string }[] } | undefined;
  for (let i = 0; i < 100; i++) {
    insight = (await call(operator, 'GET', '/api/v1/executions/ex-alpha/insights')).json<{ items: (typeof insight)[] }>().items[0];
    if (insight && insight.state !== 'pending' && insight.state !== 'running') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(insight?.state, 'done', JSON.stringify(insight));
  const evidence = JSON.stringify(insight!.evidence);
  assert.ok(evidence.includes(B_SECRET), 'triage evidence: the guess is not masked');
  assertNoSecret('triage evidence', evidence);
});

test('/mcp refuses a body nested deeper than the JSON depth limit with 422, like /api/v1', async () => {
  const deep = '['.repeat(100) + ']'.repeat(100);
  const body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${deep}}}`;
  const r = await raw(gw, 'POST', '/mcp', { authorization: `Bearer ${operator}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body);
  assert.equal(r.status, 422, r.body);
  assert.equal(r.json().error.code, 'validation_failed');
  assert.equal(r.json().error.details?.[0]?.field, 'body');
});

test('every MCP tool carries readOnlyHint, destructiveHint and idempotentHint', async () => {
  const client = await mcp(admin);
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.length >= 10, JSON.stringify(tools.map((t) => t.name)));
    const reads = ['list_flows', 'get_flow', 'list_files', 'read_file', 'list_executions', 'get_execution', 'read_logs', 'get_flow_schema', 'validate_flow'];
    for (const t of tools) {
      const a = t.annotations ?? {};
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint'] as const) assert.equal(typeof a[hint], 'boolean', `${t.name}.${hint}`);
      assert.equal(a.readOnlyHint, reads.includes(t.name), `${t.name} readOnlyHint`);
      if (a.readOnlyHint) assert.equal(a.destructiveHint, false, `${t.name} is a read`);
    }
    assert.equal(tools.find((t) => t.name === 'cancel_execution')?.annotations?.destructiveHint, true);
    assert.equal(tools.find((t) => t.name === 'trigger_flow')?.annotations?.idempotentHint, false);
  } finally {
    await client.close();
  }
});

test('testAIProvider sends the stored key only to the stored base URL; another URL needs the key again (422 api_key)', async () => {
  const before = other.requests.length;
  const r = await call(admin, 'POST', '/api/v1/ai/provider/test', { type: 'openai_compatible', model: 'm', base_url: other.url });
  assert.equal(r.status, 422, r.body);
  assert.equal(r.json().error.details?.[0]?.field, 'api_key');
  assert.equal(other.requests.length, before, 'nothing sent to the other URL');
  assertNoSecret('the 422', r.body);
  const given = await call(admin, 'POST', '/api/v1/ai/provider/test', { type: 'openai_compatible', model: 'm', base_url: other.url, api_key: 'sk-given' });
  assert.equal(given.status, 200, given.body);
  assert.equal(other.requests.at(-1)?.authorization, 'Bearer sk-given');
  const same = await call(admin, 'POST', '/api/v1/ai/provider/test', { type: 'openai_compatible', model: 'm', base_url: llm.url });
  assert.equal(same.status, 200, same.body);
  assert.equal(same.json<{ ok: boolean }>().ok, true);
  assert.equal(llm.requests.at(-1)?.authorization, `Bearer ${API_KEY}`, 'the stored key goes to the stored URL');
  assertNoSecret('the test answers', given.body + same.body);
});

test('an ollama or OpenAI-compatible provider without base_url is 422 base_url, not sent to OpenAI', async () => {
  for (const type of ['ollama', 'openai_compatible']) {
    const put = await call(admin, 'PUT', '/api/v1/ai/provider', { type, model: 'm' });
    assert.equal(put.status, 422, put.body);
    assert.equal(put.json().error.details?.[0]?.field, 'base_url');
    const t = await call(admin, 'POST', '/api/v1/ai/provider/test', { type, model: 'm', api_key: 'x' });
    assert.equal(t.status, 422, t.body);
    assert.equal(t.json().error.details?.[0]?.field, 'base_url');
  }
  assert.equal((await call(admin, 'GET', '/api/v1/ai/provider')).json<{ base_url: string }>().base_url, llm.url, 'the stored provider is unchanged');
});

test('no secret value in the gateway log', () => {
  assertNoSecret('the gateway log', JSON.stringify(gw.logs()));
});
