// Single sign-on through OpenID Connect, end to end over real
// HTTP: a gateway with its own database, a real OIDC provider (oidc-provider)
// on loopback, and a browser stand-in that follows the redirects and fills
// the IdP's forms. Good logins, the group mapping at every login, and each
// refusal: wrong state, replayed code, expired ID token, foreign issuer,
// disabled user, unverified email, password login turned off; a key rotation
// at the IdP; the client secret appears in no response and no log line.
// The sign-up controls: no link by email unless link_by_email,
// never to an admin; the link a signed-in user confirms from their profile;
// allowed email domains, hd and tid, existing users only, default_role none
// for new settings, the maximum age of an SSO session; disabling a user ends
// their sessions and revokes their tokens.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { parseConfig } from '@svc/config';
import { createDb, Notifier } from '@svc/db';
import { createTestDatabase } from '@svc/db/testing';
import { createTestLogger } from '@svc/logging';
import { applyHttpTimeouts, httpTimeouts } from '@svc/service';
import { createObjectStore } from '@svc/storage';
import { buildGateway } from '../src/app.js';
import { GATEWAY_NOTIFIER } from '../src/live/hub.js';
import type { TestGateway } from './helpers.js';
import { login, makeToken, makeUser, PASSWORD, raw } from './identity-helpers.js';
import { freePort, signingKey, startIdp, TestBrowser, type TestIdp } from '../../../e2e/test/oidc-provider-standin.js';
import { assertConforms, assertNoLeak } from './secrets-helpers.js';

const CLIENT_ID = 'svc-test';
const SECRET = `oidc-secret-${crypto.randomBytes(12).toString('hex')}`;
const MASTER_KEYS = `k1:${crypto.randomBytes(32).toString('base64')}`;

/** The gateway's clock: real time plus an offset the tests move (ID tokens are judged on it). */
let offset = 0;
const now = () => new Date(Date.now() + offset);

let gw: TestGateway;
let idp: TestIdp;
let foreign: TestIdp;
let admin: string;
let idpClient: Parameters<typeof startIdp>[0];
const responses: string[] = [];

