// The AI assistant, triage and the MCP server against a local stand-in of the
// OpenAI-compatible chat API: ai_disabled, the provider key sealed and never
// shown, a conversation with a tool call, proposed flow changes confirmed and
// rejected, role limits, conversations private to their user, a triage
// insight with its evidence and no secret value, and MCP through the SDK's
// own client over real HTTP.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw } from './identity-helpers.js';
import { aiClient } from './ai-helpers.js';
import { assertPagesEveryRow, sameMillisecond } from './paging-helpers.js';
import { INSIGHT_STATES } from '@svc/ai';
import { buildOpenApiDocument } from '@svc/api-spec';
import { assertConforms, conformanceErrors } from './secrets-helpers.js';
import { startOpenAIStandin, type Answer, type Standin, type StandinRequest } from '../../../e2e/test/openai-standin.js';

const API_KEY = 'sk-test-' + crypto.randomBytes(12).toString('hex');
const SECRET_VALUE = 'hunter2-' + crypto.randomBytes(8).toString('hex');
const FLOW = 'id: load\ndescription: Loads\ntasks:\n  - {id: a, type: command, command: [echo, "hi"]}\n';
const NEW_FLOW =
  'id: load\ndescription: Loads, twice\ntasks:\n  - {id: a, type: command, command: [echo, "hi"]}\n  - {id: b, type: command, command: [echo, "again"], depends_on: [a]}\n';

let gw: TestGateway;
let llm: Standin;
let admin: string, editor: string, operator: string, viewer: string;
let editorCookie: string;

