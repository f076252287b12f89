// The Anthropic provider path (the official @anthropic-ai/sdk) against a
// local stand-in of the Messages API (test/anthropic-standin.ts), which
// refuses what the real API refuses: testAIProvider (the stored key, a wrong
// key, settings given in the body), a conversation with a tool call whose
// result goes back as a tool_result, parallel tool calls answered in one
// message, a later turn replaying the history, a proposed flow change
// confirmed, and a triage insight.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';
import { aiClient } from './ai-helpers.js';
import { startAnthropicStandin, type AnthropicAnswer, type AnthropicRequest, type AnthropicStandin, type ContentBlock } from './anthropic-standin.js';

const API_KEY = 'sk-ant-test-' + crypto.randomBytes(12).toString('hex');
const MODEL = 'claude-standin-1';
const FLOW = 'id: load\ndescription: Loads\ntasks:\n  - {id: a, type: command, command: [echo, "hi"]}\n';
const NEW_FLOW =
  'id: load\ndescription: Loads, twice\ntasks:\n  - {id: a, type: command, command: [echo, "hi"]}\n  - {id: b, type: command, command: [echo, "again"], depends_on: [a]}\n';

let gw: TestGateway;
let llm: AnthropicStandin;
let admin: string, editor: string, operator: string, viewer: string;

const systemOf = (r: AnthropicRequest) => (typeof r.body.system === 'string' ? r.body.system : (r.body.system ?? []).map((b) => b.text).join('\n'));
const blocks = (m: { content: string | ContentBlock[] } | undefined): ContentBlock[] => (!m ? [] : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content);
/** The last text the user wrote. */
const lastUserText = (r: AnthropicRequest) =>
  r.body.messages
    .flatMap((m) => (m.role === 'user' ? blocks(m).filter((b) => b.type === 'text') : []))
    .map((b) => (b as { text: string }).text)
    .at(-1) ?? '';

function decide(r: AnthropicRequest): AnthropicAnswer {
  if (systemOf(r).includes('You triage failed workflow executions')) {
    return {
      text: '{"summary": "Task a exited 2: psql could not connect", "probable_cause": "The database host is down", "suggested_fix": "Check the db host", "evidence": ["E2"]}',
    };
  }
  if (!r.body.tools) return { text: 'ok' };
  const last = r.body.messages[r.body.messages.length - 1]!;
  const results = blocks(last).filter((b) => b.type === 'tool_result');
  if (results.length) return { text: `Done: ${results.length} tool result(s).` };
  const u = lastUserText(r);
  if (u.includes('list my flows')) return { toolCalls: [{ name: 'list_flows', arguments: { namespace: 'team' } }] };
  if (u.includes('flow and the schema'))
    return {
      text: 'Let me look at both.',
      toolCalls: [
        { name: 'get_flow', arguments: { namespace: 'team', flow_id: 'load' } },
        { name: 'get_flow_schema', arguments: {} },
      ],
    };
  if (u.includes('overload')) return { text: 'Starting to ans', error: { type: 'overloaded_error', message: 'Overloaded' } };
  if (u.includes('add a second task'))
    return { toolCalls: [{ name: 'save_flow', arguments: { namespace: 'team', path: 'flows/load.flow.yaml', content: NEW_FLOW, message: 'Add task b' } }] };
  return { text: 'Hello from the stand-in.' };
}

const { call, turn, newConversation } = aiClient(() => gw);
/** Sends a message and reads the whole turn: its events in order. */
const send = async (token: string, conversationId: string, content: string) => (await turn(token, conversationId, content)).events;