/** A gateway on a port chosen first: its public URL is the redirect URI the IdP knows. */
async function startGatewayAt(port: number, env: Record<string, string>, databaseUrl?: string): Promise<TestGateway> {
  const tdb = databaseUrl ? undefined : await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-gw-'));
  const config = parseConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: String(port), ...env });
  const db = createDb({ url: databaseUrl ?? tdb!.url, poolSize: 4 });
  const storage = await createObjectStore(config.storage);
  const { logger, lines } = createTestLogger({ level: 'debug' });
  // The process's notifier, as runService gives it to main.ts.
  const notifier = new Notifier({ url: db.url, log: logger, applicationName: 'svc-api-gateway-listen', ...GATEWAY_NOTIFIER });
  const gateway = buildGateway({ notifier, config, log: logger, db, storage, instanceId: 'test-instance', version: '9.9.9', now, uiDir: path.join(dataDir, 'no-ui') });
  const server = gateway.app.listen(port, '127.0.0.1');
  applyHttpTimeouts(server, httpTimeouts(config));
  await new Promise<void>((r) => server.once('listening', () => r()));
  return {
    url: `http://127.0.0.1:${port}`,
    gateway,
    db,
    tdb,
    storage,
    logs: lines,
    async close() {
      await gateway.close();
      await notifier.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await db.close();
      await tdb?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const asAdmin = async (method: string, p: string, body?: unknown) => {
  const r = await raw(
    gw,
    method,
    p,
    { cookie: admin, 'sec-fetch-site': 'same-origin', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body === undefined ? undefined : JSON.stringify(body),
  );
  responses.push(`${method} ${p} -> ${r.status} ${JSON.stringify(r.headers)} ${r.body}`);
  return r;
};

const settings = (extra: Record<string, unknown> = {}) => ({
  display_name: 'Test IdP',
  issuer_url: idp.issuer,
  client_id: CLIENT_ID,
  client_secret_secret: 'oidc_client_secret',
  scopes: ['email', 'profile', 'groups'],
  groups_claim: 'groups',
  default_role: 'viewer',
  group_roles: [
    { group: 'svc-editors', role: 'editor' },
    { group: 'svc-admins', role: 'admin' },
  ],
  ...extra,
});

const browsers: TestBrowser[] = [];
function browser(): TestBrowser {
  const b = new TestBrowser();
  browsers.push(b);
  return b;
}

/** Starts a login at the gateway; returns the authorization URL it redirected to. */
async function start(b: TestBrowser): Promise<URL> {
  const r = await b.request('GET', `${gw.url}/api/v1/sso/oidc/login`);
  assert.equal(r.status, 302, r.body);
  assert.ok(b.cookie(gw.url, 'svc_oidc'), 'the login state cookie is set');
  return new URL(r.headers.location!);
}

/** The whole flow up to the callback URL (not yet followed). */
async function toCallback(b: TestBrowser, account: string, at = idp): Promise<string> {
  const auth = await start(b);
  const url = at === idp ? auth.href : auth.href.replace(idp.issuer, at.issuer);
  return b.throughIdp(url, account, `${gw.url}/api/v1/sso/oidc/callback`);
}

/** Follows the callback; returns where the gateway sent the browser. */
async function back(b: TestBrowser, callbackUrl: string): Promise<string> {
  const r = await b.request('GET', callbackUrl);
  assert.equal(r.status, 302, r.body);
  return r.headers.location!;
}

async function ssoLogin(account: string): Promise<{ b: TestBrowser; cookie: string }> {
  const b = browser();
  const to = await back(b, await toCallback(b, account));
  assert.equal(to, '/', `signed in and sent home, not to ${to}`);
  const session = b.cookie(gw.url, 'svc_session');
  assert.ok(session, 'svc_session is set');
  return { b, cookie: `svc_session=${session}` };
}

const me = async (cookie: string) => raw(gw, 'GET', '/api/v1/auth/me', { cookie, 'sec-fetch-site': 'same-origin' });

async function refused(b: TestBrowser, callbackUrl: string, reason: string) {
  const to = await back(b, callbackUrl);
  assert.equal(to, `/login?sso_error=${reason}`);
  assert.equal(b.cookie(gw.url, 'svc_session'), undefined, 'no session');
}

before(async () => {
  const [gwPort, idpPort, foreignPort] = [await freePort(), await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${gwPort}`;
  const client = { clientId: CLIENT_ID, clientSecret: SECRET, redirectUri: `${publicUrl}/api/v1/sso/oidc/callback`, postLogoutRedirectUri: `${publicUrl}/login` };
  idpClient = { ...client, port: idpPort };
  idp = await startIdp(idpClient);
  foreign = await startIdp({ ...client, port: foreignPort });
  gw = await startGatewayAt(gwPort, { SVC_PUBLIC_URL: publicUrl, SVC_MASTER_KEYS: MASTER_KEYS });
  await makeUser(gw, 'admin@example.com', 'admin');
  admin = await login(gw, 'admin@example.com');
  assert.equal((await asAdmin('PUT', '/api/v1/platform-secrets/oidc_client_secret', { value: SECRET })).status, 200);
  for (const [id, a] of [
    ['alice', { email: 'alice@example.com', email_verified: true, name: 'Alice', groups: ['svc-editors'] }],
    ['bob', { email: 'bob@example.com', email_verified: true, name: 'Bob', groups: [] }],
    ['carol', { email: 'carol@example.com', email_verified: false, name: 'Carol', groups: ['svc-admins'] }],
    ['dave', { email: 'dave@example.com', email_verified: true, name: 'Dave', groups: [] }],
  ] as const) {
    idp.accounts.set(id, { ...a, groups: [...a.groups] });
    foreign.accounts.set(id, { ...a, groups: [...a.groups] });
  }
});

after(async () => {
  await gw?.close();
  await idp?.close();
  await foreign?.close();
});

test('an admin configures OIDC; the status is public; bad settings are refused with their field', async () => {
  assert.equal((await raw(gw, 'GET', '/api/v1/sso/status')).json<{ oidc: boolean }>().oidc, false);
  assert.equal((await asAdmin('GET', '/api/v1/sso/oidc')).status, 404);
  const bad = await asAdmin('PUT', '/api/v1/sso/oidc', settings({ issuer_url: 'http://idp.example.com', client_secret_secret: 'no_such_secret' }));
  assert.equal(bad.status, 422);
  const fields = bad.json().error.details!.map((d) => d.field);
  assert.deepEqual(fields, ['issuer_url']);
  const unknownSecret = await asAdmin('PUT', '/api/v1/sso/oidc', settings({ client_secret_secret: 'no_such_secret' }));
  assert.equal(unknownSecret.status, 422);
  assert.deepEqual(
    unknownSecret.json().error.details!.map((d) => d.field),
    ['client_secret_secret'],
  );
  const unreachable = await asAdmin('PUT', '/api/v1/sso/oidc', settings({ issuer_url: `http://127.0.0.1:${await freePort()}` }));
  assert.equal(unreachable.status, 422);
  assert.deepEqual(
    unreachable.json().error.details!.map((d) => d.field),
    ['issuer_url'],
  );

  const put = await asAdmin('PUT', '/api/v1/sso/oidc', settings());
  assert.equal(put.status, 200, put.body);
  assertConforms('putOidcSettings', 200, put.json());
  const got = (await asAdmin('GET', '/api/v1/sso/oidc')).json<{ client_secret_secret: string; redirect_uri: string; group_roles: unknown[] }>();
  assert.equal(got.client_secret_secret, 'oidc_client_secret');
  assert.equal(got.redirect_uri, `${gw.url}/api/v1/sso/oidc/callback`);
  assert.equal(got.group_roles.length, 2);
  const status = await raw(gw, 'GET', '/api/v1/sso/status');
  assert.deepEqual(status.json(), { oidc: true, display_name: 'Test IdP', login_url: '/api/v1/sso/oidc/login' });
  const audit = await gw.db.pool.query(`SELECT action, actor_id FROM audit_events WHERE action LIKE 'sso.%' ORDER BY id`);
  assert.deepEqual(
    audit.rows.map((r) => r.action),
    ['sso.oidc_create'],
  );
  // A viewer may not read the settings.
  await makeUser(gw, 'viewer@example.com', 'viewer');
  const viewer = await login(gw, 'viewer@example.com');
  assert.equal((await raw(gw, 'GET', '/api/v1/sso/oidc', { cookie: viewer, 'sec-fetch-site': 'same-origin' })).status, 403);
});

test('the authorization request carries PKCE S256, state, nonce, the scopes and the redirect URI', async () => {
  const auth = await start(browser());
  assert.equal(auth.origin + auth.pathname, `${idp.issuer}/auth`);
  const q = auth.searchParams;
  assert.equal(q.get('response_type'), 'code');
  assert.equal(q.get('client_id'), CLIENT_ID);
  assert.equal(q.get('code_challenge_method'), 'S256');
  assert.match(q.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
  assert.match(q.get('state') ?? '', /^[A-Za-z0-9_-]{20,}$/);
  assert.match(q.get('nonce') ?? '', /^[A-Za-z0-9_-]{20,}$/);
  assert.equal(q.get('scope'), 'openid email profile groups');
  assert.equal(q.get('redirect_uri'), `${gw.url}/api/v1/sso/oidc/callback`);
});

test('a good login creates the user from the claims, maps groups to a role, and the session works on /api/v1', async () => {
  const { cookie } = await ssoLogin('alice');
  const r = await me(cookie);
  assert.equal(r.status, 200);
  const body = r.json<{ email: string; name: string; role: string; auth_type: string }>();
  assert.deepEqual([body.email, body.name, body.role, body.auth_type], ['alice@example.com', 'Alice', 'editor', 'session']);
  const flows = await raw(gw, 'GET', '/api/v1/namespaces', { cookie, 'sec-fetch-site': 'same-origin' });
  assert.equal(flows.status, 200);
  const audit = await gw.db.pool.query(`SELECT action, details FROM audit_events WHERE actor_id = (SELECT id FROM users WHERE email = 'alice@example.com') ORDER BY id`);
  assert.deepEqual(
    audit.rows.map((x) => x.action),
    ['user.create', 'auth.login'],
  );
  assert.equal(audit.rows[1].details.method, 'oidc');
});

test('the group mapping is applied again at every login: up to admin, then down to the default role', async () => {
  idp.accounts.get('alice')!.groups = ['svc-editors', 'svc-admins'];
  assert.equal((await me((await ssoLogin('alice')).cookie)).json<{ role: string }>().role, 'admin');
  idp.accounts.get('alice')!.groups = ['unmapped'];
  idp.accounts.get('alice')!.name = 'Alice Liddell';
  const r = (await me((await ssoLogin('alice')).cookie)).json<{ role: string; name: string }>();
  assert.deepEqual([r.role, r.name], ['viewer', 'Alice Liddell']);
  const changes = await gw.db.pool.query(
    `SELECT details FROM audit_events WHERE action = 'user.update' AND target_id = (SELECT id FROM users WHERE email = 'alice@example.com') ORDER BY id`,
  );
  assert.deepEqual(
    changes.rows.map((x) => x.details.role),
    [
      { before: 'editor', after: 'admin' },
      { before: 'admin', after: 'viewer' },
    ],
  );
  assert.equal((await gw.db.pool.query(`SELECT count(*)::int AS n FROM users WHERE email = 'alice@example.com'`)).rows[0].n, 1, 'the same user each time');
  // The groups of the last login are kept for role bindings of IdP groups (docs/operating/roles.md).
  const groups = await gw.db.pool.query(`SELECT group_name FROM user_groups WHERE user_id = (SELECT id FROM users WHERE email = 'alice@example.com') ORDER BY group_name`);
  assert.deepEqual(
    groups.rows.map((x) => x.group_name),
    ['unmapped'],
  );
  idp.accounts.get('alice')!.groups = ['svc-editors'];
});

test('a wrong state is refused', async () => {
  const b = browser();
  const cb = new URL(await toCallback(b, 'alice'));
  cb.searchParams.set('state', crypto.randomBytes(32).toString('base64url'));
  await refused(b, cb.href, 'state');
});

test('a login without its state cookie (another browser) is refused', async () => {
  const b = browser();
  const cb = await toCallback(b, 'alice');
  await refused(browser(), cb, 'state');
});

test('a replayed code is refused: with the used state, and with a fresh state', async () => {
  const b = browser();
  const cb = await toCallback(b, 'alice');
  assert.equal(await back(b, cb), '/');
  const cookieBefore = b.cookie(gw.url, 'svc_session');
  // The same callback again (the state was used).
  const replay = browser();
  replay.jar.set(gw.url, new Map(b.jar.get(gw.url)));
  replay.jar.get(gw.url)!.delete('svc_session');
  await refused(replay, cb, 'state');
  // The old code under a new login's state: the IdP refuses the code.
  const c = browser();
  const fresh = new URL(await toCallback(c, 'alice'));
  const old = new URL(cb);
  fresh.searchParams.set('code', old.searchParams.get('code')!);
  await refused(c, fresh.href, 'token');
  assert.ok(cookieBefore);
});

test('an expired ID token is refused (judged on the gateway clock)', async () => {
  const b = browser();
  const cb = await toCallback(b, 'alice');
  offset += 5 * 60_000; // the ID token lives 60 s; tolerance 30 s
  try {
    await refused(b, cb, 'token');
  } finally {
    offset -= 5 * 60_000;
  }
  const logged = gw.logs().filter((l) => l.msg === 'sso login refused' || l.message === 'sso login refused');
  assert.ok(
    logged.some((l) => /exp|expired|timestamp/i.test(String(l.detail))),
    JSON.stringify(logged.at(-1)),
  );
});

test('an answer from a foreign issuer is refused', async () => {
  const b = browser();
  const cb = await toCallback(b, 'alice', foreign);
  assert.equal(new URL(cb).searchParams.get('iss'), foreign.issuer, 'the foreign IdP answered');
  await refused(b, cb, 'token');
});

test('a disabled user cannot sign in through SSO', async () => {
  await ssoLogin('bob');
  const bob = (await gw.db.pool.query(`SELECT id FROM users WHERE email = 'bob@example.com'`)).rows[0].id as string;
  assert.equal((await asAdmin('PATCH', `/api/v1/users/${bob}`, { disabled: true })).status, 200);
  const b = browser();
  await refused(b, await toCallback(b, 'bob'), 'disabled');
  const failed = await gw.db.pool.query(`SELECT details FROM audit_events WHERE action = 'auth.login_failed' ORDER BY id DESC LIMIT 1`);
  assert.deepEqual([failed.rows[0].details.reason, failed.rows[0].details.email], ['disabled', 'bob@example.com']);
});

test('an unverified email is refused and creates no user', async () => {
  const b = browser();
  await refused(b, await toCallback(b, 'carol'), 'email_unverified');
  assert.equal((await gw.db.pool.query(`SELECT count(*)::int AS n FROM users WHERE email = 'carol@example.com'`)).rows[0].n, 0);
});

test('the password login is refused for an SSO user when turned off, and only for SSO users', async () => {
  await makeUser(gw, 'dave@example.com', 'operator');
  const password = () => raw(gw, 'POST', '/api/v1/auth/login', { 'content-type': 'application/json' }, JSON.stringify({ email: 'dave@example.com', password: PASSWORD }));
  assert.equal((await password()).status, 200, 'a password user');
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ link_by_email: true }))).status, 200);
  const { cookie } = await ssoLogin('dave'); // linked by the verified email (link_by_email)
  assert.equal((await me(cookie)).json<{ role: string }>().role, 'viewer');
  assert.equal((await password()).status, 200, 'allowed while the setting is off');
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ password_login_disabled: true }))).status, 200);
  const r = await password();
  assert.equal(r.status, 401);
  assert.equal(r.json().error.code, 'unauthorized');
  assert.equal(
    (await raw(gw, 'POST', '/api/v1/auth/login', { 'content-type': 'application/json' }, JSON.stringify({ email: 'admin@example.com', password: PASSWORD }))).status,
    200,
    'not an SSO user',
  );
  assert.equal((await me((await ssoLogin('dave')).cookie)).status, 200, 'SSO still works');
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ link_by_email: false }))).status, 200);
  const audit = await gw.db.pool.query(`SELECT details FROM audit_events WHERE action = 'sso.oidc_update' ORDER BY id`);
  assert.deepEqual(
    audit.rows.map((x) => x.details.after.password_login_disabled),
    [false, true, false],
  );
});

