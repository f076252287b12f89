// The global role `none`: a user below viewer, bound as viewer to
// `red`, reads `red` and its child `red.sub` and nothing of `blue`, on every
// surface: the lists (paged in SQL, so every page is full and the cursor walk
// returns each of its items once), the live streams of executions, the MCP
// tools and the AI assistant's tools (a local OpenAI-compatible stand-in
// drives the assistant), with its session and with its API token alike, and
// the dashboard over red and red.sub. A global viewer still reads
// everything, as before.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startOpenAIStandin, type Answer, type Standin, type StandinRequest } from './openai-standin.js';
import { startStack, type Stack } from './stack.js';
import { flow, sh } from './engine-support.js';

let s: Stack;
let llm: Standin;
/** Credentials of the `none` user: its session cookie and its token. */
let noneCookie = '';
let noneToken = '';
let viewerToken = '';
/** Execution ids per namespace, newest first. */
const executions: Record<'red' | 'red.sub' | 'blue', string[]> = { red: [], 'red.sub': [], blue: [] };

function decide(r: StandinRequest): Answer {
  if (!r.body.tools) return { text: 'ok' };
  const msgs = r.body.messages;
  if (msgs[msgs.length - 1]!.role === 'tool') return { text: 'Here they are.' };
  const asked = [...msgs].reverse().find((m) => m.role === 'user')?.content ?? '';
  if (asked.includes('blue'))
    return {
      toolCalls: [
        { name: 'get_flow', arguments: { namespace: 'blue', flow_id: 'f' } },
        { name: 'list_executions', arguments: { namespace: 'blue' } },
      ],
    };
  return {
    toolCalls: [
      { name: 'list_flows', arguments: {} },
      { name: 'list_executions', arguments: {} },
    ],
  };
}

async function login(email: string, password: string): Promise<string> {
  const r = await fetch(`${s.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  assert.equal(r.status, 200, email);
  return /svc_session=[^;]+/.exec(r.headers.get('set-cookie') ?? '')![0];
}

/** A request with the `none` user's session cookie or a bearer token. */
async function get(who: { cookie: string } | { token: string }, path: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = 'cookie' in who ? { cookie: who.cookie } : { authorization: `Bearer ${who.token}` };
  const r = await fetch(`${s.url}${path}`, { headers });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

/** Every item of a list, page by page of `limit`; the page sizes too. */
async function walk(who: { cookie: string } | { token: string }, path: string, limit: number): Promise<{ items: any[]; pages: number[] }> {
  const items: any[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await get(who, `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    items.push(...r.body.items);
    pages.push(r.body.items.length);
    cursor = r.body.next_cursor;
    if (!cursor) return { items, pages };
  }
  throw new Error(`${path}: more than 50 pages`);
}

/** One JSON-RPC request to /mcp (stateless streamable HTTP, JSON answers), as an MCP client sends it. */
async function mcp(token: string, method: string, params: Record<string, unknown>): Promise<any> {
  const r = await fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  assert.equal(r.status, 200, method);
  const body = (await r.json()) as { result?: unknown; error?: unknown };
  assert.ok(body.result, JSON.stringify(body));
  return body.result;
}

