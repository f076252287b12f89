// The AI and MCP masker takes its scope from server facts only:
// the record the operation named (an execution's namespace read from the
// database, the namespace of the path), never a `namespace` key in the data.
// An execution of team-a whose webhook body is
// `{"namespace": "team-b", "g": [<team-b's secret>, <a decoy>]}`, read over
// MCP and through the assistant's tools by a user of global role `none`
// bound editor on team-a: the team-b secret comes back exactly as the decoy
// does (no oracle), while team-a's own secret in the same execution stays
// masked. An argument a tool does not pass to its operation (a `namespace`
// on get_execution) and a refused call on team-b widen nothing either.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';
import { aiClient } from './ai-helpers.js';
import { startOpenAIStandin, type Answer, type Standin, type StandinRequest } from '../../../e2e/test/openai-standin.js';

const A_SECRET = 'team-a-secret-' + crypto.randomBytes(10).toString('hex');
const B_SECRET = 'team-b-secret-' + crypto.randomBytes(10).toString('hex');
const DECOY = 'team-b-guess-' + crypto.randomBytes(10).toString('hex');

let gw: TestGateway;
let llm: Standin;
let admin: string, bound: string;

function decide(r: StandinRequest): Answer {
  if (!r.body.tools) return { text: 'ok' };
  const msgs = r.body.messages;
  if (msgs[msgs.length - 1]!.role === 'tool') return { text: 'Read.' };
  return {
    toolCalls: [
      { name: 'get_execution', arguments: { execution_id: 'ex-team-a' } },
      // An argument get_execution does not take: it names no scope.
      { name: 'get_execution', arguments: { execution_id: 'ex-team-a', namespace: 'team-b' } },
      { name: 'list_executions', arguments: {} },
      { name: 'list_executions', arguments: { namespace: 'team-a' } },
      // Refused (403): its error is masked with no namespace's secrets.
      { name: 'get_flow', arguments: { namespace: 'team-b', flow_id: B_SECRET } },
      { name: 'get_flow', arguments: { namespace: 'team-b', flow_id: DECOY } },
    ],
  };
}

const { call, turn, newConversation } = aiClient(() => gw);

/** The guess and the decoy come back alike; team-a's secret does not come back at all. */
function assertNoOracle(where: string, text: string) {
  assert.ok(text.includes(DECOY), `${where}: the decoy is shown (${text.slice(0, 300)})`);
  assert.ok(text.includes(B_SECRET), `${where}: team-b's secret is shown as the decoy is, not masked`);
  assert.equal(text.split(B_SECRET).length, text.split(DECOY).length, `${where}: as often as the decoy`);
  assert.ok(!text.includes(A_SECRET), `${where}: team-a's secret is masked`);
}

