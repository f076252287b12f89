// Assistant and MCP tool results are masked against the secret values again,
// whatever is stored: a task printed and output a token (its log lines, its
// outputs, its error and the execution's error hold the value, as they do
// when the value became a secret only after the run), and a namespace file has
// it written in. The assistant reads all of it through its tools: the value
// reaches neither the model's requests, nor the turn's event stream, nor the
// stored conversation and its pending actions (a proposed change's diff
// included), nor the gateway's log; an MCP client's log read is masked too.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';
import { aiClient } from './ai-helpers.js';
import { startOpenAIStandin, type Answer, type Standin, type StandinRequest } from '../../../e2e/test/openai-standin.js';

const TOKEN = 'tok-' + crypto.randomBytes(12).toString('hex');
const GLOBAL = 'glob-' + crypto.randomBytes(12).toString('hex');

let gw: TestGateway;
let llm: Standin;
let admin: string, editor: string, operator: string;

function decide(r: StandinRequest): Answer {
  if (!r.body.tools) return { text: 'ok' };
  const msgs = r.body.messages;
  const last = msgs[msgs.length - 1]!;
  if (last.role === 'tool') return { text: 'I read it all.' };
  const u = [...msgs].reverse().find((m) => m.role === 'user')?.content ?? '';
  if (u.includes('why did it fail')) {
    return {
      toolCalls: [
        { name: 'read_logs', arguments: { execution_id: 'ex-leak' } },
        { name: 'get_execution', arguments: { execution_id: 'ex-leak' } },
        { name: 'read_file', arguments: { namespace: 'team', path: 'notes/creds.txt' } },
        { name: 'list_executions', arguments: { namespace: 'team' } },
      ],
    };
  }
  if (u.includes('add a line to the notes'))
    return { toolCalls: [{ name: 'save_flow', arguments: { namespace: 'team', path: 'notes/creds.txt', content: 'token=***\nother=***\nowner=ops\n', message: 'Owner' } }] };
  if (u.includes('change the token line'))
    return { toolCalls: [{ name: 'save_flow', arguments: { namespace: 'team', path: 'notes/creds.txt', content: 'token=***-v2\nother=***\n', message: 'v2' } }] };
  if (u.includes('rotate the notes'))
    return {
      toolCalls: [
        { name: 'save_flow', arguments: { namespace: 'team', path: 'notes/creds.txt', content: 'token=(rotated, see the secret API_TOKEN)\n', message: 'No token in notes' } },
      ],
    };
  return { text: 'Hello' };
}

const { call, turn: send } = aiClient(() => gw);

/** Everything the value could have reached, as text. */
async function everywhere(conversationId: string): Promise<Record<string, string>> {
  const q = async (sql: string) => JSON.stringify((await gw.db.pool.query(sql, [conversationId])).rows);
  return {
    model_requests: JSON.stringify(llm.requests),
    conversation_api: (await call(editor, 'GET', `/api/v1/ai/conversations/${conversationId}`)).body,
    stored_messages: await q(`SELECT * FROM ai_messages WHERE conversation_id = $1`),
    stored_actions: await q(`SELECT * FROM ai_pending_actions WHERE conversation_id = $1`),
    gateway_log: JSON.stringify(gw.logs()),
  };
}

function assertNoSecret(where: Record<string, string>) {
  for (const [name, text] of Object.entries(where)) {
    assert.ok(!text.includes(TOKEN), `the namespace secret's value reached ${name}`);
    assert.ok(!text.includes(GLOBAL), `the global secret's value reached ${name}`);
  }
}

