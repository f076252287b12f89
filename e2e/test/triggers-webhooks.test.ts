// Webhook triggers over real HTTP with real processes: the key shown to
// editors in the flow's trigger view, POST /hooks/{key} starting the flow
// with trigger.body and trigger.headers reaching a task, text bodies, the body
// bound, unknown keys (404 envelope), disabled flows (409 flow_disabled), and
// rotation invalidating the old key at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createUser } from '@svc/identity';
import { startStack, type Stack } from './stack.js';
import { flow, run, sh } from './engine-support.js';

let s: Stack;
const NS = 'hooks';
const PUBLIC_URL = 'https://svc.example.test/base';
const MAX_BODY = 64 * 1024;

const hook = (key: string, body: string | undefined, headers: Record<string, string> = {}) => fetch(`${s.url}/hooks/${key}`, { method: 'POST', headers, body });
const json = async (r: Response) => ({ status: r.status, body: (await r.json()) as any });
const triggerView = async (flowId: string) => (await s.api('GET', `/api/v1/flows/${NS}/${flowId}`)).body.triggers as any[];
const keyOf = async (flowId: string, triggerId: string) => (await triggerView(flowId)).find((t) => t.id === triggerId).webhook_key as string;

before(async () => {
  s = await startStack({ env: { SVC_PUBLIC_URL: PUBLIC_URL, SVC_MAX_BODY_BYTES: String(MAX_BODY) } });
  await s.saveFlow(NS, {
    'greet.flow.yaml': flow({
      id: 'greet',
      inputs: [
        { id: 'name', type: 'string' },
        { id: 'source', type: 'string' },
        { id: 'count', type: 'int', default: 0 },
      ],
      triggers: [
        {
          id: 'incoming',
          type: 'webhook',
          inputs: { name: '{{ trigger.body.user.name }}', source: '{{ trigger.headers["X-Source"] }}', count: '{{ trigger.body.count }}' },
        },
        { id: 'nightly', type: 'schedule', cron: '@daily' },
      ],
      tasks: [
        {
          id: 'hello',
          type: 'command',
          env: { NAME: '{{ inputs.name }}', SOURCE: '{{ inputs.source }}', COUNT: '{{ inputs.count }}' },
          command: sh('echo "hello $NAME from $SOURCE ($COUNT)"; printf \'{"outputs": {"greeting": "%s/%s/%s"}}\\n\' "$NAME" "$SOURCE" "$COUNT" >> "$SVC_OUTPUTS"'),
        },
      ],
    }),
    'text.flow.yaml': flow({
      id: 'text',
      inputs: [
        { id: 'raw', type: 'string' },
        { id: 'ctype', type: 'string' },
      ],
      triggers: [{ id: 'raw', type: 'webhook', inputs: { raw: '{{ trigger.body }}', ctype: '{{ trigger.headers["content-type"] }}' } }],
      tasks: [{ id: 'echo', type: 'command', env: { RAW: '{{ inputs.raw }}' }, command: sh('printf \'%s\\n\' "$RAW"') }],
    }),
    'labelled.flow.yaml': flow({
      id: 'labelled',
      labels: { team: 'data' },
      inputs: [{ id: 'team', type: 'string' }],
      triggers: [{ id: 'in', type: 'webhook', inputs: { team: 'from {{ labels.team }}' } }],
      tasks: [{ id: 'echo', type: 'command', command: ['true'] }],
    }),
  });
});
after(() => s.stop());

