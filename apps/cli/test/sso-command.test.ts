// `svc sso` against a real stack and a real OpenID Connect
// provider (oidc-provider on loopback), as a subprocess: an admin stores the
// client secret with `svc platform-secret set`, configures single sign-on with `svc sso
// set` (the gateway reads the IdP's discovery document first), reads it back
// in every format, maps IdP groups to roles, changes one field keeping the
// others, and deletes it. The client secret's value appears in no output of
// any command; bad arguments are usage errors (exit 2); the API's refusals
// come out with their code and fields (exit 1); a non-admin is refused.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { createUser } from '@svc/identity';
import { freePort, startIdp, type TestIdp } from '../../../e2e/test/oidc-provider-standin.js';
import { startStack, svc, tempHome, type Stack, type SvcResult } from './support.js';

type OidcSettings = components['schemas']['OidcSettings'];

const SECRET = `cli-oidc-secret-${crypto.randomBytes(12).toString('hex')}`;
let s: Stack;
let idp: TestIdp;
const home = tempHome();
let env: Record<string, string>;
/** Every output of every command run, searched for the secret's value at the end. */
const outputs: string[] = [];

async function run(args: string[], opts: { env?: Record<string, string>; stdin?: string } = {}): Promise<SvcResult> {
  const r = await svc(args, { env: opts.env ?? env, ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}) });
  outputs.push(`svc ${args.join(' ')}\n${r.stdout}\n${r.stderr}`);
  return r;
}

