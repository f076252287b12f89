// Role bindings on the MCP surface, which runs operations through
// the gateway's in-process invoker and so through the same role check as
// /api/v1: a global viewer bound as operator on `team` is offered the
// operator tools (trigger_flow) and may trigger a flow of `team.etl`, and is
// refused one of `other`; a plain viewer is offered no operator tool.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';

let gw: TestGateway;
let bound = '';
let plain = '';

async function mcp(token: string) {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

before(async () => {
  gw = await startTestGateway();
  await makeUser(gw, 'root@example.com', 'admin');
  const admin = await makeToken(gw, await login(gw, 'root@example.com'), 'admin');
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${gw.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  for (const ns of ['team', 'team.etl', 'other']) {
    assert.equal((await api('POST', '/api/v1/namespaces', { name: ns })).status, 201);
    const saved = await api('POST', `/api/v1/namespaces/${ns}/changes`, {
      message: 'f',
      changes: [{ op: 'put', path: 'f.flow.yaml', content: JSON.stringify({ id: 'f', tasks: [{ id: 't', type: 'command', command: ['true'] }] }) }],
    });
    assert.equal(saved.status, 201);
  }
  await makeUser(gw, 'bound@example.com', 'viewer');
  await makeUser(gw, 'plain@example.com', 'viewer');
  assert.equal((await api('POST', '/api/v1/role-bindings', { namespace: 'team', user: 'bound@example.com', role: 'operator' })).status, 201);
  bound = await makeToken(gw, await login(gw, 'bound@example.com'), 'operator');
  plain = await makeToken(gw, await login(gw, 'plain@example.com'), 'viewer');
});
after(async () => {
  await gw?.close();
});

test('MCP tools follow the role bindings: offered where a binding allows them, refused on other namespaces', async () => {
  const client = await mcp(bound);
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('trigger_flow'), names.join(','));
  assert.ok(!names.includes('save_flow'), 'editor tools stay hidden');
  const ok = await client.callTool({ name: 'trigger_flow', arguments: { namespace: 'team.etl', flow_id: 'f' } });
  assert.ok(!ok.isError, JSON.stringify(ok));
  const refused = await client.callTool({ name: 'trigger_flow', arguments: { namespace: 'other', flow_id: 'f' } });
  assert.equal(refused.isError, true);
  const error = JSON.parse((refused.content as { text: string }[])[0]!.text).error as { status: number; code: string };
  assert.deepEqual([error.status, error.code], [403, 'forbidden']);
  await client.close();

  const viewer = await mcp(plain);
  assert.ok(!(await viewer.listTools()).tools.map((t) => t.name).includes('trigger_flow'));
  await viewer.close();
});