test('editors see the key and URL of each webhook trigger in getFlow; viewers do not', async () => {
  const triggers = await triggerView('greet');
  const incoming = triggers.find((t) => t.id === 'incoming');
  assert.match(incoming.webhook_key, /^[0-9A-Za-z]{32}$/, '32 base62 characters: 190 random bits');
  assert.equal(incoming.webhook_url, `${PUBLIC_URL}/hooks/${incoming.webhook_key}`);
  assert.equal(triggers.find((t) => t.id === 'nightly').webhook_key, undefined, 'only webhook triggers have keys');
  // Asked again: the same key (kept sealed with the master key, not regenerated).
  assert.equal(await keyOf('greet', 'incoming'), incoming.webhook_key);
  const stored = (await s.db.query(`SELECT key_hash, key_ciphertext FROM webhook_keys WHERE flow_id = 'greet'`)).rows[0];
  assert.match(stored.key_hash, /^[0-9a-f]{64}$/);
  assert.ok(!stored.key_ciphertext.toString('latin1').includes(incoming.webhook_key), 'the key is not stored in clear');

  await createUser(s.db, { email: 'viewer@example.com', role: 'viewer', password: 'viewer password 1' }, new Date());
  const login = await fetch(`${s.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'viewer@example.com', password: 'viewer password 1' }),
  });
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
  const asViewer = (await (await fetch(`${s.url}/api/v1/flows/${NS}/greet`, { headers: { cookie } })).json()) as any;
  assert.equal(JSON.stringify(asViewer).includes(incoming.webhook_key), false);
  assert.deepEqual(
    asViewer.triggers.find((t: any) => t.id === 'incoming'),
    { id: 'incoming', type: 'webhook' },
  );
  const rotate = await fetch(`${s.url}/api/v1/flows/${NS}/greet/triggers/incoming/webhook-key`, { method: 'POST', headers: { cookie, 'sec-fetch-site': 'same-origin' } });
  assert.equal(rotate.status, 403, 'rotating needs the editor role');
});

test('POST /hooks/{key}: 201 with the execution id; trigger.body and trigger.headers reach the task through the input templates', async () => {
  const key = await keyOf('greet', 'incoming');
  const r = await json(
    await hook(key, JSON.stringify({ user: { name: 'Ada' }, count: 3 }), {
      'content-type': 'application/json',
      'x-source': 'billing',
      authorization: 'Bearer not-for-the-flow',
      cookie: 'session=not-for-the-flow',
    }),
  );
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(typeof r.body.execution_id, 'string');
  const done = await s.waitEnded(r.body.execution_id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(done.flow_id, 'greet');
  assert.equal(done.trigger_type, 'webhook');
  assert.equal(done.created_by, 'webhook');
  assert.deepEqual(done.inputs, { name: 'Ada', source: 'billing', count: 3 });
  assert.deepEqual(run(done, 'hello').outputs, { greeting: 'Ada/billing/3' });
  const logs = (await s.db.query(`SELECT text FROM log_lines WHERE execution_id = $1 AND stream = 'stdout' ORDER BY n`, [done.id])).rows.map((x) => x.text);
  assert.ok(logs.includes('hello Ada from billing (3)'), JSON.stringify(logs));
  assert.deepEqual(done.trigger_payload.body, { user: { name: 'Ada' }, count: 3 });
  assert.equal(done.trigger_payload.headers['x-source'], 'billing');
  assert.equal(done.trigger_payload.headers.authorization, undefined, 'credentials of the sender are not kept');
  assert.equal(done.trigger_payload.headers.cookie, undefined);
  const ex = (await s.db.query(`SELECT trigger_id FROM executions WHERE id = $1`, [done.id])).rows[0];
  assert.equal(ex.trigger_id, 'incoming');
});

test('a body that is not JSON is kept as text; a JSON content type with a broken body is 422', async () => {
  const key = await keyOf('text', 'raw');
  const r = await json(await hook(key, 'plain words {not json}', { 'content-type': 'text/plain; charset=utf-8' }));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const done = await s.waitEnded(r.body.execution_id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(done.trigger_payload.body, 'plain words {not json}');
  assert.deepEqual(done.inputs, { raw: 'plain words {not json}', ctype: 'text/plain; charset=utf-8' });
  const logs = (await s.db.query(`SELECT text FROM log_lines WHERE execution_id = $1 AND stream = 'stdout'`, [done.id])).rows.map((x) => x.text);
  assert.deepEqual(logs, ['plain words {not json}']);

  const bad = await json(await hook(key, '{"broken":', { 'content-type': 'application/json' }));
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error.code, 'validation_failed');
});

test("trigger inputs read the flow's labels", async () => {
  const r = await json(await hook(await keyOf('labelled', 'in'), '{}', { 'content-type': 'application/json' }));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const done = await s.waitEnded(r.body.execution_id);
  assert.deepEqual(done.inputs, { team: 'from data' });
});

test('a body past SVC_MAX_BODY_BYTES is refused with 413 and starts nothing', async () => {
  const key = await keyOf('text', 'raw');
  const before = (await s.db.query(`SELECT count(*)::int AS n FROM executions WHERE flow_id = 'text'`)).rows[0].n;
  const r = await json(await hook(key, 'x'.repeat(MAX_BODY + 1), { 'content-type': 'text/plain' }));
  assert.equal(r.status, 413);
  assert.equal(r.body.error.code, 'body_too_large');
  assert.equal((await s.db.query(`SELECT count(*)::int AS n FROM executions WHERE flow_id = 'text'`)).rows[0].n, before);
});

test('input templates the request does not satisfy answer 422 and start nothing', async () => {
  const key = await keyOf('greet', 'incoming');
  const r = await json(await hook(key, JSON.stringify({ nobody: true }), { 'content-type': 'application/json', 'x-source': 'x' }));
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.match(JSON.stringify(r.body.error), /trigger\.body\.user/);
});

test('an unknown key answers 404 with the error envelope', async () => {
  const r = await hook('A'.repeat(32), '{}', { 'content-type': 'application/json' });
  assert.equal(r.status, 404);
  assert.ok(r.headers.get('x-request-id'));
  const body = (await r.json()) as any;
  assert.equal(body.error.code, 'not_found');
  assert.equal(typeof body.error.message, 'string');
});

test('a disabled flow answers 409 flow_disabled; enabled again the same key works', async () => {
  const key = await keyOf('text', 'raw');
  assert.equal((await s.api('PATCH', `/api/v1/flows/${NS}/text`, { enabled: false })).status, 200);
  const r = await json(await hook(key, 'hi', { 'content-type': 'text/plain' }));
  assert.equal(r.status, 409);
  assert.equal(r.body.error.code, 'flow_disabled');
  assert.equal((await s.api('PATCH', `/api/v1/flows/${NS}/text`, { enabled: true })).status, 200);
  assert.equal((await hook(key, 'hi', { 'content-type': 'text/plain' })).status, 201);
});

test('rotateWebhookKey: a new key and URL, the old key 404 at once, the new one works and is what editors see', async () => {
  const old = await keyOf('greet', 'incoming');
  const r = await s.api('POST', `/api/v1/flows/${NS}/greet/triggers/incoming/webhook-key`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.key, /^[0-9A-Za-z]{32}$/);
  assert.notEqual(r.body.key, old);
  assert.equal(r.body.url, `${PUBLIC_URL}/hooks/${r.body.key}`);
  const payload = JSON.stringify({ user: { name: 'Bo' }, count: 1 });
  const headers = { 'content-type': 'application/json', 'x-source': 'rot' };
  assert.equal((await hook(old, payload, headers)).status, 404);
  const ok = await json(await hook(r.body.key, payload, headers));
  assert.equal(ok.status, 201);
  assert.equal(await keyOf('greet', 'incoming'), r.body.key);
  const audit = await s.api('GET', `/api/v1/audit?action=flow.webhook_key.rotate`);
  assert.equal(audit.body.items.length, 1);
  // Not a webhook trigger, or no such trigger: 404.
  assert.equal((await s.api('POST', `/api/v1/flows/${NS}/greet/triggers/nightly/webhook-key`)).status, 404);
  assert.equal((await s.api('POST', `/api/v1/flows/${NS}/greet/triggers/nope/webhook-key`)).status, 404);
});

test('a trigger removed from the flow stops its key at once', async () => {
  const key = await keyOf('text', 'raw');
  await s.saveFlow(NS, {
    'text.flow.yaml': flow({ id: 'text', tasks: [{ id: 'echo', type: 'command', command: sh('true') }] }),
  });
  assert.equal((await hook(key, 'hi', { 'content-type': 'text/plain' })).status, 404);
});
