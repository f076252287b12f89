// A role binding of an IdP group through a real single sign-on login (issue
// #34), over HTTP against a real stack and a real OpenID Connect provider
// (the certified oidc-provider package on loopback, oidc-provider-standin.ts):
// the group `team-a` is bound as editor on `acme.team`; a user whose ID token
// carries `team-a` signs in through the authorization-code flow (the IdP's
// login and consent forms filled in by a browser over fetch) and, a global
// viewer, may edit a flow in `acme.team` (and its child) but is refused (403)
// in `other.ns`; once the IdP drops the group and the user signs in again,
// the binding no longer applies.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { startIdp, TestBrowser, type TestIdp } from './oidc-provider-standin.js';
import { startStack, type Stack } from './stack.js';

type Flow = components['schemas']['Flow'];
type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
type Me = components['schemas']['Me'];

const SECRET = `oidc-secret-${crypto.randomBytes(12).toString('hex')}`;
const NAMESPACES = ['acme.team', 'acme.team.child', 'other.ns'] as const;
const flowYaml = (description: string) => `id: f\ndescription: ${description}\ntasks:\n  - id: greet\n    type: command\n    command: [sh, -c, 'true']\n`;

let s: Stack;
let idp: TestIdp;

before(async () => {
  s = await startStack({ maintenance: false, dispatchers: 0 });
  // The stack's public URL is its own address (SVC_PUBLIC_URL unset): the IdP knows the gateway's callback there.
  idp = await startIdp({ clientId: 'svc-e2e', clientSecret: SECRET, redirectUri: `${s.url}/api/v1/sso/oidc/callback`, postLogoutRedirectUri: `${s.url}/login` });
  idp.accounts.set('erin', { email: 'erin@example.com', email_verified: true, name: 'Erin', groups: ['team-a'] });
  assert.equal((await s.api('PUT', '/api/v1/platform-secrets/oidc_client_secret', { value: SECRET })).status, 200);
  const put = await s.api('PUT', '/api/v1/sso/oidc', {
    display_name: 'Test IdP',
    issuer_url: idp.issuer,
    client_id: 'svc-e2e',
    client_secret_secret: 'oidc_client_secret',
    scopes: ['email', 'profile', 'groups'],
    groups_claim: 'groups',
    default_role: 'viewer',
    group_roles: [],
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  for (const ns of NAMESPACES) await s.saveFlow(ns, { 'f.flow.yaml': flowYaml('first') });
  const bound = await s.api('POST', '/api/v1/role-bindings', { namespace: 'acme.team', role: 'editor', group: 'team-a' });
  assert.equal(bound.status, 201, JSON.stringify(bound.body));
});

after(async () => {
  await idp?.close();
  await s?.stop();
});

/** A whole login through the authorization-code flow; returns the svc session cookie. */
async function ssoLogin(account: string): Promise<string> {
  const b = new TestBrowser();
  const start = await b.request('GET', `${s.url}/api/v1/sso/oidc/login`);
  assert.equal(start.status, 302, start.body);
  const auth = new URL(start.headers.location!);
  assert.equal(auth.origin, idp.issuer, 'sent to the IdP');
  assert.equal(auth.searchParams.get('code_challenge_method'), 'S256');
  const callback = await b.throughIdp(auth.href, account, `${s.url}/api/v1/sso/oidc/callback`);
  assert.ok(new URL(callback).searchParams.get('code'), 'the IdP answered with a code');
  const back = await b.request('GET', callback);
  assert.equal(back.status, 302, back.body);
  assert.equal(back.headers.location, '/', `signed in and sent home, not to ${back.headers.location}`);
  const session = b.cookie(s.url, 'svc_session');
  assert.ok(session, 'svc_session is set');
  return `svc_session=${session}`;
}

async function asUser(cookie: string, method: string, p: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const r = await fetch(`${s.url}${p}`, {
    method,
    headers: { cookie, 'sec-fetch-site': 'same-origin', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Edits the flow `f` of `ns` (a new description in its file); returns the status. */
async function editFlow(cookie: string, ns: string, description: string): Promise<{ status: number; body: unknown }> {
  return asUser(cookie, 'POST', `/api/v1/namespaces/${ns}/changes`, {
    message: `edit by erin: ${description}`,
    changes: [{ op: 'put', path: 'f.flow.yaml', content: flowYaml(description) }],
  });
}

async function description(ns: string): Promise<string | undefined> {
  const r = await s.api<Flow>('GET', `/api/v1/flows/${ns}/f`);
  assert.equal(r.status, 200);
  return r.body.description;
}

function assertForbidden(r: { status: number; body: unknown }, what: string): void {
  assert.equal(r.status, 403, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal((r.body as ErrorEnvelope).error.code, 'forbidden', what);
}

test('an IdP group bound as editor on acme.team: its member may edit flows there after an SSO login, not in other.ns, and not once the IdP drops the group', async () => {
  const first = await ssoLogin('erin');
  const me = await asUser(first, 'GET', '/api/v1/auth/me');
  assert.equal(me.status, 200);
  assert.deepEqual([(me.body as Me).email, (me.body as Me).role], ['erin@example.com', 'viewer'], 'a global viewer: only the binding makes her an editor');

  const edited = await editFlow(first, 'acme.team', 'edited through the group binding');
  assert.equal(edited.status, 201, JSON.stringify(edited.body));
  assert.equal(await description('acme.team'), 'edited through the group binding');
  const child = await editFlow(first, 'acme.team.child', 'edited in the child');
  assert.equal(child.status, 201, JSON.stringify(child.body));
  assert.equal(await description('acme.team.child'), 'edited in the child');
  const disabled = await asUser(first, 'PATCH', '/api/v1/flows/acme.team/f', { enabled: false });
  assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
  assert.equal((disabled.body as Flow).enabled, false);

  assertForbidden(await editFlow(first, 'other.ns', 'should not be saved'), 'editing in other.ns');
  assertForbidden(await asUser(first, 'PATCH', '/api/v1/flows/other.ns/f', { enabled: false }), 'disabling in other.ns');
  assert.equal(await description('other.ns'), 'first', 'other.ns is unchanged');
  const readable = await asUser(first, 'GET', '/api/v1/flows/other.ns/f');
  assert.equal(readable.status, 200, 'a viewer still reads other.ns: the refusal is the role, not the session');

  // The IdP drops the group; the next login records the groups of its ID token.
  idp.accounts.get('erin')!.groups = [];
  const second = await ssoLogin('erin');
  assertForbidden(await editFlow(second, 'acme.team', 'after the group was dropped'), 'editing in acme.team without the group');
  assertForbidden(await asUser(second, 'PATCH', '/api/v1/flows/acme.team/f', { enabled: true }), 'enabling in acme.team without the group');
  assert.equal(await description('acme.team'), 'edited through the group binding', 'acme.team is unchanged');
  // The groups are the user's (those of the last login), so the first session lost the binding too.
  assertForbidden(await editFlow(first, 'acme.team', 'through the first session'), 'the first session after the group was dropped');

  // Back in the group, at the next login the binding applies again.
  idp.accounts.get('erin')!.groups = ['team-a'];
  const third = await ssoLogin('erin');
  const again = await editFlow(third, 'acme.team', 'back in team-a');
  assert.equal(again.status, 201, JSON.stringify(again.body));
  assert.equal(await description('acme.team'), 'back in team-a');
});

test("an IdP account with the stack admin's email, in the bound group, does not sign in as the admin even with link_by_email on", async () => {
  idp.accounts.set('impostor', { email: 'E2E@example.com', email_verified: true, name: 'Not the admin', groups: ['team-a'] });
  const settings = await s.api<Record<string, unknown>>('GET', '/api/v1/sso/oidc');
  const body = { ...settings.body };
  for (const k of ['redirect_uri', 'updated_by', 'updated_at']) delete body[k];
  assert.equal((await s.api('PUT', '/api/v1/sso/oidc', { ...body, link_by_email: true })).status, 200);
  const b = new TestBrowser();
  const start = await b.request('GET', `${s.url}/api/v1/sso/oidc/login`);
  const callback = await b.throughIdp(start.headers.location!, 'impostor', `${s.url}/api/v1/sso/oidc/callback`);
  const back = await b.request('GET', callback);
  assert.equal(back.headers.location, '/login?sso_error=link_required');
  assert.equal(b.cookie(s.url, 'svc_session'), undefined, 'no session');
  const linked = await s.db.query(`SELECT count(*)::int AS n FROM sso_identities i JOIN users u ON u.id = i.user_id WHERE u.email = 'e2e@example.com'`);
  assert.equal(linked.rows[0].n, 0, 'nothing linked to the admin');
  assert.equal((await s.db.query(`SELECT count(*)::int AS n FROM users WHERE lower(email) = 'e2e@example.com'`)).rows[0].n, 1, 'nothing created');
});
