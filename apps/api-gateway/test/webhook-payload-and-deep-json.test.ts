// Bodies from outside nest at most 64 levels (a deeper json input of
// triggerFlow or webhook body was a 500 from ajv or jsonb), and a webhook's
// stored trigger_payload, which every viewer reads, masks credential-like
// headers while the trigger's input templates still see them.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw } from './identity-helpers.js';

let gw: TestGateway;
let token: string;
let hookKey: string;

const FLOW = [
  'id: hooked',
  'inputs:',
  '  - id: doc',
  '    type: json',
  '  - id: sig',
  '    type: string',
  'triggers:',
  '  - id: incoming',
  '    type: webhook',
  '    inputs:',
  '      sig: "{{ trigger.headers[\'x-hub-signature-256\'] }}"',
  'tasks:',
  '  - id: say',
  '    type: command',
  '    command: ["echo", "hi"]',
  '',
].join('\n');

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  raw(
    gw,
    method,
    path,
    { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  );

before(async () => {
  gw = await startTestGateway({ env: { SVC_MASTER_KEYS: `k1:${crypto.randomBytes(32).toString('base64')}` } });
  await makeUser(gw, 'root@example.com', 'admin');
  token = await makeToken(gw, await login(gw, 'root@example.com'), 'admin');
  assert.equal((await call('POST', '/api/v1/namespaces', { name: 'deep' })).status, 201);
  assert.equal((await call('POST', '/api/v1/namespaces/deep/changes', { message: 'flow', changes: [{ op: 'put', path: 'hooked.flow.yaml', content: FLOW }] })).status, 201);
  const flow = await call('GET', '/api/v1/flows/deep/hooked');
  hookKey = flow.json<{ triggers: { id: string; webhook_key?: string }[] }>().triggers.find((t) => t.id === 'incoming')!.webhook_key!;
  assert.ok(hookKey, 'editors see the webhook key');
});
after(() => gw.close());

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

test('a json input nesting past 64 levels is 422 on field body; 64 levels is accepted', async () => {
  const deep = await call('POST', '/api/v1/flows/deep/hooked/executions', `{"inputs": {"doc": ${nested(10_000)}, "sig": "s"}}`);
  assert.equal(deep.status, 422, deep.body);
  assert.deepEqual(deep.json<{ error: { code: string; details: unknown } }>().error, {
    code: 'validation_failed',
    message: deep.json<{ error: { message: string } }>().error.message,
    details: [{ field: 'body', message: 'nests deeper than 64 levels' }],
  });
  // The top-level object and `inputs` are two levels: 62 more fit.
  const fits = await call('POST', '/api/v1/flows/deep/hooked/executions', `{"inputs": {"doc": ${nested(62)}, "sig": "s"}}`);
  assert.equal(fits.status, 201, fits.body);
});

test('a webhook body nesting past 64 levels is 422 in the same envelope', async () => {
  const r = await raw(gw, 'POST', `/hooks/${hookKey}`, { 'content-type': 'application/json' }, `{"a": ${nested(100_000)}}`);
  assert.equal(r.status, 422, r.body);
  assert.deepEqual(r.json<{ error: { details: unknown } }>().error.details, [{ field: 'body', message: 'nests deeper than 64 levels' }]);
});

test('credential-like webhook headers are masked in trigger_payload, while templates read them', async () => {
  const r = await raw(
    gw,
    'POST',
    `/hooks/${hookKey}`,
    {
      'content-type': 'application/json',
      'x-api-key': 'apikey-planted-1',
      'x-hub-signature-256': 'sha256=planted-signature',
      'x-gitlab-token': 'gitlab-planted',
      'stripe-signature': 't=1,v1=planted',
      'x-delivery': 'delivery-7',
    },
    '{"doc": 1}',
  );
  assert.equal(r.status, 201, r.body);
  const viewerToken = await makeToken(gw, await login(gw, 'root@example.com'), 'viewer');
  const ex = await raw(gw, 'GET', `/api/v1/executions/${r.json<{ id: string }>().id}`, { authorization: `Bearer ${viewerToken}` });
  assert.equal(ex.status, 200);
  const payload = ex.json<{ trigger_payload: { headers: Record<string, string> }; inputs: Record<string, unknown> }>();
  assert.equal(payload.trigger_payload.headers['x-api-key'], '***');
  assert.equal(payload.trigger_payload.headers['x-hub-signature-256'], '***');
  assert.equal(payload.trigger_payload.headers['x-gitlab-token'], '***');
  assert.equal(payload.trigger_payload.headers['stripe-signature'], '***');
  assert.equal(payload.trigger_payload.headers['x-delivery'], 'delivery-7', 'other headers are kept');
  assert.equal(payload.trigger_payload.headers['content-type'], 'application/json');
  for (const planted of ['apikey-planted-1', 'gitlab-planted', 't=1,v1=planted']) assert.ok(!ex.body.includes(planted), planted);
  // The flow chose to copy the signature into an input: templates saw the real value.
  assert.equal(payload.inputs.sig, 'sha256=planted-signature');
});