const lastUser = (r: StandinRequest) => [...r.body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';

/** The stand-in model: a tool call for known requests, then a text answer once the tool answered. */
function decide(r: StandinRequest): Answer {
  const msgs = r.body.messages;
  if (msgs[0]?.content?.includes('You triage failed workflow executions')) {
    return {
      text: '{"summary": "Task a failed: the database refused the connection", "probable_cause": "Wrong password for db", "suggested_fix": "Rotate the db secret", "evidence": ["E2", "E3"]}',
    };
  }
  if (!r.body.tools) return { text: 'ok' };
  const last = msgs[msgs.length - 1]!;
  if (last.role === 'tool') return { text: `Done. The tool said: ${String(last.content).slice(0, 40)}` };
  const u = lastUser(r);
  if (u.includes('list my flows')) return { toolCalls: [{ name: 'list_flows', arguments: { namespace: 'team' } }] };
  if (u.includes('add a second task'))
    return { toolCalls: [{ name: 'save_flow', arguments: { namespace: 'team', path: 'flows/load.flow.yaml', content: NEW_FLOW, message: 'Add task b' } }] };
  if (u.includes('break the flow'))
    return { toolCalls: [{ name: 'save_flow', arguments: { namespace: 'team', path: 'flows/load.flow.yaml', content: 'id: load\ntasks: []\n', message: 'oops' } }] };
  return { text: 'Hello! How can I help?' };
}

const { call, turn, newConversation } = aiClient(() => gw);
/** Sends a message and reads the whole turn: its events in order. */
const send = async (token: string, conversationId: string, content: string) => (await turn(token, conversationId, content)).events;

let failedId = '';

before(async () => {
  llm = await startOpenAIStandin(decide);
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: `k1:${crypto.randomBytes(32).toString('base64')}` } });
  await makeUser(gw, 'root@example.com', 'admin');
  await makeUser(gw, 'ed@example.com', 'editor');
  await makeUser(gw, 'op@example.com', 'operator');
  await makeUser(gw, 'vi@example.com', 'viewer');
  admin = await makeToken(gw, await login(gw, 'root@example.com'), 'admin');
  editorCookie = await login(gw, 'ed@example.com');
  editor = await makeToken(gw, editorCookie, 'editor');
  operator = await makeToken(gw, await login(gw, 'op@example.com'), 'operator');
  viewer = await makeToken(gw, await login(gw, 'vi@example.com'), 'viewer');
  assert.equal((await call(admin, 'POST', '/api/v1/namespaces', { name: 'team' })).status, 201);
  assert.equal(
    (await call(editor, 'POST', '/api/v1/namespaces/team/changes', { message: 'flows', changes: [{ op: 'put', path: 'flows/load.flow.yaml', content: FLOW }] })).status,
    201,
  );
  assert.equal((await call(editor, 'PUT', '/api/v1/namespaces/team/secrets/DB_PASSWORD', { value: SECRET_VALUE })).status, 200);

  // A failed execution of the flow whose task error and log lines carry the secret value (as a careless task would print it).
  await gw.db.pool.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes) VALUES ('snap-ai', 'team', 'h', 0, 0) ON CONFLICT DO NOTHING`);
  const definition = { id: 'load', tasks: [{ id: 'a', type: 'command', command: ['psql', '{{ secret("DB_PASSWORD") }}'] }] };
  await gw.db.pool.query(
    `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, created_at, ended_at, error, secret_keys_used)
     VALUES ('ex-ok', 'SUCCESS', 'team', 'load', 'snap-ai', $1, 'test', 'manual', now() - interval '2 hours', now() - interval '2 hours', '', '{}'),
            ('ex-failed', 'FAILED', 'team', 'load', 'snap-ai', $2, 'test', 'manual', now() - interval '1 hour', now() - interval '1 hour', $3, '{DB_PASSWORD}')`,
    [JSON.stringify({ id: 'load', tasks: [{ id: 'a', type: 'command', command: ['psql'] }] }), JSON.stringify(definition), `task a failed: password ${SECRET_VALUE} rejected`],
  );
  failedId = 'ex-failed';
  await gw.db.pool.query(
    `INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, attempt, reason, error, exit_code)
     VALUES ('tr-failed', 'ex-failed', 'a', 'command', 'process', 'default', 'FAILED', 1, 'exit_code', $1, 2)`,
    [`connection refused for password ${SECRET_VALUE}`],
  );
  const lines = ['connecting to db', `using password ${SECRET_VALUE}`, 'FATAL: password authentication failed'];
  for (const [i, text] of lines.entries()) {
    await gw.db.pool.query(
      `INSERT INTO log_lines (task_run_id, n, execution_id, task_key, attempt, ts, stream, text, seq) VALUES ('tr-failed', $1, 'ex-failed', 'a', 1, $2, 'stderr', $3, $4)`,
      [i + 1, String(1_700_000_000_000_000_000n + BigInt(i)), text, i + 1],
    );
  }
});

after(async () => {
  await gw.close();
  await llm.close();
});

test('without a provider: the status says disabled to every viewer, other AI operations are 409 ai_disabled', async () => {
  const s = await call(viewer, 'GET', '/api/v1/ai/status');
  assert.equal(s.status, 200);
  assert.equal(s.json<{ enabled: boolean }>().enabled, false);
  for (const [token, method, path] of [
    [editor, 'POST', '/api/v1/ai/conversations'],
    [operator, 'POST', `/api/v1/executions/${failedId}/insights`],
    [admin, 'POST', '/api/v1/ai/provider/test'],
  ] as const) {
    const r = await call(token, method, path, path.endsWith('/test') ? undefined : {});
    assert.equal(r.status, 409, `${path}: ${r.body}`);
    assert.equal(r.json().error.code, 'ai_disabled');
  }
  assert.equal((await call(viewer, 'GET', '/api/v1/ai/provider')).status, 404);
});

test('the provider: admin only; the API key sealed, never returned or logged; the test calls the provider with it', async () => {
  assert.equal((await call(editor, 'PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'm', base_url: llm.url, api_key: API_KEY })).status, 403);
  const bad = await call(admin, 'PUT', '/api/v1/ai/provider', { type: 'nope', model: 'm' });
  assert.equal(bad.status, 422);
  const put = await call(admin, 'PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-1', base_url: llm.url, api_key: API_KEY });
  assert.equal(put.status, 200, put.body);
  assert.deepEqual(
    { ...put.json<Record<string, unknown>>(), updated_at: 'x' },
    { type: 'openai_compatible', model: 'stand-in-1', base_url: llm.url, has_api_key: true, auto_triage: false, updated_at: 'x' },
  );
  const got = await call(viewer, 'GET', '/api/v1/ai/provider');
  assert.equal(got.status, 200);
  assert.ok(!got.body.includes(API_KEY));
  const row = (await gw.db.pool.query<{ api_key_ciphertext: Buffer }>(`SELECT api_key_ciphertext FROM ai_provider`)).rows[0]!;
  assert.ok(!row.api_key_ciphertext.toString('latin1').includes(API_KEY), 'stored sealed');
  const t = await call(admin, 'POST', '/api/v1/ai/provider/test');
  assert.equal(t.status, 200);
  assert.equal(t.json<{ ok: boolean }>().ok, true, t.body);
  assert.equal(llm.requests.at(-1)!.authorization, `Bearer ${API_KEY}`);
  assert.deepEqual((await call(viewer, 'GET', '/api/v1/ai/status')).json(), { enabled: true, provider: 'openai_compatible', model: 'stand-in-1', auto_triage: false });
  const audit = await call(admin, 'GET', '/api/v1/audit?action=ai_provider.put');
  assert.ok(!audit.body.includes(API_KEY));
  assert.ok(!JSON.stringify(gw.logs()).includes(API_KEY), 'the key is in no log line');
});

test('getAIProvider is a viewer read (every role sees the settings, never a key); changing, removing and testing them is admin only; no credential in base_url', async () => {
  for (const token of [viewer, operator, editor, admin]) {
    const r = await call(token, 'GET', '/api/v1/ai/provider');
    assert.equal(r.status, 200, r.body);
    const b = r.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(b).sort(), ['auto_triage', 'base_url', 'has_api_key', 'model', 'type', 'updated_at']);
    assert.equal(b.has_api_key, true);
    assert.ok(!r.body.includes(API_KEY));
  }
  for (const token of [viewer, operator, editor]) {
    assert.equal((await call(token, 'PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'x', base_url: llm.url })).status, 403);
    assert.equal((await call(token, 'DELETE', '/api/v1/ai/provider')).status, 403);
    assert.equal((await call(token, 'POST', '/api/v1/ai/provider/test')).status, 403);
  }
  // A key in the URL would be shown to every viewer: refused, and nothing is stored.
  const withCreds = new URL(llm.url);
  withCreds.username = 'proxyuser';
  withCreds.password = 'pw-' + crypto.randomBytes(6).toString('hex');
  for (const [method, path] of [
    ['PUT', '/api/v1/ai/provider'],
    ['POST', '/api/v1/ai/provider/test'],
  ] as const) {
    const r = await call(admin, method, path, { type: 'openai_compatible', model: 'x', base_url: withCreds.href });
    assert.equal(r.status, 422, r.body);
    assert.equal(r.json().error.code, 'validation_failed');
    assert.ok(!r.body.includes(withCreds.password));
  }
  const after = (await call(viewer, 'GET', '/api/v1/ai/provider')).json<{ base_url: string; model: string }>();
  assert.deepEqual([after.base_url, after.model], [llm.url, 'stand-in-1']);
});

test('a conversation with a tool call: the tool runs with the caller, its result goes back to the model, the turn streams to its end', async () => {
  const id = await newConversation(editor);
  const events = await send(editor, id, 'please list my flows');
  const names = events.map((e) => e.event);
  assert.deepEqual(
    names.filter((n) => n !== 'text'),
    ['tool_call', 'tool_result', 'end'],
    JSON.stringify(events),
  );
  assert.equal(names.at(-1), 'end');
  const callEv = events.find((e) => e.event === 'tool_call')!.data;
  assert.deepEqual([callEv.name, callEv.arguments], ['list_flows', { namespace: 'team' }]);
  const result = events.find((e) => e.event === 'tool_result')!.data;
  assert.equal(result.ok, true);
  assert.deepEqual(
    result.result.items.map((f: { id: string }) => f.id),
    ['load'],
  );
  const text = events
    .filter((e) => e.event === 'text')
    .map((e) => e.data.delta)
    .join('');
  assert.match(text, /^Done\. The tool said: /);
  // The model got the tool's answer as a tool message.
  const toolMsg = llm.requests.at(-1)!.body.messages.find((m) => m.role === 'tool')!;
  assert.match(String(toolMsg.content), /"id":"load"/);
  const conv = (await call(editor, 'GET', `/api/v1/ai/conversations/${id}`)).json<{ messages: { role: string; parts: Record<string, unknown>[] }[] }>();
  assert.deepEqual(
    conv.messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'assistant'],
  );
  // The messages as the document declares them (AIMessage), tool call and tool result parts included.
  assert.deepEqual(
    conv.messages.map((m) => m.parts.map((p) => p.type)),
    [[], ['tool_call'], ['tool_result'], []],
  );
  assertConforms('getAIConversation', 200, conv);
  // And no field it does not declare: the tool result's `scope` (what its call read, to mask it again
  // on replay) stays in the row and is not sent.
  assertConforms('getAIConversation', 200, conv, { closed: true });
  assert.deepEqual(Object.keys(conv.messages[2]!.parts[0]!).sort(), ['content', 'name', 'tool_call_id', 'type']);
  const stored = await gw.db.pool.query<{ parts: { type: string; scope?: unknown }[] }>(`SELECT parts FROM ai_messages WHERE conversation_id = $1 AND role = 'tool'`, [id]);
  assert.deepEqual(stored.rows[0]?.parts[0]?.scope, { namespaces: ['team'], executions: [] }, 'the scope is kept where it is used');
  // The closed check tells: the part as it was sent before, with its scope, is refused (the open document takes it).
  const withScope = structuredClone(conv);
  withScope.messages[2]!.parts[0]!.scope = { namespaces: ['team'], executions: [] };
  assert.match(conformanceErrors('getAIConversation', 200, withScope, { closed: true }) ?? '', /must NOT have additional properties/);
  assert.equal(conformanceErrors('getAIConversation', 200, withScope), undefined);
});

test('a proposed flow change runs only when confirmed (with a diff, audited); a rejected one is discarded', async () => {
  const id = await newConversation(editor);
  const events = await send(editor, id, 'add a second task to load');
  const proposed = events.find((e) => e.event === 'action_proposed')!.data;
  assert.equal(proposed.tool, 'save_flow');
  assert.match(proposed.diff, /\+  - \{id: b, type: command/);
  assert.match(proposed.summary, /Save flows\/load\.flow\.yaml in namespace team/);
  // Nothing changed yet.
  const before = (await call(viewer, 'GET', '/api/v1/namespaces/team/file?path=flows/load.flow.yaml')).json<{ content: string }>();
  assert.equal(before.content, FLOW);
  const ok = await call(editor, 'POST', `/api/v1/ai/conversations/${id}/actions/${proposed.id}/confirm`);
  assert.equal(ok.status, 200, ok.body);
  assert.equal(ok.json<{ status: string }>().status, 'succeeded');
  assertConforms('confirmAIAction', 200, ok.json());
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/team/file?path=flows/load.flow.yaml')).json<{ content: string }>().content, NEW_FLOW);
  assert.equal((await call(editor, 'POST', `/api/v1/ai/conversations/${id}/actions/${proposed.id}/confirm`)).status, 409, 'decided once');
  const audit = (await call(admin, 'GET', '/api/v1/audit?action=ai.action.confirm')).json<{ items: { target_id?: string; payload?: { tool: string; outcome: string } }[] }>();
  assert.ok(
    audit.items.some((a) => a.payload?.tool === 'save_flow' && a.payload.outcome === 'succeeded'),
    JSON.stringify(audit),
  );

  const events2 = await send(editor, id, 'now break the flow');
  const proposed2 = events2.find((e) => e.event === 'action_proposed')!.data;
  const rej = await call(editor, 'POST', `/api/v1/ai/conversations/${id}/actions/${proposed2.id}/reject`);
  assert.equal(rej.status, 200);
  assertConforms('rejectAIAction', 200, rej.json());
  assert.equal((await call(editor, 'POST', `/api/v1/ai/conversations/${id}/actions/${proposed2.id}/confirm`)).status, 409);
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/team/file?path=flows/load.flow.yaml')).json<{ content: string }>().content, NEW_FLOW, 'unchanged');
  const conv = (await call(editor, 'GET', `/api/v1/ai/conversations/${id}`)).json<{ actions: { status: string }[] }>();
  assert.deepEqual(
    conv.actions.map((a) => a.status),
    ['succeeded', 'rejected'],
  );
  // The actions as the document declares them (AIAction): diff, result, times.
  assertConforms('getAIConversation', 200, conv);
});

test('role limits: a viewer may talk, but a change it confirms is refused with 403 and nothing changes', async () => {
  const id = await newConversation(viewer);
  const events = await send(viewer, id, 'add a second task to load');
  const proposed = events.find((e) => e.event === 'action_proposed')!.data;
  const r = await call(viewer, 'POST', `/api/v1/ai/conversations/${id}/actions/${proposed.id}/confirm`);
  assert.equal(r.status, 403, r.body);
  assert.equal(r.json().error.code, 'forbidden');
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/team/file?path=flows/load.flow.yaml')).json<{ content: string }>().content, NEW_FLOW);
  assert.equal((await call(viewer, 'POST', `/api/v1/executions/${failedId}/insights`)).status, 403, 'triage needs operator');
});

test('a conversation belongs to its user: another user gets 404 on read, send, delete and confirm, and does not list it', async () => {
  const id = await newConversation(editor);
  for (const [m, p, b] of [
    ['GET', `/api/v1/ai/conversations/${id}`, undefined],
    ['POST', `/api/v1/ai/conversations/${id}/messages`, { content: 'hi' }],
    ['DELETE', `/api/v1/ai/conversations/${id}`, undefined],
    ['POST', `/api/v1/ai/conversations/${id}/actions/x/confirm`, undefined],
  ] as const) {
    assert.equal((await call(operator, m, p, b)).status, 404, `${m} ${p}`);
  }
  const list = (await call(operator, 'GET', '/api/v1/ai/conversations')).json<{ items: { id: string }[] }>();
  assert.ok(!list.items.some((c) => c.id === id));
  assert.ok((await call(editor, 'GET', '/api/v1/ai/conversations')).json<{ items: { id: string }[] }>().items.some((c) => c.id === id));
});

test('listAIConversations pages newest first with a cursor: every conversation once, a deleted one gone', async () => {
  const mine = new Set<string>();
  for (let i = 0; i < 5; i++) mine.add(await newConversation(viewer));
  const seen: { id: string; updated_at: string }[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10; pages++) {
    const r = await call(viewer, 'GET', `/api/v1/ai/conversations?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(r.status, 200, r.body);
    const page = r.json<{ items: { id: string; updated_at: string }[]; next_cursor?: string }>();
    assert.ok(page.items.length <= 2);
    seen.push(...page.items);
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  const ids = seen.map((c) => c.id).filter((id) => mine.has(id));
  assert.equal(ids.length, 5, 'each of the five once');
  assert.equal(new Set(ids).size, 5);
  const times = seen.map((c) => Date.parse(c.updated_at));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
    'newest first',
  );
  const gone = [...mine][0]!;
  assert.equal((await call(viewer, 'DELETE', `/api/v1/ai/conversations/${gone}`)).status, 204);
  assert.ok(!(await call(viewer, 'GET', '/api/v1/ai/conversations?limit=100')).json<{ items: { id: string }[] }>().items.some((c) => c.id === gone));
  assert.equal((await call(viewer, 'GET', `/api/v1/ai/conversations/${gone}`)).status, 404);
});

