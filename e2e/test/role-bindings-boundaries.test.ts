// Namespace-scoped roles at every operation of the OpenAPI
// document: users whose global role is viewer are bound as operator, editor
// and admin to the namespace `team`. For each role operation that names a
// namespace (api-spec namespaceSources: a path or query parameter, a body
// field, or the execution, backfill or alert rule a path id names), the user
// bound at the operation's minimum role gets past the role check on `team`
// and on its child `team.child`, and gets 403 on the sibling `other`; the
// user bound one role lower gets 403 on `team`. Operations that name no
// namespace keep the global role: even the admin-bound user gets 403 on
// every one above viewer, but for the caller-scoped ones (bulkExecutions),
// open to whoever holds their role somewhere. "Past the role check" is any answer but 401/403
// (a 404 or 422 after it is fine: the check comes first). Then: a token is
// lowered to its own role, a group binding applies through the user's IdP
// groups, every binding change is audited, and a deleted binding stops
// counting at once. A user whose global role is `none`, bound as viewer to
// `team`, reads `team` and `team.child` through every viewer operation and
// gets 403 on `other`; of the operations that name no namespace it may call
// only its own account's and the read-scoped lists.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  CALLER_SCOPED_OPERATION_IDS,
  namespaceSources,
  operations,
  OWN_ACCOUNT_OPERATION_IDS,
  READ_SCOPED_LIST_OPERATION_IDS,
  SPEC_ROLES,
  type Operation,
  type SpecRole,
} from '@svc/api-spec';
import { createUser, setUserGroups } from '@svc/identity';
import { startStack, type Stack } from './stack.js';
import { flow, sh } from './engine-support.js';

const NAMESPACES = ['team', 'team.child', 'other'] as const;
type Ns = (typeof NAMESPACES)[number];

let s: Stack;
/** Per namespace: a flow `f`, an execution, a backfill, an alert rule. */
const fixture = {} as Record<Ns, { executionId: string; backfillId: string; ruleId: string }>;
/** Bearer tokens (role admin, lowered to what each user may have) of users bound to `team`. */
const tokens = {} as Record<SpecRole, string>;
const bindingIds: Record<string, string> = {};
/** A bearer token of a user whose global role is `none`, bound as viewer to `team`. */
let noneToken = '';

async function login(email: string, password: string): Promise<string> {
  const r = await fetch(`${s.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  assert.equal(r.status, 200, email);
  return /svc_session=[^;]+/.exec(r.headers.get('set-cookie') ?? '')![0];
}

async function mintToken(cookie: string, role: SpecRole): Promise<{ status: number; secret?: string }> {
  const r = await fetch(`${s.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    body: JSON.stringify({ name: `t-${role}`, role }),
  });
  const body = (await r.json()) as { secret?: string };
  return { status: r.status, ...(body.secret ? { secret: body.secret } : {}) };
}

/** Calls with a bearer token; streams are cut once their status is known. */
async function call(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; code?: string }> {
  const ac = new AbortController();
  const r = await fetch(`${s.url}${path}`, {
    method: method.toUpperCase(),
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: ac.signal,
  });
  if ((r.headers.get('content-type') ?? '').includes('text/event-stream')) {
    ac.abort();
    return { status: r.status };
  }
  const text = await r.text().catch(() => '');
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {}
  return { status: r.status, ...(code ? { code } : {}) };
}

const properties = (schema: unknown) => ((schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}) as Record<string, unknown>;

/** A request of `op` aimed at namespace `ns`: its namespace parameters and record ids are those of `ns`, the rest placeholders. */
function requestFor(op: Operation, ns: Ns): { path: string; body?: unknown } {
  const f = fixture[ns];
  const values: Record<string, string> = {
    namespace: ns,
    flowId: 'f',
    executionId: f.executionId,
    backfillId: f.backfillId,
    ruleId: f.ruleId,
    revisionId: '1',
    triggerId: 'hook',
    key: 'K',
  };
  let path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? 'x'));
  if ('namespace' in properties(op.request.query)) path += `?namespace=${encodeURIComponent(ns)}`;
  if (op.request.body === undefined) return { path };
  // A body the validator refuses after the role check, unless the namespace is in it (then only that field).
  return { path, body: 'namespace' in properties(op.request.body) ? { namespace: ns } : {} };
}

const roleOps = operations.filter((o) => o.auth.kind === 'role');
const minRole = (o: Operation) => (o.auth.kind === 'role' ? o.auth.minRole : 'viewer');
// Destructive ones last, so the records and namespaces the others name are still there.
const destructive = new Set(['deleteAlertRule', 'deleteNamespace', 'deleteRoleBinding']);
const ordered = [...roleOps.filter((o) => !destructive.has(o.operationId)), ...roleOps.filter((o) => destructive.has(o.operationId))];

