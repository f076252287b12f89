// Alert rules through /api/v1/alerts: an editor creates, reads,
// changes and deletes rules (audited; a viewer reads, and is refused a
// change); the body is checked beyond its schema (secret references, email
// addresses, the organization, a duration for `late`); the deliveries of a
// rule are listed newest first with their attempts, and a deleted rule
// takes them along. An email channel may name only an organization that
// allows the rule's namespace (422 on the channel's organization, at create
// and update), the namespace must exist, and a namespace holds at most
// SVC_ALERT_RULES_PER_NAMESPACE rules, also when gateways save at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { newId } from '@svc/db';
import { createOrganization, setOrganizationNamespaces } from '@svc/identity';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';
import { assertPagesEveryRow, sameMillisecond } from './paging-helpers.js';

let gw: TestGateway;
let editor = '';
let viewer = '';
let admin = '';

before(async () => {
  gw = await startTestGateway();
  await makeUser(gw, 'admin@example.com', 'admin');
  await makeUser(gw, 'ed@example.com', 'editor');
  await makeUser(gw, 'view@example.com', 'viewer');
  admin = await makeToken(gw, await login(gw, 'admin@example.com'), 'admin');
  editor = await makeToken(gw, await login(gw, 'ed@example.com'), 'editor');
  viewer = await makeToken(gw, await login(gw, 'view@example.com'), 'viewer');
  await createOrganization(gw.db.pool, 'acme');
  await setOrganizationNamespaces(gw.db.pool, 'acme', ['team']);
  await createOrganization(gw.db.pool, 'other-org');
  await setOrganizationNamespaces(gw.db.pool, 'other-org', ['team-b']);
  for (const name of ['team.etl', 'team-b', 'capped', 'race']) assert.equal((await call(admin, 'POST', '/api/v1/namespaces', { name })).status, 201, name);
});
after(async () => gw?.close());

async function call(token: string, method: string, path: string, body?: unknown) {
  const r = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, text, body: text ? JSON.parse(text) : undefined };
}

const rule = {
  name: 'etl failures',
  namespace: 'team.etl',
  events: ['failed', 'timed_out', 'late'],
  late_after_seconds: 3600,
  channels: [
    { type: 'email', organization: 'acme', from: 'alerts@acme.test', to: 'oncall@example.test' },
    { type: 'webhook', url: 'https://hooks.example.test/svc?team=etl', signing_secret: 'ALERT_SIGNING_KEY' },
    { type: 'slack', url_secret: 'SLACK_URL' },
  ],
};

test('an editor creates, reads, changes and deletes a rule; a viewer reads only; changes are audited', async () => {
  assert.equal((await call(viewer, 'POST', '/api/v1/alerts', rule)).status, 403);
  const made = await call(editor, 'POST', '/api/v1/alerts', rule);
  assert.equal(made.status, 201, made.text);
  assert.equal(made.body.flow_id, null);
  assert.equal(made.body.rate_limit_per_hour, 20);
  assert.equal(made.body.enabled, true);
  assert.deepEqual(made.body.channels, rule.channels);
  const id = made.body.id as string;

  const got = await call(viewer, 'GET', `/api/v1/alerts/${id}`);
  assert.equal(got.status, 200);
  assert.equal(got.body.name, 'etl failures');
  const listed = await call(viewer, 'GET', '/api/v1/alerts');
  assert.deepEqual(
    listed.body.items.map((r: { id: string }) => r.id),
    [id],
  );

  assert.equal((await call(viewer, 'PATCH', `/api/v1/alerts/${id}`, { enabled: false })).status, 403);
  const changed = await call(editor, 'PATCH', `/api/v1/alerts/${id}`, { enabled: false, flow_id: 'nightly', rate_limit_per_hour: 5 });
  assert.equal(changed.status, 200, changed.text);
  assert.equal(changed.body.enabled, false);
  assert.equal(changed.body.flow_id, 'nightly');
  assert.equal(changed.body.rate_limit_per_hour, 5);
  assert.equal(changed.body.late_after_seconds, 3600);

  assert.equal((await call(viewer, 'DELETE', `/api/v1/alerts/${id}`)).status, 403);
  assert.equal((await call(editor, 'DELETE', `/api/v1/alerts/${id}`)).status, 204);
  assert.equal((await call(editor, 'GET', `/api/v1/alerts/${id}`)).status, 404);
  assert.equal((await call(editor, 'DELETE', `/api/v1/alerts/${id}`)).status, 404);

  const audit = await call(admin, 'GET', '/api/v1/audit?action=alert_rule.*&limit=50');
  assert.deepEqual(audit.body.items.map((a: { action: string }) => a.action).sort(), ['alert_rule.create', 'alert_rule.delete', 'alert_rule.update']);
});