test('logout ends the svc session and names the IdP end-session URL', async () => {
  const { cookie } = await ssoLogin('alice');
  const r = await raw(gw, 'POST', '/api/v1/sso/oidc/logout', { cookie, 'sec-fetch-site': 'same-origin' });
  assert.equal(r.status, 200, r.body);
  assertConforms('oidcLogout', 200, r.json());
  const end = new URL(r.json<{ end_session_url: string }>().end_session_url);
  assert.equal(end.origin + end.pathname, `${idp.issuer}/session/end`);
  assert.equal(end.searchParams.get('client_id'), CLIENT_ID);
  assert.equal(end.searchParams.get('post_logout_redirect_uri'), `${gw.url}/login`);
  assert.match(String(r.headers['set-cookie']), /svc_session=;/);
  assert.equal((await me(cookie)).status, 401);
  // The IdP accepts the URL (its logout confirmation page).
  const b = browser();
  assert.equal((await b.request('GET', end.href)).status, 200);
});

const userId = async (email: string) => (await gw.db.pool.query<{ id: string }>(`SELECT id FROM users WHERE email = $1`, [email])).rows[0]?.id;
const identitiesOf = async (email: string) =>
  (await gw.db.pool.query(`SELECT i.subject FROM sso_identities i JOIN users u ON u.id = i.user_id WHERE u.email = $1 ORDER BY i.subject`, [email])).rows.map(
    (r) => r.subject as string,
  );