before(async () => {
  // Its alert rules name a loopback receiver: an on-premise setting (SVC_ALERT_ALLOW_PRIVATE_TARGETS).
  s = await startStack({ env: { SVC_ALERT_ALLOW_PRIVATE_TARGETS: 'true' } });
  const hourAgo = new Date(Date.now() - 3 * 3600_000);
  for (const ns of NAMESPACES) {
    await s.saveFlow(ns, {
      'f.flow.yaml': flow({
        id: 'f',
        triggers: [
          { id: 'hourly', type: 'schedule', cron: '0 * * * *' },
          { id: 'hook', type: 'webhook' },
        ],
        tasks: [{ id: 't', type: 'command', command: sh('true') }],
      }),
    });
    const ex = await s.trigger(ns, 'f');
    const bf = await s.api('POST', `/api/v1/flows/${ns}/f/backfills`, {
      trigger_id: 'hourly',
      from: hourAgo.toISOString(),
      to: new Date(Date.now() - 60_000).toISOString(),
      max_in_flight: 1,
    });
    assert.equal(bf.status, 201, JSON.stringify(bf.body));
    const rule = await s.api('POST', '/api/v1/alerts', {
      name: `r-${ns}`,
      namespace: ns,
      events: ['failed'],
      channels: [{ type: 'webhook', url: 'http://127.0.0.1:9/x', signing_secret: 'ALERT_KEY' }],
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    fixture[ns] = { executionId: ex.id, backfillId: bf.body.id, ruleId: rule.body.id };
  }
  for (const role of SPEC_ROLES) {
    const email = `bound-${role}@example.com`;
    await createUser(s.db, { email, role: 'viewer', password: 'bound password 1' }, new Date());
    if (role !== 'viewer') {
      const b = await s.api('POST', '/api/v1/role-bindings', { namespace: 'team', user: email, role });
      assert.equal(b.status, 201, JSON.stringify(b.body));
      bindingIds[role] = b.body.id;
    }
    const cookie = await login(email, 'bound password 1');
    const t = await mintToken(cookie, role);
    assert.equal(t.status, 201, `a user bound as ${role} somewhere may mint a ${role} token`);
    tokens[role] = t.secret!;
  }
  await createUser(s.db, { email: 'bound-none@example.com', role: 'none', password: 'bound password 1' }, new Date());
  assert.equal((await s.api('POST', '/api/v1/role-bindings', { namespace: 'team', user: 'bound-none@example.com', role: 'viewer' })).status, 201);
  const noneCookie = await login('bound-none@example.com', 'bound password 1');
  // Without a role, a `none` user's token gets the highest role its bindings give it.
  const r = await fetch(`${s.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { cookie: noneCookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 't-none' }),
  });
  const t = (await r.json()) as { role: string; secret: string };
  assert.equal(r.status, 201);
  assert.equal(t.role, 'viewer');
  noneToken = t.secret;
});

after(async () => {
  await s?.stop();
});

test('the binding operations are in the document, admin only, and a binding cannot be made twice or for nobody', async () => {
  for (const id of ['listRoleBindings', 'createRoleBinding', 'deleteRoleBinding']) {
    const op = operations.find((o) => o.operationId === id)!;
    assert.equal(minRole(op), 'admin', id);
    assert.deepEqual(namespaceSources(op), [], `${id}: only the global admin role counts`);
  }
  const list = await s.api('GET', '/api/v1/role-bindings?namespace=team');
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.items.map((b: { user_email: string; role: string }) => `${b.user_email}:${b.role}`).sort(), [
    'bound-admin@example.com:admin',
    'bound-editor@example.com:editor',
    'bound-none@example.com:viewer',
    'bound-operator@example.com:operator',
  ]);
  assert.equal((await s.api('POST', '/api/v1/role-bindings', { namespace: 'team', user: 'bound-editor@example.com', role: 'admin' })).status, 409);
  assert.equal((await s.api('POST', '/api/v1/role-bindings', { namespace: 'team', role: 'admin' })).status, 422);
  assert.equal((await s.api('POST', '/api/v1/role-bindings', { namespace: 'team', user: 'x@example.com', group: 'g', role: 'admin' })).status, 422);
  assert.equal((await s.api('POST', '/api/v1/role-bindings', { namespace: 'team', user: 'nobody@example.com', role: 'admin' })).status, 404);
  // getMe names where a binding raises the caller, for the UI; nothing for an admin.
  const me = async (token: string) =>
    (await (await fetch(`${s.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as { role: string; role_bindings?: unknown };
  assert.deepEqual((await me(tokens.editor)).role_bindings, [{ namespace: 'team', role: 'editor' }]);
  assert.equal((await me(tokens.editor)).role, 'viewer');
  assert.equal((await me(tokens.viewer)).role_bindings, undefined);
  assert.equal((await me(s.token)).role_bindings, undefined);
  // Even the admin-bound user is not a global admin: the bindings are managed by global admins only.
  const byBound = await call(tokens.admin, 'get', '/api/v1/role-bindings?namespace=team');
  assert.equal(byBound.status, 403);
});

test('a token is lowered to its own role; a group binding applies through the IdP groups; changes are audited and take effect at once', async () => {
  // The admin-bound user with a viewer token: the token's role wins on the bound namespace.
  const cookie = await login('bound-admin@example.com', 'bound password 1');
  const low = await mintToken(cookie, 'viewer');
  assert.equal((await call(low.secret!, 'post', '/api/v1/flows/team/f/executions', {})).status, 403);
  assert.equal((await call(tokens.admin, 'post', '/api/v1/flows/team/f/executions', {})).status, 201);
  // A plain viewer cannot mint a token above viewer.
  const vCookie = await login('bound-viewer@example.com', 'bound password 1');
  assert.equal((await mintToken(vCookie, 'operator')).status, 403);

  // A group binding: the viewer's IdP groups (as SSO writes them) carry it.
  const g = await s.api('POST', '/api/v1/role-bindings', { namespace: 'other', group: 'ops-team', role: 'operator' });
  assert.equal(g.status, 201, JSON.stringify(g.body));
  assert.equal(g.body.group, 'ops-team');
  const viewerId = (await s.db.query(`SELECT id FROM users WHERE email = 'bound-viewer@example.com'`)).rows[0].id as string;
  const trigger = () => call(vSession, 'post', '/api/v1/flows/other/f/executions', {});
  let vSession = tokens.viewer;
  assert.equal((await trigger()).status, 403, 'not in the group yet');
  await setUserGroups(s.db, viewerId, ['ops-team']);
  // The viewer's own token is viewer: its role caps the binding. A session has no cap.
  assert.equal((await trigger()).status, 403, 'a viewer token stays viewer');
  vSession = (await mintToken(vCookie, 'operator')).secret!;
  assert.equal((await trigger()).status, 201, 'operator through the group binding');
  assert.equal((await call(vSession, 'post', '/api/v1/flows/team/f/executions', {})).status, 403, 'the group binding is on other only');

  // Deleting the binding: refused at once.
  assert.equal((await s.api('DELETE', `/api/v1/role-bindings/${g.body.id}`)).status, 204);
  assert.equal((await trigger()).status, 403);
  assert.equal((await s.api('DELETE', `/api/v1/role-bindings/${g.body.id}`)).status, 404);

  const audit = await s.api('GET', '/api/v1/audit?action=role_binding.*&limit=100');
  assert.equal(audit.status, 200);
  const actions = audit.body.items.map((e: { action: string }) => e.action);
  assert.equal(actions.filter((a: string) => a === 'role_binding.create').length, 5);
  assert.equal(actions.filter((a: string) => a === 'role_binding.delete').length, 1);
  const del = audit.body.items.find((e: { action: string }) => e.action === 'role_binding.delete');
  assert.equal(del.payload?.group, 'ops-team');
  assert.equal(del.target, `role_binding:${g.body.id}`);
});

test('a none user bound as viewer: every viewer operation on the bound namespace and its child, 403 elsewhere; its account and the read-scoped lists only', async () => {
  let walked = 0;
  for (const op of ordered) {
    if (minRole(op) !== 'viewer') {
      // Nothing above viewer: a viewer binding never gives more.
      if (namespaceSources(op).length === 0) continue;
      const { path, body } = requestFor(op, 'team');
      assert.equal((await call(noneToken, op.method, path, body)).status, 403, `${op.operationId} on team needs more than the viewer binding`);
      continue;
    }
    walked++;
    if (namespaceSources(op).length > 0) {
      for (const ns of ['team', 'team.child'] as const) {
        const { path, body } = requestFor(op, ns);
        const r = await call(noneToken, op.method, path, body);
        assert.ok(r.status !== 401 && r.status !== 403, `${op.operationId} on ${ns} as none bound viewer to team: ${r.status}`);
      }
      const { path, body } = requestFor(op, 'other');
      const r = await call(noneToken, op.method, path, body);
      assert.equal(r.status, 403, `${op.operationId} on other as none: ${r.status}`);
      assert.equal(r.code, 'forbidden', op.operationId);
      continue;
    }
    // No namespace named: the account's own operations and the read-scoped lists (their items are filtered), nothing else.
    const open = OWN_ACCOUNT_OPERATION_IDS.has(op.operationId) || READ_SCOPED_LIST_OPERATION_IDS.has(op.operationId);
    if (op.operationId === 'logout' || op.operationId === 'revokeOtherSessions') continue;
    const { path } = requestFor(op, 'team');
    const r = await call(noneToken, op.method, path.replace(/\?namespace=[^&]*$/, ''), op.request.body === undefined ? undefined : {});
    if (open) assert.ok(r.status !== 401 && r.status !== 403, `${op.operationId} is open to none: ${r.status}`);
    else assert.equal(r.status, 403, `${op.operationId} is not open to none: ${r.status}`);
  }
  assert.ok(walked >= 40, `walked ${walked} viewer operations`);
  // The read-scoped lists without a namespace show only the bound ones.
  const list = async (path: string) => {
    const r = await fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${noneToken}` } });
    assert.equal(r.status, 200, path);
    return ((await r.json()) as { items: { namespace?: string; name?: string }[] }).items.map((i) => i.namespace ?? i.name);
  };
  assert.deepEqual(await list('/api/v1/namespaces'), ['team', 'team.child']);
  assert.deepEqual((await list('/api/v1/flows')).sort(), ['team', 'team.child']);
  assert.deepEqual([...new Set(await list('/api/v1/executions'))].sort(), ['team', 'team.child']);
  assert.deepEqual([...new Set(await list('/api/v1/alerts'))].sort(), ['team', 'team.child']);
  for (const ns of await list('/api/v1/schedules/upcoming')) assert.ok(ns === 'team' || ns === 'team.child', ns);
});

test('every operation: allowed on the bound namespace and its child, refused on a sibling and one role below', async () => {
  const checked: string[] = [];
  for (const op of ordered) {
    const need = minRole(op);
    const namespaced = namespaceSources(op).length > 0;
    if (need === 'viewer') {
      // Everyone's global role: every namespace, nothing to bound.
      if (!namespaced) continue;
      for (const ns of NAMESPACES) {
        const { path, body } = requestFor(op, ns);
        const r = await call(tokens.viewer, op.method, path, body);
        assert.ok(r.status !== 401 && r.status !== 403, `${op.operationId} on ${ns} as a viewer: ${r.status}`);
      }
      checked.push(op.operationId);
      continue;
    }
    if (CALLER_SCOPED_OPERATION_IDS.has(op.operationId)) {
      // Open to whoever holds its role on some namespace, refused one role below: it acts only where the role is held (engine-bulk-actions.test.ts).
      const below = SPEC_ROLES[SPEC_ROLES.indexOf(need) - 1]!;
      const { path, body } = requestFor(op, 'other');
      assert.equal((await call(tokens[below], op.method, path, body)).status, 403, `${op.operationId} as one bound ${below} to team`);
      const r = await call(tokens[need], op.method, path, body);
      assert.ok(r.status !== 401 && r.status !== 403, `${op.operationId} as one bound ${need} to team: ${r.status}`);
      checked.push(op.operationId);
      continue;
    }
    if (!namespaced) {
      // No namespace named: the global role decides, whatever the bindings.
      const { path, body } = requestFor(op, 'team');
      const r = await call(tokens.admin, op.method, path, body);
      assert.equal(r.status, 403, `${op.operationId} names no namespace: the admin binding must not open it (${r.status})`);
      checked.push(op.operationId);
      continue;
    }
    const below = SPEC_ROLES[SPEC_ROLES.indexOf(need) - 1]!;
    // Refusals first: they change nothing.
    for (const [who, ns] of [
      [need, 'other'],
      [below, 'team'],
      [below, 'team.child'],
    ] as const) {
      const { path, body } = requestFor(op, ns);
      const r = await call(tokens[who], op.method, path, body);
      assert.equal(r.status, 403, `${op.operationId} (needs ${need}) on ${ns} as one bound ${who} to team: ${r.status}`);
      assert.equal(r.code, 'forbidden', op.operationId);
    }
    for (const ns of ['team.child', 'team'] as const) {
      const { path, body } = requestFor(op, ns);
      const r = await call(tokens[need], op.method, path, body);
      assert.ok(r.status !== 401 && r.status !== 403, `${op.operationId} (needs ${need}) on ${ns} as one bound ${need} to team: ${r.status} ${r.code ?? ''}`);
    }
    checked.push(op.operationId);
  }
  // The walk covered every namespaced operation the issue names.
  for (const id of [
    'saveChanges',
    'uploadFile',
    'updateFlow',
    'triggerFlow',
    'cancelExecution',
    'rerunExecution',
    'restartExecution',
    'putNamespaceSecret',
    'putNamespaceVariable',
    'rotateWebhookKey',
    'runFile',
    'pushNamespaceBranch',
    'createBackfill',
    'pauseBackfill',
    'createAlertRule',
    'getExecutionLogs',
    'putGlobalSecret',
    'createUser',
  ]) {
    assert.ok(checked.includes(id), id);
  }
  assert.ok(checked.length >= 60, `walked ${checked.length} operations`);
});