test('triage: an insight with summary, cause and fix citing its evidence, no secret value anywhere; the dashboard shows the summary', async () => {
  const ok = await call(operator, 'POST', `/api/v1/executions/ex-ok/insights`);
  assert.equal(ok.status, 409, 'a successful execution is not triaged');
  const r = await call(operator, 'POST', `/api/v1/executions/${failedId}/insights`);
  assert.equal(r.status, 202, r.body);
  assertConforms('requestTriage', 202, r.json());
  let insight: any;
  for (let i = 0; i < 100; i++) {
    insight = (await call(viewer, 'GET', `/api/v1/executions/${failedId}/insights`)).json<{ items: any[] }>().items[0];
    if (insight.state === 'done' || insight.state === 'failed') break;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal(insight.state, 'done', JSON.stringify(insight));
  // The insight and its evidence as the document declares them (Insight, InsightEvidence), with no undeclared field.
  const listed = (await call(viewer, 'GET', `/api/v1/executions/${failedId}/insights`)).json<{ items: Record<string, unknown>[] }>();
  assertConforms('listExecutionInsights', 200, listed);
  assertConforms('listExecutionInsights', 200, listed, { closed: true });
  assert.equal(insight.summary, 'Task a failed: the database refused the connection');
  assert.equal(insight.probable_cause, 'Wrong password for db');
  assert.equal(insight.suggested_fix, 'Rotate the db secret');
  const kinds = insight.evidence.map((e: any) => e.kind);
  assert.deepEqual(kinds, ['execution', 'task_run', 'log_tail', 'flow_definition', 'changes_since_success']);
  assert.deepEqual(
    insight.evidence.filter((e: any) => e.cited).map((e: any) => e.id),
    ['E2', 'E3'],
  );
  const logTail = insight.evidence.find((e: any) => e.kind === 'log_tail');
  assert.match(logTail.content, /using password \*\*\*/);
  assert.match(logTail.content, /FATAL: password authentication failed/);
  assert.match(insight.evidence.find((e: any) => e.kind === 'changes_since_success').content, /ex-ok[\s\S]*Flow definition diff/);
  // Each item names its place, for the UI's links: the run, the numbers of the tail's lines, the last success.
  const taskRun = insight.evidence.find((e: any) => e.kind === 'task_run');
  assert.deepEqual([taskRun.execution_id, taskRun.task_run_id, taskRun.task_key, taskRun.attempt], [failedId, 'tr-failed', 'a', 1]);
  assert.deepEqual([logTail.task_run_id, logTail.lines.length], ['tr-failed', logTail.content.split('\n').length]);
  assert.deepEqual(
    logTail.lines,
    [...logTail.lines].sort((a: number, b: number) => a - b),
    'the lines in order',
  );
  assert.equal(logTail.lines.at(-1), Number((await gw.db.pool.query(`SELECT max(n) AS n FROM log_lines WHERE task_run_id = 'tr-failed'`)).rows[0].n));
  assert.equal(insight.evidence.find((e: any) => e.kind === 'changes_since_success').execution_id, 'ex-ok');
  assert.equal(insight.evidence.find((e: any) => e.kind === 'execution').execution_id, failedId);
  const all = JSON.stringify(insight) + JSON.stringify(llm.requests.filter((q) => q.body.messages[0]?.content?.includes('You triage')));
  assert.ok(!all.includes(SECRET_VALUE), 'no secret value in the insight or the prompt');
  const dash = (await call(viewer, 'GET', '/api/v1/stats/dashboard')).json<{ recent_failures: { id: string; triage_summary: string | null }[] }>();
  assert.equal(dash.recent_failures.find((f) => f.id === failedId)?.triage_summary, 'Task a failed: the database refused the connection');
});

async function mcpClient(token: string) {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

test('MCP: the public card; 401 without a bearer token, with a bad or revoked one, or a session cookie alone', async () => {
  const card = await raw(gw, 'GET', '/.well-known/mcp.json');
  assert.equal(card.status, 200);
  const c = card.json<{ transport: { type: string; url: string }; authentication: { type: string }; tools: string[] }>();
  assert.equal(c.transport.type, 'streamable-http');
  assert.match(c.transport.url, /\/mcp$/);
  assert.equal(c.authentication.type, 'bearer');
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  });
  const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  assert.equal((await raw(gw, 'POST', '/mcp', h, init)).status, 401);
  assert.equal((await raw(gw, 'POST', '/mcp', { ...h, authorization: 'Bearer svc_nottoken' }, init)).status, 401);
  assert.equal((await raw(gw, 'POST', '/mcp', { ...h, cookie: editorCookie, 'sec-fetch-site': 'same-origin' }, init)).status, 401);
  const created = await raw(
    gw,
    'POST',
    '/api/v1/tokens',
    { 'content-type': 'application/json', cookie: editorCookie, 'sec-fetch-site': 'same-origin' },
    JSON.stringify({ name: 'gone', role: 'viewer' }),
  );
  const { id, secret } = created.json<{ id: string; secret: string }>();
  assert.equal((await raw(gw, 'POST', '/mcp', { ...h, authorization: `Bearer ${secret}` }, init)).status, 200);
  assert.equal((await call(editor, 'DELETE', `/api/v1/tokens/${id}`)).status, 204);
  assert.equal((await raw(gw, 'POST', '/mcp', { ...h, authorization: `Bearer ${secret}` }, init)).status, 401);
});