const lastFailure = async () => (await gw.db.pool.query(`SELECT details FROM audit_events WHERE action = 'auth.login_failed' ORDER BY id DESC LIMIT 1`)).rows[0]?.details;

test("an IdP login with the local admin's email does not sign in as the admin, with link_by_email off or on", async () => {
  idp.accounts.set('mallory', { email: 'Admin@Example.com', email_verified: true, name: 'Mallory', groups: ['svc-admins'] });
  for (const linkByEmail of [false, true]) {
    assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ link_by_email: linkByEmail }))).status, 200);
    const b = browser();
    await refused(b, await toCallback(b, 'mallory'), 'link_required');
    assert.deepEqual(await identitiesOf('admin@example.com'), [], `no identity linked to the admin (link_by_email ${linkByEmail})`);
    assert.equal((await gw.db.pool.query(`SELECT count(*)::int AS n FROM users WHERE email = 'admin@example.com'`)).rows[0].n, 1, 'nothing created');
    assert.deepEqual([(await lastFailure()).reason, (await lastFailure()).email], ['link_required', 'admin@example.com']);
  }
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ link_by_email: false }))).status, 200);
  const logged = gw.logs().filter((l) => l.message === 'sso login refused' && l.reason === 'link_required');
  assert.match(String(logged.at(-1)?.detail), /admin account: an IdP identity is never linked to it by email/);
});