before(async () => {
  llm = await startOpenAIStandin(decide);
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: `k1:${crypto.randomBytes(32).toString('base64')}` } });
  await makeUser(gw, 'root@example.com', 'admin');
  await makeUser(gw, 'ed@example.com', 'editor');
  await makeUser(gw, 'op@example.com', 'operator');
  admin = await makeToken(gw, await login(gw, 'root@example.com'), 'admin');
  editor = await makeToken(gw, await login(gw, 'ed@example.com'), 'editor');
  operator = await makeToken(gw, await login(gw, 'op@example.com'), 'operator');
  assert.equal((await call(admin, 'POST', '/api/v1/namespaces', { name: 'team' })).status, 201);
  assert.equal(
    (
      await call(editor, 'POST', '/api/v1/namespaces/team/changes', {
        message: 'notes',
        changes: [{ op: 'put', path: 'notes/creds.txt', content: `token=${TOKEN}\nother=${GLOBAL}\n` }],
      })
    ).status,
    201,
  );

  // A run whose task printed and output the token (stored as it was: the value was made a secret only after the run).
  await gw.db.pool.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes) VALUES ('snap-leak', 'team', 'h', 0, 0)`);
  await gw.db.pool.query(
    `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, created_at, ended_at, error)
     VALUES ('ex-leak', 'FAILED', 'team', 'fetch', 'snap-leak', $1, 'test', 'manual', now() - interval '1 hour', now() - interval '1 hour', $2)`,
    [JSON.stringify({ id: 'fetch', tasks: [{ id: 'get', type: 'command', command: ['curl', '-H', `Authorization: ${TOKEN}`] }] }), `task get failed: 401 for token ${TOKEN}`],
  );
  await gw.db.pool.query(
    `INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, pool, state, attempt, reason, error, exit_code, outputs)
     VALUES ('tr-leak', 'ex-leak', 'get', 'command', 'process', 'default', 'FAILED', 1, 'exit_code', $1, 22, $2)`,
    [
      `curl: (22) 401 with ${TOKEN}`,
      JSON.stringify({ token: TOKEN, nested: { url: `https://api.example.com/?t=${encodeURIComponent(TOKEN)}`, [TOKEN]: 'as a key' }, other: GLOBAL }),
    ],
  );
  for (const [i, text] of ['fetching', `token is ${TOKEN}`, `{"auth":"${TOKEN}","global":"${GLOBAL}"}`, 'HTTP 401'].entries()) {
    await gw.db.pool.query(
      `INSERT INTO log_lines (task_run_id, n, execution_id, task_key, attempt, ts, stream, text, seq) VALUES ('tr-leak', $1, 'ex-leak', 'get', 1, $2, 'stdout', $3, $4)`,
      [i + 1, String(1_700_000_000_000_000_000n + BigInt(i)), text, i + 1],
    );
  }
  // Now the values are secrets: one of the namespace, one global.
  assert.equal((await call(editor, 'PUT', '/api/v1/namespaces/team/secrets/API_TOKEN', { value: TOKEN })).status, 200);
  assert.equal((await call(admin, 'PUT', '/api/v1/secrets/OTHER', { value: GLOBAL })).status, 200);
  assert.equal((await call(admin, 'PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-1', base_url: llm.url })).status, 200);
});

after(async () => {
  await gw?.close();
  await llm?.close();
});

test('tool results read by the assistant are masked before the model, the event stream, the stored conversation and the log', async () => {
  const c = await call(editor, 'POST', '/api/v1/ai/conversations', {});
  assert.equal(c.status, 201, c.body);
  const id = c.json<{ id: string }>().id;
  const turn = await send(editor, id, 'why did it fail?');
  const results = turn.events.filter((e) => e.event === 'tool_result');
  assert.deepEqual(
    results.map((e) => [e.data.name, e.data.ok]),
    [
      ['read_logs', true],
      ['get_execution', true],
      ['read_file', true],
      ['list_executions', true],
    ],
    turn.raw,
  );
  assert.equal(turn.events.at(-1)!.data.stop_reason, 'end_turn');
  assertNoSecret({ event_stream: turn.raw, ...(await everywhere(id)) });

  // The tools did read the leaking text: it is there, masked.
  const [logs, exec, file] = results.map((e) => JSON.stringify(e.data.result));
  assert.match(logs!, /token is \*\*\*/);
  assert.match(logs!, /\{\\"auth\\":\\"\*\*\*\\",\\"global\\":\\"\*\*\*\\"\}/);
  assert.match(exec!, /401 for token \*\*\*/);
  assert.match(exec!, /curl: \(22\) 401 with \*\*\*/);
  assert.match(file!, /token=\*\*\*\\nother=\*\*\*/);
  const toolMessages = llm.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool');
  assert.equal(toolMessages.length, 4);
  assert.match(String(toolMessages[0]!.content), /token is \*\*\*/);
});