test('MCP through the SDK client: tools by role, a trigger with inputs, a log read, the flow schema, and a viewer refused a cancel', async () => {
  const op = await mcpClient(operator);
  const opTools = (await op.listTools()).tools.map((t) => t.name);
  for (const t of ['list_flows', 'get_flow', 'trigger_flow', 'get_execution', 'read_logs', 'cancel_execution', 'rerun_execution', 'restart_execution', 'request_triage'])
    assert.ok(opTools.includes(t), t);
  assert.ok(!opTools.includes('validate_flow'), 'validate needs editor');
  const trig = await op.callTool({ name: 'trigger_flow', arguments: { namespace: 'team', flow_id: 'load', inputs: {} } });
  assert.ok(!trig.isError, JSON.stringify(trig));
  const exec = trig.structuredContent as { id: string; state: string; flow_id: string };
  assert.equal(exec.flow_id, 'load');
  const got = await op.callTool({ name: 'get_execution', arguments: { execution_id: exec.id } });
  assert.equal((got.structuredContent as { id: string }).id, exec.id);
  const logs = await op.callTool({ name: 'read_logs', arguments: { execution_id: failedId, limit: 2 } });
  assert.ok(!logs.isError, JSON.stringify(logs));
  const items = (logs.structuredContent as { items: { text: string }[] }).items;
  // Bounded by the limit; stored raw here (runners mask before storing), the result is masked again.
  assert.deepEqual(
    items.map((l) => l.text),
    ['connecting to db', 'using password ***'],
  );
  // A replay's plan (dry_run): nothing starts; the tool is an action the assistant only proposes.
  assert.ok(opTools.includes('replay_execution'));
  const plan = await op.callTool({ name: 'replay_execution', arguments: { execution_id: failedId, dry_run: true } });
  assert.ok(!plan.isError, JSON.stringify(plan));
  const planned = plan.structuredContent as { reuse: unknown[]; run: string[]; revision: { kind: string } };
  assert.deepEqual(planned.reuse, [], 'without from, every task runs');
  assert.ok(planned.run.length > 0 && planned.revision.kind === 'pinned', JSON.stringify(planned));
  const schema = await op.readResource({ uri: 'svc://schemas/flow.json' });
  assert.match(String((schema.contents[0] as { text: string }).text), /2020-12/);
  await op.close();

  const vi = await mcpClient(viewer);
  const viTools = (await vi.listTools()).tools.map((t) => t.name);
  assert.ok(viTools.includes('get_execution') && viTools.includes('read_logs'));
  assert.ok(!viTools.includes('cancel_execution') && !viTools.includes('trigger_flow') && !viTools.includes('replay_execution'), JSON.stringify(viTools));
  let refused = false;
  try {
    const r = await vi.callTool({ name: 'cancel_execution', arguments: { execution_id: exec.id } });
    refused = r.isError === true;
  } catch {
    refused = true;
  }
  assert.ok(refused, 'a viewer cannot cancel');
  assert.equal((await call(viewer, 'GET', `/api/v1/executions/${exec.id}`)).json<{ state: string }>().state, exec.state, 'still not cancelled');
  await vi.close();
});