async function settings(): Promise<OidcSettings> {
  const r = await run(['sso', 'get', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as OidcSettings;
}

before(async () => {
  s = await startStack({ maintenance: false, dispatchers: 0 });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  idp = await startIdp({ clientId: 'svc-cli', clientSecret: SECRET, redirectUri: `${s.url}/api/v1/sso/oidc/callback`, postLogoutRedirectUri: `${s.url}/login` });
});
after(async () => {
  await idp?.close();
  await s?.stop();
  home.cleanup();
});

test('svc sso set, get, group-role and delete; no output holds the client secret', async () => {
  const none = await run(['sso', 'get']);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /single sign-on is not configured \(code not_found, HTTP 404/);
  const status0 = await run(['sso', 'status', '-o', 'json']);
  assert.equal(status0.code, 0, status0.stderr);
  assert.deepEqual(JSON.parse(status0.stdout), { oidc: false });

  const secret = await run(['platform-secret', 'set', 'oidc_client_secret'], { stdin: SECRET });
  assert.equal(secret.code, 0, secret.stderr);

  // The first time, the four fields without a default are needed.
  const partial = await run(['sso', 'set', '--issuer', idp.issuer, '--client-id', 'svc-cli']);
  assert.equal(partial.code, 2);
  assert.match(partial.stderr, /not configured yet: give --display-name, --client-secret-ref/);
  assert.equal((await s.api('GET', '/api/v1/sso/oidc')).status, 404, 'nothing was written');

  const made = await run([
    'sso',
    'set',
    '--display-name',
    'Test IdP',
    '--issuer',
    idp.issuer,
    '--client-id',
    'svc-cli',
    '--client-secret-ref',
    'oidc_client_secret',
    '--scopes',
    'email,profile,groups',
    '--groups-claim',
    'groups',
    '--password-login',
    'off',
  ]);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stderr, new RegExp(`single sign-on settings created; register ${s.url}/api/v1/sso/oidc/callback as the redirect URI`));
  assert.match(made.stdout, /issuer:\s+http:\/\/127\.0\.0\.1:\d+\n/);

  const got = await settings();
  assert.deepEqual(
    {
      display_name: got.display_name,
      issuer_url: got.issuer_url,
      client_id: got.client_id,
      client_secret_secret: got.client_secret_secret,
      scopes: got.scopes,
      groups_claim: got.groups_claim,
      password_login_disabled: got.password_login_disabled,
      default_role: got.default_role,
      group_roles: got.group_roles,
      enabled: got.enabled,
      redirect_uri: got.redirect_uri,
      updated_by: got.updated_by,
    },
    {
      display_name: 'Test IdP',
      issuer_url: idp.issuer,
      client_id: 'svc-cli',
      client_secret_secret: 'oidc_client_secret',
      scopes: ['email', 'profile', 'groups'],
      groups_claim: 'groups',
      password_login_disabled: true,
      default_role: 'none',
      group_roles: [],
      enabled: true,
      redirect_uri: `${s.url}/api/v1/sso/oidc/callback`,
      updated_by: 'e2e@example.com',
    },
  );
  const table = await run(['sso', 'get']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /client secret:\s+secret oidc_client_secret \(the value is never shown\)/);
  assert.match(table.stdout, /scopes:\s+openid email profile groups\n/);
  assert.match(table.stdout, /password login:\s+off for SSO users\n/);
  const yaml = await run(['sso', 'get', '-o', 'yaml']);
  assert.equal(yaml.code, 0, yaml.stderr);
  assert.match(yaml.stdout, /^client_secret_secret: oidc_client_secret$/m);
  const status = await run(['sso', 'status']);
  assert.match(status.stdout, /offered:\s+yes\n.*button:\s+Sign in with Test IdP/s);

  // Group to role mappings: add, replace, list, remove.
  for (const [g, r] of [
    ['team-a', 'editor'],
    ['team-b', 'viewer'],
  ]) {
    const add = await run(['sso', 'group-role', 'add', g!, r!]);
    assert.equal(add.code, 0, add.stderr);
    assert.equal(add.stderr, `group ${g} -> ${r}\n`);
  }
  const replace = await run(['sso', 'group-role', 'add', 'team-a', 'admin']);
  assert.equal(replace.code, 0, replace.stderr);
  assert.equal(replace.stderr, 'group team-a: editor -> admin\n');
  const list = await run(['sso', 'group-role', 'list']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /GROUP\s+ROLE\s*\nteam-a\s+admin\s*\nteam-b\s+viewer/);
  const removed = await run(['sso', 'group-role', 'remove', 'team-b']);
  assert.equal(removed.code, 0, removed.stderr);
  assert.deepEqual(JSON.parse((await run(['sso', 'group-role', 'list', '-o', 'json'])).stdout), [{ group: 'team-a', role: 'admin' }]);
  const missing = await run(['sso', 'group-role', 'remove', 'team-b']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /group team-b has no mapping/);

  // One flag changes one field; the others (mappings included) stay.
  const one = await run(['sso', 'set', '--default-role', 'operator', '--password-login', 'on', '-o', 'json']);
  assert.equal(one.code, 0, one.stderr);
  assert.match(one.stderr, /settings updated/);
  const after1 = JSON.parse(one.stdout) as OidcSettings;
  assert.deepEqual(
    [after1.default_role, after1.password_login_disabled, after1.issuer_url, after1.client_secret_secret, after1.group_roles],
    ['operator', false, idp.issuer, 'oidc_client_secret', [{ group: 'team-a', role: 'admin' }]],
  );

  // The API's refusal, in its envelope: an issuer whose discovery document cannot be read, a secret that does not exist.
  const bad = await run(['sso', 'set', '--issuer', `http://127.0.0.1:${await freePort()}`, '--client-secret-ref', 'no_such_secret']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /\(code validation_failed, HTTP 422, request ID \S+\)/);
  assert.match(bad.stderr, /^ {2}client_secret_secret: no platform secret no_such_secret: set it first/m);
  assert.match(bad.stderr, /^ {2}issuer_url: the discovery document cannot be read/m);
  assert.equal((await settings()).issuer_url, idp.issuer, 'unchanged');

  const audit = await s.db.query(`SELECT action FROM audit_events WHERE action LIKE 'sso.%' ORDER BY id`);
  assert.deepEqual(
    audit.rows.map((r: { action: string }) => r.action),
    ['sso.oidc_create', 'sso.oidc_update', 'sso.oidc_update', 'sso.oidc_update', 'sso.oidc_update', 'sso.oidc_update'],
  );

  const del = await run(['sso', 'delete']);
  assert.equal(del.code, 0, del.stderr);
  assert.equal(del.stderr, 'single sign-on settings deleted\n');
  assert.equal((await s.api('GET', '/api/v1/sso/oidc')).status, 404);
  assert.deepEqual(JSON.parse((await run(['sso', 'status', '-o', 'json'])).stdout), { oidc: false });
  const again = await run(['sso', 'delete']);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /code not_found/);

  // The secret's value was sent once (svc secret set, on stdin) and came back in no output.
  assert.ok(outputs.length > 20 && outputs.some((o) => o.includes('oidc_client_secret')), 'the outputs were recorded');
  for (const o of outputs) assert.ok(!o.includes(SECRET), `the client secret's value is in the output of ${o.split('\n')[0]}`);
});