test('a proposed change to a file holding a secret: the diff shows the line changing, masked', async () => {
  const c = await call(editor, 'POST', '/api/v1/ai/conversations', {});
  const id = c.json<{ id: string }>().id;
  const turn = await send(editor, id, 'rotate the notes please');
  const proposed = turn.events.find((e) => e.event === 'action_proposed')?.data;
  assert.ok(proposed, turn.raw);
  assert.match(proposed.diff, /^-token=\*\*\*$/m);
  assert.match(proposed.diff, /^\+token=\(rotated, see the secret API_TOKEN\)$/m);
  assertNoSecret({ event_stream: turn.raw, ...(await everywhere(id)) });
  const ok = await call(editor, 'POST', `/api/v1/ai/conversations/${id}/actions/${proposed.id}/confirm`);
  assert.equal(ok.status, 200, ok.body);
  assertNoSecret({ confirm: ok.body, ...(await everywhere(id)) });
});

test('a proposed change that copies the masked lines it read keeps their secret values; one that would write *** over a value is refused', async () => {
  const fileNow = async () => (await call(editor, 'GET', '/api/v1/namespaces/team/file?path=notes/creds.txt')).json<{ content: string }>().content;
  assert.equal(
    (
      await call(editor, 'POST', '/api/v1/namespaces/team/changes', {
        message: 'notes again',
        changes: [{ op: 'put', path: 'notes/creds.txt', content: `token=${TOKEN}\nother=${GLOBAL}\n` }],
      })
    ).status,
    201,
  );
  const c = await call(editor, 'POST', '/api/v1/ai/conversations', {});
  const id = c.json<{ id: string }>().id;

  // The model read `token=***` and `other=***` and wrote them back with a new line.
  const turn = await send(editor, id, 'add a line to the notes');
  const proposed = turn.events.find((e) => e.event === 'action_proposed')?.data;
  assert.ok(proposed, turn.raw);
  assert.match(proposed.diff, /^\+owner=ops$/m);
  assert.doesNotMatch(proposed.diff, /^[-+](token|other)=/m, 'the copied lines are not changes');
  assert.match(JSON.stringify(proposed.arguments), /token=\*\*\*/, 'what is shown and stored stays masked');
  assertNoSecret({ event_stream: turn.raw, ...(await everywhere(id)) });
  const ok = await call(editor, 'POST', `/api/v1/ai/conversations/${id}/actions/${proposed.id}/confirm`);
  assert.equal(ok.status, 200, ok.body);
  assertNoSecret({ confirm: ok.body, ...(await everywhere(id)) });
  assert.equal(await fileNow(), `token=${TOKEN}\nother=${GLOBAL}\nowner=ops\n`, 'saved with the real values');

  // A changed line with *** in it cannot be restored: no action is proposed, the model is told why.
  const bad = await send(editor, id, 'change the token line');
  assert.ok(!bad.events.some((e) => e.event === 'action_proposed'), bad.raw);
  const result = bad.events.find((e) => e.event === 'tool_result')!.data;
  assert.equal(result.ok, false);
  assert.match(result.error.message, /line 1 would write \*\*\* where the file holds a secret value/);
  assert.equal(await fileNow(), `token=${TOKEN}\nother=${GLOBAL}\nowner=ops\n`, 'unchanged');
  assertNoSecret({ event_stream: bad.raw, ...(await everywhere(id)) });
});