test('a provider that does not answer: the turn ends with an error event then end; the test reports it without the key', async () => {
  const dead = await startOpenAIStandin(() => ({ text: 'x' }));
  const deadUrl = dead.url;
  await dead.close();
  assert.equal((await call(admin, 'PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-1', base_url: deadUrl })).status, 200);
  try {
    const t = await call(admin, 'POST', '/api/v1/ai/provider/test');
    assert.equal(t.status, 200);
    assert.equal(t.json<{ ok: boolean }>().ok, false);
    assert.ok(!t.body.includes(API_KEY), 'the stored key was kept and is not shown');
    const id = await newConversation(editor);
    const events = await send(editor, id, 'hello');
    assert.deepEqual(
      events.map((e) => e.event),
      ['error', 'end'],
    );
    assert.equal(events[1]!.data.stop_reason, 'error');
    // A triage it does not answer: `pending`, then `failed` with why, each as the document declares it (InsightState), no undeclared field.
    const r = await call(operator, 'POST', `/api/v1/executions/${failedId}/insights`);
    assert.equal(r.status, 202, r.body);
    assertConforms('requestTriage', 202, r.json(), { closed: true });
    const triageId = r.json<{ id: string }>().id;
    let listed: { items: { id: string; state: string; error?: string }[] } = { items: [] };
    for (let i = 0; i < 200; i++) {
      listed = (await call(viewer, 'GET', `/api/v1/executions/${failedId}/insights`)).json();
      const s = listed.items.find((x) => x.id === triageId)?.state;
      if (s === 'done' || s === 'failed') break;
      await new Promise((res) => setTimeout(res, 50));
    }
    const failed = listed.items.find((x) => x.id === triageId);
    assert.equal(failed?.state, 'failed', JSON.stringify(failed));
    assert.ok(failed?.error, 'says why');
    assert.ok(!failed.error.includes(API_KEY));
    assertConforms('listExecutionInsights', 200, listed, { closed: true });
  } finally {
    assert.equal((await call(admin, 'PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-1', base_url: llm.url })).status, 200);
  }
});