test('a non-admin is linked by email only while link_by_email is on', async () => {
  const erin = await makeUser(gw, 'erin@example.com', 'editor');
  idp.accounts.set('erin', { email: 'erin@example.com', email_verified: true, name: 'Erin', groups: ['svc-editors'] });
  const b = browser();
  await refused(b, await toCallback(b, 'erin'), 'link_required');
  assert.deepEqual(await identitiesOf('erin@example.com'), []);
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ link_by_email: true }))).status, 200);
  const r = (await me((await ssoLogin('erin')).cookie)).json<{ id: string; email: string; role: string }>();
  assert.deepEqual([r.id, r.email, r.role], [erin.id, 'erin@example.com', 'editor'], 'signed in as the existing user');
  assert.deepEqual(await identitiesOf('erin@example.com'), ['erin']);
  const link = await gw.db.pool.query(`SELECT details FROM audit_events WHERE action = 'user.sso_link' AND target_id = $1`, [erin.id]);
  assert.deepEqual(
    link.rows.map((x) => x.details),
    [{ via: 'email', issuer: idp.issuer }],
  );
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ link_by_email: false }))).status, 200);
  assert.equal((await me((await ssoLogin('erin')).cookie)).status, 200, 'once linked, the identity signs in whatever the setting');
});

test('a signed-in user links an IdP identity from the profile: the callback links it to that user, whatever its email', async () => {
  // The admin signs in with the password; the IdP account has another email.
  idp.accounts.set('root-idp', { email: 'root@corp.example.com', email_verified: true, name: 'Administrator', groups: ['svc-admins'] });
  const b = browser();
  b.jar.set(gw.url, new Map([['svc_session', admin.slice('svc_session='.length)]]));
  const headers = { 'sec-fetch-site': 'same-origin' };
  const before = await b.request('GET', `${gw.url}/api/v1/sso/oidc/link`, undefined, headers);
  assert.equal(before.status, 200, before.body);
  assertConforms('getOidcLink', 200, JSON.parse(before.body));
  assert.deepEqual(JSON.parse(before.body), { offered: true, identities: [] });
  const started = await b.request('POST', `${gw.url}/api/v1/sso/oidc/link`, undefined, headers);
  assert.equal(started.status, 200, started.body);
  assertConforms('startOidcLink', 200, JSON.parse(started.body));
  assert.ok(b.cookie(gw.url, 'svc_oidc'), 'the login state cookie is set');
  const auth = new URL(JSON.parse(started.body).authorization_url as string);
  assert.equal(auth.origin + auth.pathname, `${idp.issuer}/auth`);
  const cb = await b.throughIdp(auth.href, 'root-idp', `${gw.url}/api/v1/sso/oidc/callback`);
  assert.equal(await back(b, cb), '/profile?sso_linked=1');
  assert.deepEqual(await identitiesOf('admin@example.com'), ['root-idp']);
  assert.equal(await userId('root@corp.example.com'), undefined, 'no user made from the IdP email');
  const linkAudit = await gw.db.pool.query(`SELECT actor_id, details FROM audit_events WHERE action = 'user.sso_link' AND target_id = $1`, [await userId('admin@example.com')]);
  assert.deepEqual(
    linkAudit.rows.map((x) => [x.actor_id, x.details.via]),
    [[await userId('admin@example.com'), 'profile']],
  );
  const after = JSON.parse((await b.request('GET', `${gw.url}/api/v1/sso/oidc/link`, undefined, headers)).body);
  assert.deepEqual(
    after.identities.map((i: { issuer: string }) => i.issuer),
    [idp.issuer],
  );
  // The identity now signs in as the admin.
  const r = (await me((await ssoLogin('root-idp')).cookie)).json<{ email: string; role: string }>();
  assert.deepEqual([r.email, r.role], ['admin@example.com', 'admin']);

  // Refused: a token (no browser session), another user's identity, a callback in a browser without the session.
  const token = await raw(gw, 'POST', '/api/v1/sso/oidc/link', { authorization: `Bearer ${await makeToken(gw, admin, 'admin')}` });
  assert.equal(token.status, 409, token.body);
  const c = browser();
  c.jar.set(gw.url, new Map([['svc_session', admin.slice('svc_session='.length)]]));
  const again = JSON.parse((await c.request('POST', `${gw.url}/api/v1/sso/oidc/link`, undefined, headers)).body);
  assert.equal(await back(c, await c.throughIdp(again.authorization_url, 'alice', `${gw.url}/api/v1/sso/oidc/callback`)), '/profile?sso_error=identity_taken');
  const d = browser();
  d.jar.set(gw.url, new Map([['svc_session', admin.slice('svc_session='.length)]]));
  const third = JSON.parse((await d.request('POST', `${gw.url}/api/v1/sso/oidc/link`, undefined, headers)).body);
  const cb3 = await d.throughIdp(third.authorization_url, 'root-idp', `${gw.url}/api/v1/sso/oidc/callback`);
  d.jar.get(gw.url)!.delete('svc_session');
  assert.equal(await back(d, cb3), '/profile?sso_error=link_session');
  const failed = await gw.db.pool.query(`SELECT details FROM audit_events WHERE action = 'user.sso_link_failed' ORDER BY id`);
  assert.deepEqual(
    failed.rows.map((x) => x.details.reason),
    ['identity_taken', 'link_session'],
  );
  assert.deepEqual(await identitiesOf('admin@example.com'), ['root-idp'], 'unchanged');
});