test('a body is refused with the fields at fault', async () => {
  const fields = async (body: unknown) => {
    const r = await call(editor, 'POST', '/api/v1/alerts', body);
    assert.equal(r.status, 422, r.text);
    return r.body.error.details.map((d: { field: string }) => d.field) as string[];
  };
  assert.ok((await fields({ ...rule, events: [] })).some((f) => f.includes('events')));
  assert.ok((await fields({ ...rule, events: ['exploded'] })).some((f) => f.includes('events')));
  assert.deepEqual(await fields({ ...rule, late_after_seconds: undefined }), ['late_after_seconds']);
  assert.deepEqual(await fields({ ...rule, channels: [{ type: 'webhook', url: 'https://u:p@x.test/', signing_secret: 'bad key!' }] }), [
    'channels[0].url',
    'channels[0].signing_secret',
  ]);
  assert.deepEqual(await fields({ ...rule, channels: [{ type: 'email', organization: 'nope', from: 'not-an-address', to: 'a@b.test' }] }), [
    'channels[0].from',
    'channels[0].organization',
  ]);
  assert.ok((await fields({ ...rule, channels: [{ type: 'slack', url: 'https://hooks.slack.test/T/B/x' }] })).length > 0, 'a Slack URL is taken from a secret only');
});

test('a webhook URL naming a literal loopback, private or metadata address is refused unless SVC_ALERT_ALLOW_PRIVATE_TARGETS', async () => {
  const hook = (url: string) => ({ type: 'webhook', url, signing_secret: 'ALERT_SIGNING_KEY' });
  const refused = [
    'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'http://127.0.0.1:8080/api/v1/admin',
    'http://localhost:9000/',
    'http://10.0.0.5/hook',
    'http://172.16.3.4/hook',
    'http://192.168.1.10/hook',
    'http://[::1]/hook',
    'http://[fd00::5]/hook',
    'http://[fe80::1]/hook',
    'http://[::ffff:10.0.0.5]/hook',
    'http://0.0.0.0/hook',
    'http://2130706433/hook',
  ];
  for (const url of refused) {
    const r = await call(editor, 'POST', '/api/v1/alerts', { ...rule, name: 'ssrf', channels: [rule.channels[0], hook(url)] });
    assert.equal(r.status, 422, `${url}: ${r.text}`);
    assert.equal(r.body.error.code, 'validation_failed');
    assert.deepEqual(
      r.body.error.details.map((d: { field: string }) => d.field),
      ['channels[1].url'],
      url,
    );
    assert.match(r.body.error.details[0].message, /(loopback|private|link-local|unique-local|unspecified).*SVC_ALERT_ALLOW_PRIVATE_TARGETS/, url);
  }
  const other = await call(editor, 'POST', '/api/v1/alerts', { ...rule, name: 'ssrf', channels: [hook('file:///etc/passwd')] });
  assert.equal(other.status, 422, other.text);

  // A public literal, and a host name (judged when maintenance resolves it), pass.
  const pub = await call(editor, 'POST', '/api/v1/alerts', {
    ...rule,
    name: 'public literal',
    channels: [hook('https://93.184.215.14/hook'), hook('https://hooks.example.test/x')],
  });
  assert.equal(pub.status, 201, pub.text);
  // A change is checked too.
  const moved = await call(editor, 'PATCH', `/api/v1/alerts/${pub.body.id}`, { channels: [hook('https://93.184.215.14/hook'), hook('http://169.254.169.254/')] });
  assert.equal(moved.status, 422, moved.text);
  assert.deepEqual(
    moved.body.error.details.map((d: { field: string }) => d.field),
    ['channels[1].url'],
  );
  assert.equal((await call(editor, 'GET', `/api/v1/alerts/${pub.body.id}`)).body.channels[1].url, 'https://hooks.example.test/x');

  // An on-premise deployment allows private receivers.
  const onPrem = await startTestGateway({ shareWith: gw, env: { SVC_ALERT_ALLOW_PRIVATE_TARGETS: 'true' } });
  try {
    const r = await fetch(`${onPrem.url}/api/v1/alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${editor}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...rule, name: 'on premise', channels: [hook('http://10.0.0.5/hook'), hook('http://localhost:9000/')] }),
    });
    assert.equal(r.status, 201, await r.text());
  } finally {
    await onPrem.close();
  }
});

test('deliveries of a rule are listed newest first with their attempts; deleting the rule removes them', async () => {
  const made = await call(editor, 'POST', '/api/v1/alerts', { ...rule, name: 'with deliveries' });
  const id = made.body.id as string;
  const d1 = newId();
  const d2 = newId();
  await gw.db.pool.query(
    `INSERT INTO alert_deliveries (id, rule_id, event, subject, execution_id, namespace, flow_id, channel, channel_type, target, status, attempts, error, created_at, delivered_at)
     VALUES ($1, $3, 'failed', 'e1', 'e1', 'team.etl', 'f', 1, 'webhook', 'https://hooks.example.test/svc', 'delivered', 2, '', now() - interval '1 minute', now()),
            ($2, $3, 'failed', 'e2', 'e2', 'team.etl', 'f', 1, 'webhook', 'https://hooks.example.test/svc', 'pending', 1, 'HTTP 503: busy', now(), NULL)`,
    [d1, d2, id],
  );
  await gw.db.pool.query(
    `INSERT INTO alert_delivery_attempts (id, delivery_id, number, ok, http_status, detail, duration_ms, instance_id) VALUES ($1, $3, 1, false, 503, 'HTTP 503: busy', 12, 'm1'), ($2, $3, 2, true, 200, 'HTTP 200', 8, 'm2'), ($4, $5, 1, false, 503, 'HTTP 503: busy', 9, 'm1')`,
    [newId(), newId(), d1, newId(), d2],
  );
  const page1 = await call(viewer, 'GET', `/api/v1/alerts/${id}/deliveries?limit=1`);
  assert.equal(page1.status, 200, page1.text);
  assert.deepEqual(
    page1.body.items.map((d: { id: string }) => d.id),
    [d2],
  );
  assert.equal(page1.body.items[0].status, 'pending');
  assert.ok(page1.body.items[0].next_attempt_at);
  assert.ok(page1.body.next_cursor);
  const page2 = await call(viewer, 'GET', `/api/v1/alerts/${id}/deliveries?limit=1&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
  assert.deepEqual(
    page2.body.items.map((d: { id: string }) => d.id),
    [d1],
  );
  assert.deepEqual(
    page2.body.items[0].attempt_log.map((a: { number: number; ok: boolean; http_status: number }) => [a.number, a.ok, a.http_status]),
    [
      [1, false, 503],
      [2, true, 200],
    ],
  );
  assert.equal(page2.body.next_cursor, undefined);
  assert.equal((await call(viewer, 'GET', `/api/v1/alerts/nope/deliveries`)).status, 404);

  assert.equal((await call(editor, 'DELETE', `/api/v1/alerts/${id}`)).status, 204);
  assert.equal((await gw.db.pool.query(`SELECT count(*)::int AS n FROM alert_deliveries WHERE rule_id = $1`, [id])).rows[0].n, 0);
});

test('deliveries written in one millisecond (the scanner writes one per channel in a transaction) page each once, newest first', async () => {
  const made = await call(editor, 'POST', '/api/v1/alerts', { ...rule, name: 'one millisecond' });
  const ruleId = made.body.id as string;
  const ids = Array.from({ length: 12 }, () => newId());
  await gw.db.pool.query(
    `INSERT INTO alert_deliveries (id, rule_id, event, subject, execution_id, namespace, flow_id, channel, channel_type, target, status, created_at)
     SELECT id, $1, 'failed', id, id, 'team.etl', 'f', 1, 'webhook', 'https://hooks.example.test/svc', 'delivered', at
     FROM unnest($2::text[], $3::timestamptz[]) AS d(id, at)`,
    [ruleId, ids, ids.map((_, k) => sameMillisecond(k))],
  );
  const expected = (await gw.db.pool.query(`SELECT id FROM alert_deliveries WHERE rule_id = $1 ORDER BY created_at DESC, id DESC`, [ruleId])).rows.map((r) => r.id);
  await assertPagesEveryRow(gw, viewer, `/api/v1/alerts/${ruleId}/deliveries`, expected);
  // team.etl is counted against SVC_ALERT_RULES_PER_NAMESPACE by a later test.
  assert.equal((await call(editor, 'DELETE', `/api/v1/alerts/${ruleId}`)).status, 204);
});

const email = (organization: string) => ({ type: 'email', organization, from: 'alerts@acme.test', to: 'oncall@example.test' });

test('an email channel names only an organization that allows the rule namespace; the namespace must exist', async () => {
  const refused = await call(editor, 'POST', '/api/v1/alerts', { ...rule, name: 'other org', channels: [rule.channels[1], email('other-org')] });
  assert.equal(refused.status, 422, refused.text);
  assert.deepEqual(
    refused.body.error.details.map((d: { field: string }) => d.field),
    ['channels[1].organization'],
  );
  assert.match(refused.body.error.details[0].message, /organization other-org does not allow namespace team\.etl/);
  // team-b is other-org's: there it passes, and acme (team only) is refused.
  const theirs = await call(editor, 'POST', '/api/v1/alerts', { ...rule, namespace: 'team-b', name: 'b', channels: [email('other-org')] });
  assert.equal(theirs.status, 201, theirs.text);
  const moved = await call(editor, 'PATCH', `/api/v1/alerts/${theirs.body.id}`, { channels: [email('acme')] });
  assert.equal(moved.status, 422, moved.text);
  assert.deepEqual(
    moved.body.error.details.map((d: { field: string }) => d.field),
    ['channels[0].organization'],
  );
  // Moving the rule to team.etl keeps other-org's channel: refused too.
  const away = await call(editor, 'PATCH', `/api/v1/alerts/${theirs.body.id}`, { namespace: 'team.etl' });
  assert.equal(away.status, 422, away.text);
  assert.deepEqual(
    away.body.error.details.map((d: { field: string }) => d.field),
    ['channels[0].organization'],
  );
  assert.equal((await call(viewer, 'GET', `/api/v1/alerts/${theirs.body.id}`)).body.namespace, 'team-b', 'a refused change changes nothing');

  // An admin allows team.etl's parent for other-org: the same rule passes.
  const allow = await call(admin, 'PATCH', '/api/v1/organizations/other-org', { namespaces: ['team-b', 'team'] });
  assert.equal(allow.status, 200, allow.text);
  assert.deepEqual(allow.body.namespaces, ['team', 'team-b']);
  const now = await call(editor, 'POST', '/api/v1/alerts', { ...rule, name: 'other org allowed', channels: [email('other-org')] });
  assert.equal(now.status, 201, now.text);
  assert.equal((await call(admin, 'PATCH', '/api/v1/organizations/other-org', { namespaces: ['team-b'] })).status, 200);
  // Taken off: the rule can still be disabled (maintenance sends nothing for it), not given its channels again.
  const disabled = await call(editor, 'PATCH', `/api/v1/alerts/${now.body.id}`, { enabled: false });
  assert.equal(disabled.status, 200, disabled.text);
  const again = await call(editor, 'PATCH', `/api/v1/alerts/${now.body.id}`, { channels: [email('other-org')] });
  assert.equal(again.status, 422, again.text);

  const nowhere = await call(editor, 'POST', '/api/v1/alerts', { ...rule, namespace: 'no-such-ns', name: 'x' });
  assert.equal(nowhere.status, 422, nowhere.text);
  assert.deepEqual(
    nowhere.body.error.details.map((d: { field: string }) => d.field),
    ['namespace'],
  );
  for (const id of [theirs.body.id, now.body.id]) assert.equal((await call(editor, 'DELETE', `/api/v1/alerts/${id}`)).status, 204);
});

test('a namespace holds at most SVC_ALERT_RULES_PER_NAMESPACE rules, counted apart from its children and across gateways', async () => {
  const env = { SVC_ALERT_RULES_PER_NAMESPACE: '3' };
  const a = await startTestGateway({ shareWith: gw, env });
  const b = await startTestGateway({ shareWith: gw, env });
  try {
    const post = (g: TestGateway, body: unknown) =>
      fetch(`${g.url}/api/v1/alerts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${editor}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { id?: string } & Partial<components['schemas']['ErrorEnvelope']> }));
    const hook = { type: 'webhook', url: 'https://hooks.example.test/x', signing_secret: 'K' };
    for (let i = 0; i < 3; i++) assert.equal((await post(a, { ...rule, namespace: 'capped', name: `c${i}`, channels: [hook] })).status, 201);
    const past = await post(b, { ...rule, namespace: 'capped', name: 'c3', channels: [hook] });
    assert.equal(past.status, 422);
    assert.deepEqual(
      past.body.error!.details!.map((d) => d.field),
      ['namespace'],
    );
    assert.match(past.body.error!.details![0]!.message, /holds 3 alert rules.*SVC_ALERT_RULES_PER_NAMESPACE/);
    // Moving a rule into the full namespace is refused; team.etl (a sibling's child) has room.
    const elsewhere = await post(a, { ...rule, name: 'elsewhere', channels: [hook] });
    assert.equal(elsewhere.status, 201);
    const move = await fetch(`${b.url}/api/v1/alerts/${elsewhere.body.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${editor}`, 'content-type': 'application/json' },
      body: JSON.stringify({ namespace: 'capped' }),
    });
    assert.equal(move.status, 422);

    // Eight creates at once through two gateways: exactly three pass.
    const raced = await Promise.all(Array.from({ length: 8 }, (_, i) => post(i % 2 ? a : b, { ...rule, namespace: 'race', name: `r${i}`, channels: [hook] })));
    assert.deepEqual(raced.map((r) => r.status).sort(), [201, 201, 201, 422, 422, 422, 422, 422]);
    assert.equal((await gw.db.pool.query(`SELECT count(*)::int AS n FROM alert_rules WHERE namespace = 'race'`)).rows[0].n, 3);
  } finally {
    await a.close();
    await b.close();
  }
});