before(async () => {
  llm = await startOpenAIStandin(decide);
  // Its alert rules name a loopback receiver: an on-premise setting (SVC_ALERT_ALLOW_PRIVATE_TARGETS).
  s = await startStack({ env: { SVC_ALERT_ALLOW_PRIVATE_TARGETS: 'true' } });
  const counts = { red: 3, 'red.sub': 2, blue: 3 } as const;
  for (const ns of ['red', 'red.sub', 'blue'] as const) {
    await s.saveFlow(ns, {
      'f.flow.yaml': flow({ id: 'f', tasks: [{ id: 't', type: 'command', command: sh('true') }] }),
      // A schedule that does not fire while the test runs (New Year's midnight), for the upcoming schedules.
      'sched.flow.yaml': flow({ id: 'sched', triggers: [{ id: 'yearly', type: 'schedule', cron: '0 0 1 1 *' }], tasks: [{ id: 't', type: 'command', command: sh('true') }] }),
      'slow.flow.yaml': flow({ id: 'slow', tasks: [{ id: 't', type: 'command', command: sh('echo started; sleep 2; echo done') }] }),
    });
    for (let i = 0; i < counts[ns]; i++) {
      const e = await s.trigger(ns, 'f');
      await s.waitEnded(e.id, 60_000);
      executions[ns].unshift(e.id);
    }
    const rule = await s.api('POST', '/api/v1/alerts', {
      name: `r-${ns}`,
      namespace: ns,
      events: ['failed'],
      channels: [{ type: 'webhook', url: 'http://127.0.0.1:9/x', signing_secret: 'K' }],
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
  }
  const u = await s.api('POST', '/api/v1/users', { email: 'nobody@example.com', role: 'none', password: 'none password 1' });
  assert.equal(u.status, 201, JSON.stringify(u.body));
  assert.equal(u.body.role, 'none');
  assert.equal((await s.api('POST', '/api/v1/role-bindings', { namespace: 'red', user: 'nobody@example.com', role: 'viewer' })).status, 201);
  assert.equal((await s.api('POST', '/api/v1/users', { email: 'looker@example.com', role: 'viewer', password: 'viewer password 1' })).status, 201);
  noneCookie = await login('nobody@example.com', 'none password 1');
  const mint = async (cookie: string) => {
    const r = await fetch(`${s.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'mine' }),
    });
    assert.equal(r.status, 201);
    return ((await r.json()) as { secret: string }).secret;
  };
  noneToken = await mint(noneCookie);
  viewerToken = await mint(await login('looker@example.com', 'viewer password 1'));
});

after(async () => {
  await s?.stop();
  await llm?.close();
});

test('its account: getMe names the bound namespace, the account operations answer, admin reads do not', async () => {
  for (const who of [{ cookie: noneCookie }, { token: noneToken }]) {
    const me = await get(who, '/api/v1/auth/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.role, 'none');
    assert.deepEqual(me.body.role_bindings, [{ namespace: 'red', role: 'viewer' }]);
    assert.equal((await get(who, '/api/v1/tokens')).status, 200);
    for (const path of ['/api/v1/secrets', '/api/v1/variables', '/api/v1/git-sources', '/api/v1/users', '/api/v1/secret-providers']) {
      assert.equal((await get(who, path)).status, 403, path);
    }
    // The dashboard: over its namespaces without one (the last test reads its figures), or one of them.
    assert.equal((await get(who, '/api/v1/stats/dashboard')).status, 200);
    assert.equal((await get(who, '/api/v1/stats/dashboard?namespace=red')).status, 200);
    assert.equal((await get(who, '/api/v1/stats/dashboard?namespace=blue')).status, 403);
  }
});

test('every list shows only the bound namespace and its child, page by page', async () => {
  const redIds = [...executions.red, ...executions['red.sub']];
  for (const who of [{ cookie: noneCookie }, { token: noneToken }]) {
    const ns = await walk(who, '/api/v1/namespaces', 1);
    assert.deepEqual(
      ns.items.map((n) => n.name),
      ['red', 'red.sub'],
    );
    assert.deepEqual(ns.pages, [1, 1]);
    const flows = await walk(who, '/api/v1/flows', 1);
    assert.deepEqual(
      flows.items.map((f) => `${f.namespace}/${f.id}`),
      ['red/f', 'red/sched', 'red/slow', 'red.sub/f', 'red.sub/sched', 'red.sub/slow'],
    );
    assert.deepEqual(flows.pages, [1, 1, 1, 1, 1, 1]);
    const ex = await walk(who, '/api/v1/executions', 2);
    assert.deepEqual(ex.items.map((e) => e.id).sort(), [...redIds].sort(), 'each red execution once, no blue one');
    assert.deepEqual(ex.pages, [2, 2, 1], 'full pages: the filter is in the query, not after it');
    const sub = await walk(who, '/api/v1/executions?namespace=red.sub', 1);
    assert.deepEqual(
      sub.items.map((e) => e.id),
      executions['red.sub'],
    );
    assert.equal((await get(who, '/api/v1/executions?namespace=blue')).status, 403);
    assert.equal((await get(who, '/api/v1/flows?namespace=blue')).status, 403);
    const rules = await walk(who, '/api/v1/alerts', 1);
    assert.deepEqual(rules.items.map((r) => r.namespace).sort(), ['red', 'red.sub']);
    const upcoming = await walk(who, '/api/v1/schedules/upcoming', 1);
    for (const x of upcoming.items) assert.ok(x.namespace === 'red' || x.namespace === 'red.sub', x.namespace);
    // Reads of a blue record: refused like any other namespace it may not read.
    assert.equal((await get(who, `/api/v1/executions/${executions.blue[0]}`)).status, 403);
    assert.equal((await get(who, '/api/v1/flows/blue/f')).status, 403);
    assert.equal((await get(who, `/api/v1/executions/${executions.red[0]}`)).status, 200);
  }
  // A global viewer: every namespace, as before.
  const all = await walk({ token: viewerToken }, '/api/v1/executions', 3);
  assert.equal(all.items.length, 8);
  const names = (await walk({ token: viewerToken }, '/api/v1/namespaces', 10)).items.map((n) => n.name);
  for (const n of ['blue', 'red', 'red.sub']) assert.ok(names.includes(n), n);
});

test('with no binding, every list is empty: no namespace, flow, execution, alert rule or schedule', async () => {
  assert.equal((await s.api('POST', '/api/v1/users', { email: 'unbound@example.com', role: 'none', password: 'unbound password 1' })).status, 201);
  const who = { cookie: await login('unbound@example.com', 'unbound password 1') };
  for (const path of ['/api/v1/namespaces', '/api/v1/flows', '/api/v1/executions', '/api/v1/alerts', '/api/v1/schedules/upcoming']) {
    const r = await get(who, path);
    assert.equal(r.status, 200, path);
    assert.deepEqual(r.body.items, [], path);
  }
});

/** Reads a server-sent event stream until `until` matches what came, or `ms` passes. */
async function readStream(path: string, token: string, until: RegExp, ms: number): Promise<{ status: number; text: string }> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const r = await fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: ac.signal });
  let text = '';
  if (!r.ok || !r.body) {
    clearTimeout(timer);
    return { status: r.status, text: await r.text() };
  }
  try {
    const decoder = new TextDecoder();
    for await (const chunk of r.body) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      if (until.test(text)) break;
    }
  } catch {
    // Aborted at the deadline: what came is the answer.
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return { status: r.status, text };
}

test('live streams: the events and log lines of a bound execution arrive; a blue one is refused before any event', async () => {
  const red = await s.trigger('red.sub', 'slow');
  const blue = await s.trigger('blue', 'slow');
  const events = await readStream(`/api/v1/executions/${red.id}/events`, noneToken, /SUCCESS/, 30_000);
  assert.equal(events.status, 200);
  assert.match(events.text, new RegExp(red.id));
  assert.match(events.text, /SUCCESS/);
  const logs = await readStream(`/api/v1/executions/${red.id}/logs/stream`, noneToken, /done/, 30_000);
  assert.equal(logs.status, 200);
  assert.match(logs.text, /started/);
  for (const path of [`/api/v1/executions/${blue.id}/events`, `/api/v1/executions/${blue.id}/logs/stream`]) {
    const r = await readStream(path, noneToken, /./, 10_000);
    assert.equal(r.status, 403, path);
    assert.ok(!r.text.includes('event:'), 'no event before the refusal');
    assert.ok(!r.text.includes(blue.id), 'nothing of the blue execution');
  }
  await s.waitEnded(blue.id, 60_000);
});

test('MCP tools list and read only the bound namespaces', async () => {
  const names = ((await mcp(noneToken, 'tools/list', {})) as { tools: { name: string }[] }).tools.map((t) => t.name);
  assert.ok(names.includes('list_flows') && names.includes('list_executions'), names.join(','));
  assert.ok(!names.includes('trigger_flow'), 'a viewer binding offers no operator tool');
  type ToolResult = { isError?: boolean; content: { text: string }[] };
  const call = (name: string, args: Record<string, unknown>) => mcp(noneToken, 'tools/call', { name, arguments: args }) as Promise<ToolResult>;
  const text = (r: ToolResult) => r.content.map((c) => c.text).join('\n');
  const flows = await call('list_flows', {});
  assert.ok(!flows.isError, text(flows));
  assert.match(text(flows), /"namespace":\s*"red\.sub"/);
  assert.doesNotMatch(text(flows), /blue/);
  const ex = await call('list_executions', {});
  assert.ok(!ex.isError, text(ex));
  for (const id of executions.red) assert.ok(text(ex).includes(id), id);
  for (const id of executions.blue) assert.ok(!text(ex).includes(id), `blue execution ${id} listed`);
  const refused = await call('get_flow', { namespace: 'blue', flow_id: 'f' });
  assert.equal(refused.isError, true);
  assert.match(text(refused), /forbidden/);
});

test("the assistant's tools read only the bound namespaces", async () => {
  assert.equal((await s.api('PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-1', base_url: llm.url })).status, 200);
  const turn = async (content: string) => {
    const conv = await fetch(`${s.url}/api/v1/ai/conversations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${noneToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(conv.status, 201);
    const { id } = (await conv.json()) as { id: string };
    const r = await fetch(`${s.url}/api/v1/ai/conversations/${id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${noneToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content }),
    });
    assert.equal(r.status, 200);
    return r.text();
  };
  const mine = await turn('what are my flows and executions?');
  assert.match(mine, /event: tool_result/);
  assert.match(mine, /red\.sub/);
  for (const id of executions.red) assert.ok(mine.includes(id), id);
  assert.doesNotMatch(mine, /blue/);
  const theirs = await turn('show me blue');
  assert.match(theirs, /forbidden/);
  for (const id of executions.blue) assert.ok(!theirs.includes(id), `blue execution ${id} reached the stream`);
  const toModel = JSON.stringify(llm.requests.flatMap((q) => q.body.messages.filter((m) => m.role === 'tool')));
  for (const id of executions.blue) assert.ok(!toModel.includes(id), `blue execution ${id} reached the model`);
});

test('the dashboard without a namespace covers the bound namespace and its child only; a viewer still sees all', async () => {
  // A failure and a running execution in each namespace, on top of the successes above.
  const failed: Record<string, string> = {};
  const running: Record<string, string> = {};
  for (const ns of ['red', 'red.sub', 'blue'] as const) {
    await s.saveFlow(ns, {
      'broken.flow.yaml': flow({ id: 'broken', tasks: [{ id: 't', type: 'command', command: sh('exit 3') }] }),
      'hang.flow.yaml': flow({ id: 'hang', tasks: [{ id: 't', type: 'command', command: sh('sleep 120') }] }),
    });
    const f = await s.trigger(ns, 'broken');
    assert.equal((await s.waitEnded(f.id, 60_000)).state, 'FAILED');
    failed[ns] = f.id;
    running[ns] = (await s.trigger(ns, 'hang')).id;
  }
  for (const id of Object.values(running)) await s.waitFor(id, (e) => e.state === 'RUNNING', 60_000);

  type Dash = {
    kpis: Record<string, number | null>;
    buckets: { success: number; failed: number }[];
    running: { id: string; namespace: string }[];
    recent_failures: { id: string; namespace: string }[];
  };
  const dash = async (who: { cookie: string } | { token: string } | 'admin', query = '') => {
    const r = who === 'admin' ? await s.api('GET', `/api/v1/stats/dashboard?range=24h${query}`) : await get(who, `/api/v1/stats/dashboard?range=24h${query}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as Dash;
  };
  const red = await dash('admin', '&namespace=red');
  const all = await dash('admin');
  const blue = await dash('admin', '&namespace=blue');
  // What each side should count, read independently of the filter under test.
  assert.equal(red.kpis.executions, 3 + 2 + 1 + 1 + 1, 'red: the f runs, a slow run in red.sub, and a failure in red and red.sub');
  assert.equal(blue.kpis.executions, 3 + 1 + 1);
  assert.equal(all.kpis.executions, (red.kpis.executions ?? 0) + (blue.kpis.executions ?? 0));

  for (const who of [{ cookie: noneCookie }, { token: noneToken }]) {
    const d = await dash(who);
    assert.deepEqual(d.kpis, red.kpis, 'the KPIs of red and red.sub, nothing of blue');
    assert.equal(d.kpis.failed, 2);
    assert.equal(d.kpis.running, 2);
    assert.deepEqual(d.buckets, red.buckets);
    assert.equal(
      d.buckets.reduce((n, b) => n + b.success + b.failed, 0),
      red.kpis.executions,
    );
    assert.deepEqual(d.running.map((e) => e.id).sort(), [running.red, running['red.sub']].sort());
    const failures = d.recent_failures.map((e) => e.id);
    assert.ok(failures.includes(failed.red!) && failures.includes(failed['red.sub']!), failures.join(','));
    assert.ok(!failures.includes(failed.blue!), 'no blue failure');
    for (const e of [...d.running, ...d.recent_failures]) assert.ok(e.namespace === 'red' || e.namespace === 'red.sub', e.namespace);
    // A namespace given: checked as before.
    assert.deepEqual(
      (await dash(who, '&namespace=red.sub')).running.map((e) => e.id),
      [running['red.sub']],
    );
    const refused = await get(who, '/api/v1/stats/dashboard?range=24h&namespace=blue');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
  }

  // A global viewer: every namespace, as before.
  const v = await dash({ token: viewerToken });
  assert.deepEqual(v.kpis, all.kpis);
  assert.equal(v.kpis.failed, 3);
  assert.equal(v.kpis.running, 3);
  assert.ok(v.running.some((e) => e.id === running.blue) && v.recent_failures.some((e) => e.id === failed.blue));

  for (const id of Object.values(running)) await s.api('POST', `/api/v1/executions/${id}/cancel`);
  for (const id of Object.values(running)) await s.waitEnded(id, 60_000);
});