test('allowed email domains: a login from another domain is refused and creates nothing', async () => {
  idp.accounts.set('outsider', { email: 'out@other.example.org', email_verified: true, name: 'Out', groups: [] });
  const put = await asAdmin('PUT', '/api/v1/sso/oidc', settings({ allowed_email_domains: ['example.com', 'corp.example.com'] }));
  assert.equal(put.status, 200, put.body);
  assert.deepEqual(put.json<{ allowed_email_domains: string[] }>().allowed_email_domains, ['example.com', 'corp.example.com']);
  const b = browser();
  await refused(b, await toCallback(b, 'outsider'), 'domain_not_allowed');
  assert.equal(await userId('out@other.example.org'), undefined);
  assert.equal((await me((await ssoLogin('alice')).cookie)).status, 200, 'an allowed domain');
  const bad = await asAdmin('PUT', '/api/v1/sso/oidc', settings({ allowed_email_domains: ['Not A Domain'] }));
  assert.equal(bad.status, 422);
  assert.match(String(bad.json().error.details?.[0]?.field), /allowed_email_domains/);
  // Omitted, the stored list stays; an empty list allows any domain again.
  assert.deepEqual((await asAdmin('PUT', '/api/v1/sso/oidc', settings())).json<{ allowed_email_domains: string[] }>().allowed_email_domains, ['example.com', 'corp.example.com']);
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ allowed_email_domains: [] }))).status, 200);
});