before(async () => {
  llm = await startAnthropicStandin(decide, { apiKey: API_KEY });
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: `k1:${crypto.randomBytes(32).toString('base64')}` } });
  await makeUser(gw, 'root@example.com', 'admin');
  await makeUser(gw, 'ed@example.com', 'editor');
  await makeUser(gw, 'op@example.com', 'operator');
  await makeUser(gw, 'vi@example.com', 'viewer');
  admin = await makeToken(gw, await login(gw, 'root@example.com'), 'admin');
  editor = await makeToken(gw, await login(gw, 'ed@example.com'), 'editor');
  operator = await makeToken(gw, await login(gw, 'op@example.com'), 'operator');
  viewer = await makeToken(gw, await login(gw, 'vi@example.com'), 'viewer');
  assert.equal((await call(admin, 'POST', '/api/v1/namespaces', { name: 'team' })).status, 201);
  assert.equal(
    (await call(editor, 'POST', '/api/v1/namespaces/team/changes', { message: 'flows', changes: [{ op: 'put', path: 'flows/load.flow.yaml', content: FLOW }] })).status,
    201,
  );
  await gw.db.pool.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes) VALUES ('snap-an', 'team', 'h', 0, 0)`);
  await gw.db.pool.query(
    `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, created_at, ended_at, error)
     VALUES ('ex-an', 'FAILED', 'team', 'load', 'snap-an', $1, 'test', 'manual', now() - interval '1 hour', now() - interval '1 hour', 'task a failed')`,
    [JSON.stringify({ id: 'load', tasks: [{ id: 'a', type: 'command', command: ['psql'] }] })],
  );
  await gw.db.pool.query(
    `INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, attempt, reason, error, exit_code)
     VALUES ('tr-an', 'ex-an', 'a', 'command', 'process', 'default', 'FAILED', 1, 'exit_code', 'psql: could not connect to server', 2)`,
  );
  await gw.db.pool.query(
    `INSERT INTO log_lines (task_run_id, n, execution_id, task_key, attempt, ts, stream, text, seq) VALUES ('tr-an', 1, 'ex-an', 'a', 1, '1700000000000000000', 'stderr', 'psql: could not connect to server: Connection refused', 1)`,
  );
});

after(async () => {
  await gw?.close();
  await llm?.close();
});

test('testAIProvider through the Anthropic SDK: the stored key reaches the provider; a wrong key is reported without the key', async () => {
  const put = await call(admin, 'PUT', '/api/v1/ai/provider', { type: 'anthropic', model: MODEL, base_url: llm.url, api_key: API_KEY });
  assert.equal(put.status, 200, put.body);
  assert.equal(put.json<{ has_api_key: boolean }>().has_api_key, true);
  const t = await call(admin, 'POST', '/api/v1/ai/provider/test');
  assert.equal(t.status, 200, t.body);
  assert.deepEqual(t.json(), { ok: true, model: MODEL, reply: 'ok' });
  const req = llm.requests.at(-1)!;
  assert.equal(req.apiKey, API_KEY);
  assert.ok(req.version, 'the anthropic-version header is sent');
  assert.equal(req.body.model, MODEL);
  assert.equal(req.body.max_tokens, 16);
  assert.equal(req.body.stream, true);
  assert.deepEqual(
    req.body.messages.map((m) => m.role),
    ['user'],
  );
  assert.deepEqual((await call(viewer, 'GET', '/api/v1/ai/status')).json(), { enabled: true, provider: 'anthropic', model: MODEL, auto_triage: false });

  // Settings given in the body are tried as they are: a wrong key fails with the provider's error, never a key.
  const wrongKey = 'sk-ant-wrong-' + crypto.randomBytes(6).toString('hex');
  const bad = await call(admin, 'POST', '/api/v1/ai/provider/test', { type: 'anthropic', model: MODEL, base_url: llm.url, api_key: wrongKey });
  assert.equal(bad.status, 200, bad.body);
  const b = bad.json<{ ok: boolean; error: string }>();
  assert.equal(b.ok, false);
  assert.match(b.error, /401|authentication/i);
  assert.ok(!bad.body.includes(wrongKey) && !bad.body.includes(API_KEY));
  // Without a key in the body the stored one is used.
  const stored = await call(admin, 'POST', '/api/v1/ai/provider/test', { type: 'anthropic', model: MODEL, base_url: llm.url });
  assert.equal(stored.json<{ ok: boolean }>().ok, true, stored.body);
  assert.ok(!JSON.stringify(gw.logs()).includes(API_KEY), 'the key is in no log line');
  assert.deepEqual(
    llm.refused.filter((e) => e.type !== 'authentication_error'),
    [],
    'the API refused no request',
  );
});

test('a conversation with a tool call: tool_use goes to the tool, its result back as a tool_result, the answer streams', async () => {
  const id = await newConversation(editor);
  const events = await send(editor, id, 'please list my flows');
  assert.deepEqual(
    events.map((e) => e.event).filter((n) => n !== 'text'),
    ['tool_call', 'tool_result', 'end'],
    JSON.stringify(events),
  );
  const callEv = events.find((e) => e.event === 'tool_call')!.data;
  assert.deepEqual([callEv.name, callEv.arguments], ['list_flows', { namespace: 'team' }]);
  const result = events.find((e) => e.event === 'tool_result')!.data;
  assert.equal(result.ok, true);
  assert.deepEqual(
    result.result.items.map((f: { id: string }) => f.id),
    ['load'],
  );
  assert.equal(
    events
      .filter((e) => e.event === 'text')
      .map((e) => e.data.delta)
      .join(''),
    'Done: 1 tool result(s).',
  );
  assert.equal(events.at(-1)!.data.stop_reason, 'end_turn');

  // What the model got on its second call: its own tool_use, then the result in the next (user) message.
  const second = llm.requests.at(-1)!;
  assert.match(systemOf(second), /assistant of svc/, 'the system prompt goes as the top-level system');
  assert.deepEqual(
    second.body.messages.map((m) => m.role),
    ['user', 'assistant', 'user'],
  );
  const use = blocks(second.body.messages[1]).find((b) => b.type === 'tool_use') as { id: string; name: string; input: unknown };
  assert.equal(use.name, 'list_flows');
  assert.deepEqual(use.input, { namespace: 'team' });
  const res = blocks(second.body.messages[2]).find((b) => b.type === 'tool_result') as { tool_use_id: string; content: string };
  assert.equal(res.tool_use_id, use.id);
  assert.match(String(res.content), /"id":"load"/);
  assert.ok(second.body.tools!.some((t) => t.name === 'save_flow' && t.input_schema.type === 'object'));

  const conv = (await call(editor, 'GET', `/api/v1/ai/conversations/${id}`)).json<{ messages: { role: string }[] }>();
  assert.deepEqual(
    conv.messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'assistant'],
  );
  assert.deepEqual(
    llm.refused.filter((e) => e.type !== 'authentication_error'),
    [],
  );
});

test('parallel tool calls with text: both results go back in one message, results first; a later turn replays the history', async () => {
  const id = await newConversation(editor);
  const events = await send(editor, id, 'show me the flow and the schema');
  assert.deepEqual(
    events.map((e) => e.event).filter((n) => n !== 'text'),
    ['tool_call', 'tool_result', 'tool_call', 'tool_result', 'end'],
    JSON.stringify(events.map((e) => e.event)),
  );
  assert.ok(
    events.filter((e) => e.event === 'tool_result').every((e) => e.data.ok),
    JSON.stringify(events),
  );
  const text = events
    .filter((e) => e.event === 'text')
    .map((e) => e.data.delta)
    .join('');
  assert.equal(text, 'Let me look at both.Done: 2 tool result(s).');
  const second = llm.requests.at(-1)!;
  assert.deepEqual(
    second.body.messages.map((m) => m.role),
    ['user', 'assistant', 'user'],
  );
  assert.deepEqual(
    blocks(second.body.messages[1]).map((b) => b.type),
    ['text', 'tool_use', 'tool_use'],
  );
  assert.deepEqual(
    blocks(second.body.messages[2]).map((b) => b.type),
    ['tool_result', 'tool_result'],
  );

  // The next turn sends the whole conversation again, in a shape the API accepts.
  const events2 = await send(editor, id, 'thanks, hello again');
  assert.deepEqual(
    events2.map((e) => e.event).filter((n) => n !== 'text'),
    ['end'],
    JSON.stringify(events2),
  );
  assert.equal(events2.at(-1)!.data.stop_reason, 'end_turn');
  const third = llm.requests.at(-1)!;
  assert.deepEqual(
    third.body.messages.map((m) => m.role),
    ['user', 'assistant', 'user', 'assistant', 'user'],
  );
  assert.deepEqual(
    llm.refused.filter((e) => e.type !== 'authentication_error'),
    [],
  );
});

test('a proposed flow change through Anthropic runs only when confirmed', async () => {
  const id = await newConversation(editor);
  const events = await send(editor, id, 'add a second task to load');
  const proposed = events.find((e) => e.event === 'action_proposed')?.data;
  assert.ok(proposed, JSON.stringify(events));
  assert.equal(proposed.tool, 'save_flow');
  assert.match(proposed.diff, /\+  - \{id: b, type: command/);
  // The model was told it is only proposed.
  const res = blocks(llm.requests.at(-1)!.body.messages.at(-1)).find((b) => b.type === 'tool_result') as { content: string };
  assert.match(String(res.content), /"proposed":true/);
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/team/file?path=flows/load.flow.yaml')).json<{ content: string }>().content, FLOW, 'nothing changed yet');
  const ok = await call(editor, 'POST', `/api/v1/ai/conversations/${id}/actions/${proposed.id}/confirm`);
  assert.equal(ok.status, 200, ok.body);
  assert.equal(ok.json<{ status: string }>().status, 'succeeded');
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/team/file?path=flows/load.flow.yaml')).json<{ content: string }>().content, NEW_FLOW);
  assert.deepEqual(
    llm.refused.filter((e) => e.type !== 'authentication_error'),
    [],
  );
});

test('triage through Anthropic: the prompt in the system field, the insight with cause, fix and cited evidence', async () => {
  const r = await call(operator, 'POST', '/api/v1/executions/ex-an/insights');
  assert.equal(r.status, 202, r.body);
  let insight:
    { state: string; summary: string; probable_cause: string; suggested_fix: string; model: string; evidence: { id: string; kind: string; cited: boolean }[] } | undefined;
  for (let i = 0; i < 300; i++) {
    insight = (await call(viewer, 'GET', '/api/v1/executions/ex-an/insights')).json<{ items: NonNullable<typeof insight>[] }>().items[0];
    if (insight?.state === 'done' || insight?.state === 'failed') break;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.equal(insight?.state, 'done', JSON.stringify(insight));
  assert.equal(insight.summary, 'Task a exited 2: psql could not connect');
  assert.equal(insight.probable_cause, 'The database host is down');
  assert.equal(insight.suggested_fix, 'Check the db host');
  assert.equal(insight.model, MODEL);
  assert.deepEqual(
    insight.evidence.filter((e) => e.cited).map((e) => e.kind),
    ['task_run'],
  );
  const req = llm.requests.find((q) => systemOf(q).includes('You triage'))!;
  assert.deepEqual(
    req.body.messages.map((m) => m.role),
    ['user'],
    'only the evidence as the user message',
  );
  assert.match(lastUserText(req), /psql: could not connect to server: Connection refused/);
  assert.equal(req.body.max_tokens, 1024);
  assert.deepEqual(
    llm.refused.filter((e) => e.type !== 'authentication_error'),
    [],
  );
});

test('a turn cut short after the model called a tool: the next turn still goes through (the call gets an error result)', async () => {
  const id = await newConversation(editor);
  // As left by a gateway stopped between storing the model's tool call and the tool's result.
  await gw.db.pool.query(
    `INSERT INTO ai_messages (id, conversation_id, seq, role, content, parts) VALUES ('m-cut-1', $1, 1, 'user', 'please list my flows', '[]'),
       ('m-cut-2', $1, 2, 'assistant', '', $2)`,
    [id, JSON.stringify([{ type: 'tool_call', id: 'toolu_cut_0', name: 'list_flows', arguments: '{"namespace":"team"}' }])],
  );
  const events = await send(editor, id, 'hello after the cut');
  assert.deepEqual(
    events.map((e) => e.event).filter((n) => n !== 'text'),
    ['end'],
    JSON.stringify(events),
  );
  assert.equal(events.at(-1)!.data.stop_reason, 'end_turn');
  const req = llm.requests.at(-1)!;
  assert.deepEqual(
    req.body.messages.map((m) => m.role),
    ['user', 'assistant', 'user'],
  );
  assert.deepEqual(
    blocks(req.body.messages[2]).map((b) => b.type),
    ['tool_result', 'text'],
  );
  assert.deepEqual(
    llm.refused.filter((e) => e.type !== 'authentication_error'),
    [],
  );
});

test('the API failing mid-stream (an error event): the turn ends with error then end, the partial answer is not stored, the next turn works', async () => {
  const id = await newConversation(editor);
  const events = await send(editor, id, 'this one will overload');
  const names = events.map((e) => e.event);
  assert.deepEqual(
    names.filter((n) => n !== 'text'),
    ['error', 'end'],
    JSON.stringify(events),
  );
  assert.equal(events.find((e) => e.event === 'error')!.data.code, 'provider_error');
  assert.match(events.find((e) => e.event === 'error')!.data.message, /overloaded/i);
  assert.equal(events.at(-1)!.data.stop_reason, 'error');
  assert.ok(!JSON.stringify(events).includes(API_KEY));
  const conv = (await call(editor, 'GET', `/api/v1/ai/conversations/${id}`)).json<{ messages: { role: string }[] }>();
  assert.deepEqual(
    conv.messages.map((m) => m.role),
    ['user'],
  );
  const next = await send(editor, id, 'hello again');
  assert.equal(next.at(-1)!.data.stop_reason, 'end_turn', JSON.stringify(next));
  // Two user messages in a row go as one user message with two text blocks.
  assert.deepEqual(
    llm.requests.at(-1)!.body.messages.map((m) => [m.role, blocks(m).length]),
    [['user', 2]],
  );
  assert.deepEqual(
    llm.refused.filter((e) => e.type !== 'authentication_error'),
    [],
  );
});