test('svc sso set the sign-up controls: domains, hd, tid, existing users only, link by email, session max age; one flag keeps the others', async () => {
  const made = await run([
    'sso',
    'set',
    '--display-name',
    'Test IdP',
    '--issuer',
    idp.issuer,
    '--client-id',
    'svc-cli',
    '--client-secret-ref',
    'oidc_client_secret',
    '--allowed-domains',
    'example.com,Corp.Example.com',
    '--google-hd',
    'example.com',
    '--entra-tid',
    '11111111-2222-3333-4444-555555555555',
    '--existing-users-only',
    'on',
    '--link-by-email',
    'on',
    '--session-max-age',
    '12h',
  ]);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /link by email:\s+on \(never to an admin\)\n/);
  assert.match(made.stdout, /allowed domains:\s+example\.com, corp\.example\.com\n/);
  assert.match(made.stdout, /google hd:\s+example\.com\n/);
  assert.match(made.stdout, /new users:\s+none \(existing users only\)\n/);
  assert.match(made.stdout, /session max age:\s+12h\n/);
  const got = await settings();
  assert.deepEqual(
    [got.default_role, got.allowed_email_domains, got.google_hd, got.entra_tid, got.existing_users_only, got.link_by_email, got.session_max_age_seconds],
    ['none', ['example.com', 'corp.example.com'], 'example.com', '11111111-2222-3333-4444-555555555555', true, true, 43_200],
  );
  // One flag changes one field; the controls stay.
  assert.equal((await run(['sso', 'set', '--display-name', 'Corp IdP'])).code, 0);
  const kept = await settings();
  assert.deepEqual(
    [kept.display_name, kept.allowed_email_domains, kept.existing_users_only, kept.session_max_age_seconds],
    ['Corp IdP', ['example.com', 'corp.example.com'], true, 43_200],
  );
  // Back to open: any domain, nothing checked, no cap.
  const open = await run([
    'sso',
    'set',
    '--allowed-domains',
    '',
    '--google-hd',
    '',
    '--entra-tid',
    '',
    '--existing-users-only',
    'off',
    '--link-by-email',
    'off',
    '--session-max-age',
    'off',
    '-o',
    'json',
  ]);
  assert.equal(open.code, 0, open.stderr);
  const o = JSON.parse(open.stdout) as OidcSettings;
  assert.deepEqual([o.allowed_email_domains, o.google_hd, o.entra_tid, o.existing_users_only, o.link_by_email, o.session_max_age_seconds], [[], '', '', false, false, null]);
  const table = await run(['sso', 'get']);
  assert.match(table.stdout, /allowed domains:\s+any\n/);
  assert.match(table.stdout, /link by email:\s+off \(users link from their profile\)\n/);
  assert.match(table.stdout, /new users:\s+created with role none unless a group maps higher\n/);
  // The API refuses a domain that is not one (exit 1, the field named); the CLI refuses a bad duration or switch (exit 2).
  const badDomain = await run(['sso', 'set', '--allowed-domains', 'example.com,not_a_domain!']);
  assert.equal(badDomain.code, 1);
  assert.match(badDomain.stderr, /code validation_failed, HTTP 422/);
  assert.match(badDomain.stderr, /allowed_email_domains/);
  const short = await run(['sso', 'set', '--session-max-age', '10s']);
  assert.equal(short.code, 2);
  assert.match(short.stderr, /--session-max-age is between 5m and 365d; got "10s"/);
  const word = await run(['sso', 'set', '--session-max-age', 'soon']);
  assert.equal(word.code, 2);
  assert.match(word.stderr, /--session-max-age takes a duration/);
  const sw = await run(['sso', 'set', '--link-by-email', 'maybe']);
  assert.equal(sw.code, 2);
  assert.match(sw.stderr, /--link-by-email takes on or off, got "maybe"/);
  assert.equal((await run(['sso', 'delete'])).code, 0);
  for (const out of outputs) assert.ok(!out.includes(SECRET), `the client secret's value is in the output of ${out.split('\n')[0]}`);
});

test('bad arguments are usage errors; a non-admin is refused', async () => {
  const noServer = { ...home.env, SVC_URL: 'http://127.0.0.1:9', SVC_TOKEN: s.token };
  const onOff = await run(['sso', 'set', '--password-login', 'maybe'], { env: noServer });
  assert.equal(onOff.code, 2);
  assert.match(onOff.stderr, /--password-login takes on or off, got "maybe"/);
  const role = await run(['sso', 'group-role', 'add', 'team-a', 'owner'], { env: noServer });
  assert.equal(role.code, 2);
  assert.match(role.stderr, /none, viewer, operator, editor, admin; got "owner"/);
  const secretValue = await run(['sso', 'set', '--client-secret', 'x'], { env: noServer });
  assert.equal(secretValue.code, 2, 'no flag takes the secret value');
  assert.match(secretValue.stderr, /unknown option '--client-secret'/);

  await createUser(s.db, { email: 'vic@example.com', role: 'viewer', password: 'vic password 12' }, new Date());
  const login = await fetch(`${s.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'vic@example.com', password: 'vic password 12' }),
  });
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
  const tok = await fetch(`${s.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'vic', role: 'viewer' }),
  });
  const viewer = ((await tok.json()) as { secret: string }).secret;
  const refused = await run(['sso', 'get'], { env: { ...home.env, SVC_URL: s.url, SVC_TOKEN: viewer } });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /code forbidden, HTTP 403/);
});