before(async () => {
  llm = await startOpenAIStandin(decide);
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: `k1:${crypto.randomBytes(32).toString('base64')}` } });
  await makeUser(gw, 'root@example.com', 'admin');
  await makeUser(gw, 'bound@example.com', 'none');
  admin = await makeToken(gw, await login(gw, 'root@example.com'), 'admin');
  for (const name of ['team-a', 'team-b']) assert.equal((await call(admin, 'POST', '/api/v1/namespaces', { name })).status, 201);
  assert.equal((await call(admin, 'PUT', '/api/v1/namespaces/team-a/secrets/A', { value: A_SECRET })).status, 200);
  assert.equal((await call(admin, 'PUT', '/api/v1/namespaces/team-b/secrets/B', { value: B_SECRET })).status, 200);
  assert.equal((await call(admin, 'POST', '/api/v1/role-bindings', { namespace: 'team-a', user: 'bound@example.com', role: 'editor' })).status, 201);
  bound = await makeToken(gw, await login(gw, 'bound@example.com'), 'editor');
  // A webhook of team-a received a body naming team-b with guesses; the run printed team-a's secret into its error.
  await gw.db.pool.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes) VALUES ('snap-a', 'team-a', 'h', 0, 0)`);
  await gw.db.pool.query(
    `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, inputs, created_by, trigger_type, trigger_payload, created_at, ended_at, error, secret_keys_used)
     VALUES ('ex-team-a', 'FAILED', 'team-a', 'hook', 'snap-a', '{"id":"hook","tasks":[]}', $1, 'webhook', 'webhook', $2, now() - interval '1 minute', now() - interval '1 minute', $3, '{A}')`,
    [
      JSON.stringify({ namespace: 'team-b', guess: B_SECRET, decoy: DECOY }),
      JSON.stringify({ body: { namespace: 'team-b', g: [B_SECRET, DECOY], nested: { namespace: 'team-b', id: 'ex-team-a', v: `${B_SECRET} ${DECOY}` } }, headers: {} }),
      `failed with ${A_SECRET}`,
    ],
  );
  assert.equal((await call(admin, 'PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-1', base_url: llm.url })).status, 200);
});

after(async () => {
  await gw?.close();
  await llm?.close();
});

test('the bound user reads the execution over /api/v1 with the guesses as given (the baseline)', async () => {
  const r = await call(bound, 'GET', '/api/v1/executions/ex-team-a');
  assert.equal(r.status, 200, r.body);
  assert.ok(r.body.includes(B_SECRET) && r.body.includes(DECOY));
  assert.equal((await call(bound, 'GET', '/api/v1/executions?namespace=team-b')).status, 403);
});

test("over MCP: a namespace key in the data does not pick team-b's secrets; team-a's stay masked", async () => {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bound}` } } }));
  try {
    const exec = JSON.stringify(await client.callTool({ name: 'get_execution', arguments: { execution_id: 'ex-team-a' } }));
    assertNoOracle('MCP get_execution', exec);
    assert.match(exec, /failed with \*\*\*/);
    for (const args of [{}, { namespace: 'team-a' }]) {
      const list = JSON.stringify(await client.callTool({ name: 'list_executions', arguments: args }));
      assertNoOracle(`MCP list_executions ${JSON.stringify(args)}`, list);
      assert.match(list, /failed with \*\*\*/, 'each listed execution masked with its own scope');
    }
    // A refused call on team-b: its error reads the same for the secret and for the decoy.
    const refused = await Promise.all(
      [B_SECRET, DECOY].map(async (flow_id) => JSON.stringify(await client.callTool({ name: 'get_flow', arguments: { namespace: 'team-b', flow_id } }))),
    );
    assert.match(refused[0]!, /"isError":true/);
    assert.equal(refused[0]!.split(B_SECRET).join('<guess>'), refused[1]!.split(DECOY).join('<guess>'), 'the same error for both');
  } finally {
    await client.close();
  }
});

test("through the assistant's tools, the event stream and the stored conversation: no oracle on team-b, team-a masked", async () => {
  const id = await newConversation(bound);
  const t = await turn(bound, id, 'what happened to ex-team-a?');
  const results = t.events.filter((e) => e.event === 'tool_result');
  assert.deepEqual(
    results.map((e) => [e.data.name, e.data.ok]),
    [
      ['get_execution', true],
      ['get_execution', true],
      ['list_executions', true],
      ['list_executions', true],
      ['get_flow', false],
      ['get_flow', false],
    ],
    t.raw,
  );
  for (const [i, r] of results.slice(0, 4).entries()) {
    const text = JSON.stringify(r.data.result);
    assertNoOracle(`tool result ${i} (${r.data.name})`, text);
    assert.match(text, /failed with \*\*\*/);
  }
  const [secretError, decoyError] = results.slice(4).map((r) => JSON.stringify(r.data.error));
  assert.equal(secretError!.split(B_SECRET).join('<guess>'), decoyError!.split(DECOY).join('<guess>'));
  assert.ok(!t.raw.includes(A_SECRET), 'the event stream');
  const conv = await call(bound, 'GET', `/api/v1/ai/conversations/${id}`);
  assert.equal(conv.status, 200);
  assertNoOracle('the stored conversation', conv.body);
  const replayed = JSON.stringify(llm.requests.map((r) => r.body));
  assertNoOracle('the model requests', replayed);
});