test('a proposed save confirmed after the file changed: a masked line that no longer matches refuses the save (409)', async () => {
  const c = await call(editor, 'POST', '/api/v1/ai/conversations', {});
  const id = c.json<{ id: string }>().id;
  assert.equal(
    (
      await call(editor, 'POST', '/api/v1/namespaces/team/changes', {
        message: 'reset',
        changes: [{ op: 'put', path: 'notes/creds.txt', content: `token=${TOKEN}\nother=${GLOBAL}\n` }],
      })
    ).status,
    201,
  );
  const turn = await send(editor, id, 'add a line to the notes');
  const proposed = turn.events.find((e) => e.event === 'action_proposed')!.data;
  // Someone rewrites the token line before the confirmation.
  assert.equal(
    (
      await call(editor, 'POST', '/api/v1/namespaces/team/changes', {
        message: 'edit',
        changes: [{ op: 'put', path: 'notes/creds.txt', content: `token: ${TOKEN}\nother=${GLOBAL}\n` }],
      })
    ).status,
    201,
  );
  const r = await call(editor, 'POST', `/api/v1/ai/conversations/${id}/actions/${proposed.id}/confirm`);
  assert.equal(r.status, 409, r.body);
  assert.equal(r.json<{ error: { code: string } }>().error.code, 'conflict');
  assert.ok(!r.body.includes(TOKEN));
  const content = (await call(editor, 'GET', '/api/v1/namespaces/team/file?path=notes/creds.txt')).json<{ content: string }>().content;
  assert.equal(content, `token: ${TOKEN}\nother=${GLOBAL}\n`, 'nothing saved');
});

test('MCP tool results are masked too', async () => {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${operator}` } } }));
  try {
    const logs = await client.callTool({ name: 'read_logs', arguments: { execution_id: 'ex-leak' } });
    assert.ok(!logs.isError, JSON.stringify(logs));
    const exec = await client.callTool({ name: 'get_execution', arguments: { execution_id: 'ex-leak' } });
    const text = JSON.stringify([logs, exec]);
    assert.match(text, /token is \*\*\*/);
    assert.ok(!text.includes(TOKEN) && !text.includes(GLOBAL), 'no secret value in an MCP tool result');
  } finally {
    await client.close();
  }
});

test('a value made a secret after a turn stored it: masked when the conversation is read and when it is replayed to the model', async () => {
  const late = 'late-' + crypto.randomBytes(12).toString('hex');
  await gw.db.pool.query(
    `INSERT INTO log_lines (task_run_id, n, execution_id, task_key, attempt, ts, stream, text, seq) VALUES ('tr-leak', 5, 'ex-leak', 'get', 1, '1700000000000000009', 'stdout', $1, 5)`,
    [`new token ${late}`],
  );
  const c = await call(editor, 'POST', '/api/v1/ai/conversations', {});
  const id = c.json<{ id: string }>().id;
  const turn = await send(editor, id, 'why did it fail this time?');
  assert.ok(turn.raw.includes(`new token ${late}`), 'not a secret yet: shown as it is');
  assert.equal((await call(editor, 'PUT', '/api/v1/namespaces/team/secrets/LATE', { value: late })).status, 200);
  const conv = await call(editor, 'GET', `/api/v1/ai/conversations/${id}`);
  assert.equal(conv.status, 200);
  assert.ok(!conv.body.includes(late), 'masked when read');
  assert.match(conv.body, /new token \*\*\*/);
  const before = llm.requests.length;
  const next = await send(editor, id, 'hello');
  assert.ok(!next.raw.includes(late));
  const replayed = JSON.stringify(llm.requests.slice(before));
  assert.ok(!replayed.includes(late), 'masked when replayed to the model');
  assert.match(replayed, /new token \*\*\*/);
});