test('google_hd and entra_tid: an ID token whose hd or tid differs is refused', async () => {
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ google_hd: 'example.com' }))).status, 200);
  const b = browser();
  await refused(b, await toCallback(b, 'alice'), 'hd_mismatch');
  idp.accounts.get('alice')!.hd = 'other.example.com';
  const c = browser();
  await refused(c, await toCallback(c, 'alice'), 'hd_mismatch');
  idp.accounts.get('alice')!.hd = 'example.com';
  assert.equal((await me((await ssoLogin('alice')).cookie)).status, 200);
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ google_hd: '', entra_tid: '11111111-2222-3333-4444-555555555555' }))).status, 200);
  idp.accounts.get('alice')!.tid = '99999999-2222-3333-4444-555555555555';
  const d = browser();
  await refused(d, await toCallback(d, 'alice'), 'tid_mismatch');
  idp.accounts.get('alice')!.tid = '11111111-2222-3333-4444-555555555555';
  assert.equal((await me((await ssoLogin('alice')).cookie)).status, 200);
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ entra_tid: '' }))).status, 200);
});

test('existing users only: a new identity is refused and creates nothing; linked users still sign in', async () => {
  idp.accounts.set('newbie', { email: 'newbie@example.com', email_verified: true, name: 'New', groups: ['svc-editors'] });
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ existing_users_only: true }))).status, 200);
  const b = browser();
  await refused(b, await toCallback(b, 'newbie'), 'no_account');
  assert.equal(await userId('newbie@example.com'), undefined);
  assert.equal((await lastFailure()).reason, 'no_account');
  assert.equal((await me((await ssoLogin('alice')).cookie)).status, 200);
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ existing_users_only: false }))).status, 200);
});

test('new settings default to default_role none and every sign-up control off; an update that omits them keeps the stored values', async () => {
  assert.equal((await asAdmin('DELETE', '/api/v1/sso/oidc')).status, 204);
  const noRole: Record<string, unknown> = settings();
  delete noRole.default_role;
  const put = await asAdmin('PUT', '/api/v1/sso/oidc', noRole);
  assert.equal(put.status, 200, put.body);
  const got = put.json<Record<string, unknown>>();
  assert.deepEqual(
    [got.default_role, got.link_by_email, got.allowed_email_domains, got.google_hd, got.entra_tid, got.existing_users_only, got.session_max_age_seconds],
    ['none', false, [], '', '', false, null],
  );
  idp.accounts.set('fresh', { email: 'fresh@example.com', email_verified: true, name: 'Fresh', groups: [] });
  assert.equal((await me((await ssoLogin('fresh')).cookie)).json<{ role: string }>().role, 'none');
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ default_role: 'viewer', existing_users_only: true }))).status, 200);
  const kept = (await asAdmin('PUT', '/api/v1/sso/oidc', noRole)).json<{ default_role: string; existing_users_only: boolean }>();
  assert.deepEqual([kept.default_role, kept.existing_users_only], ['viewer', true]);
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ existing_users_only: false }))).status, 200);
});

test('an SSO session ends after session_max_age_seconds however it is used; a password session does not', async () => {
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ session_max_age_seconds: 600 }))).status, 200);
  const { cookie } = await ssoLogin('alice');
  const row = await gw.db.pool.query(`SELECT created_at, max_expires_at FROM sessions ORDER BY created_at DESC LIMIT 1`);
  assert.equal(row.rows[0].max_expires_at.getTime() - row.rows[0].created_at.getTime(), 600_000);
  try {
    for (const minutes of [3, 6, 9]) {
      offset = minutes * 60_000;
      assert.equal((await me(cookie)).status, 200, `used at ${minutes} minutes`);
      assert.equal((await me(admin)).status, 200);
    }
    offset = 10 * 60_000 + 5_000;
    const r = await me(cookie);
    assert.equal(r.status, 401, r.body);
    assert.equal((await me(admin)).status, 200, 'the password session slides on');
  } finally {
    offset = 0;
  }
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings({ session_max_age_seconds: null }))).status, 200);
  const bad = await asAdmin('PUT', '/api/v1/sso/oidc', settings({ session_max_age_seconds: 10 }));
  assert.equal(bad.status, 422);
  assert.match(String(bad.json().error.details?.[0]?.field), /session_max_age_seconds/);
});