test('insight states: the document declares exactly the states @svc/ai writes; each validates, another does not', () => {
  const doc = buildOpenApiDocument() as unknown as { components: { schemas: Record<string, { enum?: string[]; properties?: Record<string, { $ref?: string }> }> } };
  assert.equal(doc.components.schemas.Insight?.properties?.state?.$ref, '#/components/schemas/InsightState');
  assert.deepEqual(doc.components.schemas.InsightState?.enum, [...INSIGHT_STATES]);
  const body = (state: string) => ({ items: [{ id: 'i', execution_id: 'e', state, created_at: '2026-11-28T00:00:00.000Z' }] });
  for (const state of INSIGHT_STATES) assert.equal(conformanceErrors('listExecutionInsights', 200, body(state), { closed: true }), undefined, state);
  for (const state of ['finished', 'error', 'DONE', ''])
    assert.match(conformanceErrors('listExecutionInsights', 200, body(state)) ?? '', /must be equal to one of the allowed values/, state);
});

test('insights written in one millisecond (automatic triage takes the database clock) page each once, newest first', async () => {
  await gw.db.pool.query(
    `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, created_at, ended_at, error, secret_keys_used)
     VALUES ('ex-many', 'SUCCESS', 'team', 'load', 'snap-ai', '{}', 'test', 'manual', now(), now(), '', '{}')`,
  );
  const ids = Array.from({ length: 12 }, (_, k) => `in-${String(k).padStart(2, '0')}`);
  await gw.db.pool.query(
    `INSERT INTO ai_insights (id, execution_id, status, created_at) SELECT id, 'ex-many', 'done', at FROM unnest($1::text[], $2::timestamptz[]) AS i(id, at)`,
    [ids, ids.map((_, k) => sameMillisecond(k))],
  );
  const expected = (await gw.db.pool.query(`SELECT id FROM ai_insights WHERE execution_id = 'ex-many' ORDER BY created_at DESC, id DESC`)).rows.map((r) => r.id);
  await assertPagesEveryRow(gw, viewer, '/api/v1/executions/ex-many/insights', expected);
});