test('disabling a user ends their sessions and revokes their API tokens; enabling them again brings neither back', async () => {
  const gail = await makeUser(gw, 'gail@example.com', 'editor');
  const cookie = await login(gw, 'gail@example.com');
  const token = await makeToken(gw, cookie, 'editor');
  const bearer = () => raw(gw, 'GET', '/api/v1/auth/me', { authorization: `Bearer ${token}` });
  assert.equal((await bearer()).status, 200);
  assert.equal((await asAdmin('PATCH', `/api/v1/users/${gail.id}`, { disabled: true })).status, 200);
  assert.equal((await me(cookie)).status, 401);
  assert.equal((await bearer()).status, 401);
  const tokens = await gw.db.pool.query(`SELECT revoked_at FROM api_tokens WHERE user_id = $1`, [gail.id]);
  assert.ok(tokens.rows.length === 1 && tokens.rows[0].revoked_at, 'revoked');
  assert.equal((await gw.db.pool.query(`SELECT count(*)::int AS n FROM sessions WHERE user_id = $1`, [gail.id])).rows[0].n, 0);
  assert.equal((await asAdmin('PATCH', `/api/v1/users/${gail.id}`, { disabled: false })).status, 200);
  assert.equal((await bearer()).status, 401, 'the token stays revoked');
  assert.equal((await me(cookie)).status, 401, 'the session stays ended');
});

test('no response and no log line carries the client secret', async () => {
  const texts = [
    ...responses,
    ...browsers.flatMap((b) => b.seen.map((s) => `${s.method} ${s.url} -> ${s.status} ${JSON.stringify(s.headers)} ${s.body}`)),
    ...gw.logs().map((l) => JSON.stringify(l)),
  ];
  assert.ok(texts.length > 50, `${texts.length} texts checked`);
  assert.ok(
    texts.some((t) => t.includes('sso login refused')),
    'refusals are logged',
  );
  assertNoLeak([SECRET], texts);
});

test("the issuer's keys are cached across logins and a rotated key is fetched (at most once a minute)", async () => {
  // The IdP restarts with its own key; saving the settings reads discovery and the keys again.
  await idp.close();
  idp = await startIdp({ ...idpClient, keys: [signingKey('k-old')], accounts: idp.accounts });
  assert.equal((await asAdmin('PUT', '/api/v1/sso/oidc', settings())).status, 200);
  await ssoLogin('alice');
  const fetchedAt = Date.now();
  // It rotates to a new key: within the minute the cached keys are used and the new one is unknown.
  await idp.close();
  idp = await startIdp({ ...idpClient, keys: [signingKey('k-new')], accounts: idp.accounts });
  const b = browser();
  await refused(b, await toCallback(b, 'alice'), 'token');
  const detail = String(
    gw
      .logs()
      .filter((l) => l.message === 'sso login refused')
      .at(-1)?.detail,
  );
  assert.match(detail, /key/i, detail);
  // A minute after the last fetch, an unknown key makes the gateway fetch the JWKS again.
  await new Promise((r) => setTimeout(r, Math.max(0, fetchedAt + 61_000 - Date.now())));
  assert.equal((await me((await ssoLogin('alice')).cookie)).status, 200);
});

test('an IdP that cannot be reached sends the browser back to the login page with the reason', async () => {
  // A second gateway instance on the same database, which has not read the discovery document yet.
  const port = await freePort();
  const second = await startGatewayAt(port, { SVC_PUBLIC_URL: `http://127.0.0.1:${port}`, SVC_MASTER_KEYS: MASTER_KEYS }, gw.db.url);
  try {
    await idp.close();
    const r = await browser().request('GET', `${second.url}/api/v1/sso/oidc/login`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.location, '/login?sso_error=unavailable');
    assert.ok(second.logs().some((l) => l.message === 'sso login: the IdP or the client secret cannot be reached'));
  } finally {
    await second.close();
  }
});

test('SSO removed: the login is no longer offered', async () => {
  assert.equal((await asAdmin('DELETE', '/api/v1/sso/oidc')).status, 204);
  assert.deepEqual((await raw(gw, 'GET', '/api/v1/sso/status')).json(), { oidc: false });
  const r = await browser().request('GET', `${gw.url}/api/v1/sso/oidc/login`);
  assert.equal(r.headers.location, '/login?sso_error=not_configured');
});
