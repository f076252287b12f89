// Platform credentials out of every flow's reach, on a
// real stack: the git sources' credential and webhook secret and the OIDC
// client secret are platform secrets, which `secret()` never resolves.
//
// - The upgrade: on a database as the release before left it (no
//   platform_secrets, a git source naming a global secret), a scheduler
//   started on it applies the migration, which copies the global secret into
//   the platform store, and the source keeps syncing over HTTPS with its
//   token; after the admin deletes the global copy and rewraps, it still does.
// - An admin sets platform secrets; a git source (a real HTTPS git server
//   that wants the token) and SSO (a real OpenID Connect provider that wants
//   the client secret) name them and work.
// - A flow of team-a, saved and run by a user of global role `none` bound
//   editor on team-a, asks for each platform secret with `secret()`: the task
//   fails "not found", and no value is anywhere (API answers, the database's
//   every table as text: executions, task runs, history, logs, audit; the
//   services' output). The user cannot list or write platform secrets.
// - A git source or SSO setting naming a global or namespace secret, or a
//   provider reference, is 422 naming the field.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { prismaOf, type Db } from '@svc/db';
import { createGitSource, parseGitSourceInput } from '@svc/git-sources';
import { startHttpsGitServer, TestRepo, tempRoot, type HttpsGitServer } from '@svc/git-sources/testing';
import { rewrapSecrets } from '@svc/secrets';
import { flow, run, sh, until } from './engine-support.js';
import { startIdp, TestBrowser, type TestIdp } from './oidc-provider-standin.js';
import { boundUser, startStack, type Proc, type Stack } from './stack.js';

type PlatformSecret = components['schemas']['PlatformSecret'];
type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

const tag = () => crypto.randomBytes(9).toString('hex');
const V = {
  gitToken: `plat-git-token-${tag()}`,
  oidc: `plat-oidc-secret-${tag()}`,
  webhook: `plat-webhook-${tag()}`,
  global: `flow-readable-global-${tag()}`,
  ns: `flow-readable-ns-${tag()}`,
};
/** The stack's master key (e2e/test/stack.ts). */
const MASTER = { id: 'k1', key: Buffer.alloc(32, 9) };

let s: Stack;
let root: string;
let git: HttpsGitServer;
let idp: TestIdp;
let scheduler: Proc | undefined;
let boundToken = '';
/** Every answer the bound user got, searched for values at the end. */
const boundAnswers: string[] = [];

const flowFile = (id: string) => flow({ id, tasks: [{ id: 't', type: 'command', command: ['true'] }] });

async function asBound(method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${s.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${boundToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  boundAnswers.push(text);
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

const source = async (id: string) => (await s.api('GET', `/api/v1/git-sources/${id}`)).body;
const platformList = async () => (await s.api<{ items: PlatformSecret[] }>('GET', '/api/v1/platform-secrets')).body.items;

function startScheduler(): void {
  scheduler = s.startApp('scheduler', { SVC_GIT_SYNC_TICK_MS: '100', GIT_SSL_CAINFO: git.caFile });
}

/** Requests a sync of `id` and waits until the source has synced `sha`. */
async function syncedTo(id: string, sha: string): Promise<void> {
  assert.equal((await s.api('POST', `/api/v1/git-sources/${id}/sync`)).status, 202);
  await until(
    `source ${id} at ${sha}`,
    async () => {
      const src = await source(id);
      if (src.last_sync_status === 'failed' && src.last_synced_sha !== sha) throw new Error(`sync failed: ${src.last_error}`);
      return src.last_synced_sha === sha;
    },
    60_000,
  );
}

function assertRefused(r: { status: number; body: ErrorEnvelope }, field: string, message: RegExp): void {
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'validation_failed');
  const d = r.body.error.details?.find((x) => x.field === field);
  assert.ok(d, `a detail names ${field}: ${JSON.stringify(r.body.error.details)}`);
  assert.match(d.message, message);
}

before(async () => {
  s = await startStack({ maintenance: false });
  root = tempRoot();
  git = await startHttpsGitServer(root, V.gitToken);
  idp = await startIdp({ clientId: 'svc-plat', clientSecret: V.oidc, redirectUri: `${s.url}/api/v1/sso/oidc/callback`, postLogoutRedirectUri: `${s.url}/login` });
  idp.accounts.set('erin', { email: 'erin@example.com', email_verified: true, name: 'Erin', groups: [] });
  await s.saveFlow('team-a', { 'hello.flow.yaml': flowFile('hello') });
  const bound = await boundUser(s, { email: 'bound@example.com', password: 'bound password 1', namespace: 'team-a', role: 'editor', tokenName: 'bound', tokenRole: 'editor' });
  boundToken = bound.token;
});

after(async () => {
  await idp?.close();
  await git?.close();
  await s?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

test('upgrade: a git source that named a global secret keeps syncing once the migration moved it into the platform store', async () => {
  // The database as the release before left it: no platform store, the credential in a global secret.
  await s.db.query(`DROP TABLE platform_secrets`);
  await s.db.query(`DELETE FROM "_prisma_migrations" WHERE migration_name = '20261206110000_platform_secrets'`);
  // The git server takes one token: the same value, first as the old global secret.
  assert.equal((await s.api('PUT', '/api/v1/secrets/OLD_GIT_TOKEN', { value: V.gitToken })).status, 200);
  const repo = new TestRepo(root, 'upgraded');
  const first = repo.commit({ 'flows/up.flow.yaml': flowFile('up') }, 'first');
  // The old gateway accepted any global secret: written as it did, past today's check.
  const parsed = parseGitSourceInput({
    name: 'upgraded',
    repo_url: `${git.url}/upgraded.git`,
    auth_type: 'token',
    credential_secret_key: 'OLD_GIT_TOKEN',
    mappings: [{ namespace: 'upgraded', repo_path: 'flows' }],
  });
  assert.ok(parsed.ok);
  const old = await createGitSource({ db: { pool: s.db, prisma: prismaOf(s.db) as Db['prisma'] }, now: () => new Date() }, parsed.settings, 'e2e@example.com');
  const id = old.id;
  await s.db.query(`INSERT INTO sso_settings (id, display_name, issuer_url, client_id, client_secret_secret) VALUES ('oidc', 'Old IdP', $1, 'svc-plat', 'OLD_OIDC_SECRET')`, [
    idp.issuer,
  ]);
  assert.equal((await s.api('PUT', '/api/v1/secrets/OLD_OIDC_SECRET', { value: V.oidc })).status, 200);

  // The upgrade: the new scheduler applies the migration at its start, then syncs with the credential.
  startScheduler();
  await until(
    'the migration applied',
    async () => (await s.db.query(`SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '20261206110000_platform_secrets' AND finished_at IS NOT NULL`)).rowCount === 1,
    60_000,
  );
  await syncedTo(id, first);
  assert.equal((await s.api('GET', '/api/v1/flows/upgraded/up')).status, 200);
  assert.ok(
    git.requests.some((r) => r.authorized && r.url.includes('upgraded.git')),
    'the token reached the git server',
  );

  const listed = await platformList();
  for (const name of ['OLD_GIT_TOKEN', 'OLD_OIDC_SECRET']) {
    const p = listed.find((x) => x.name === name);
    assert.ok(p, `${name} was copied into the platform store`);
    assert.equal(p.upgraded_from_global, true);
    assert.equal(p.global_copy, true, 'the global secret stays until an admin deletes it');
  }
  // The SSO settings read the copy as well: a PUT naming it is accepted (it reads the value to check it).
  const sso = await s.api('GET', '/api/v1/sso/oidc');
  assert.equal(sso.body.client_secret_secret, 'OLD_OIDC_SECRET');

  // The admin deletes the flow-readable global copy, then rewraps: the source still syncs.
  assert.equal((await s.api('DELETE', '/api/v1/secrets/OLD_GIT_TOKEN')).status, 204);
  assert.equal((await s.api('DELETE', '/api/v1/secrets/OLD_OIDC_SECRET')).status, 204);
  const report = await rewrapSecrets(s.db, [MASTER]);
  assert.equal(report.platformSecrets, 2, JSON.stringify(report));
  assert.deepEqual(report.skipped, []);
  const after = (await platformList()).find((x) => x.name === 'OLD_GIT_TOKEN')!;
  assert.deepEqual([after.upgraded_from_global, after.global_copy], [false, false]);
  const second = repo.commit({ 'flows/up2.flow.yaml': flowFile('up2') }, 'second');
  await syncedTo(id, second);
  assert.equal((await s.api('GET', '/api/v1/flows/upgraded/up2')).status, 200);
  await s.api('DELETE', '/api/v1/sso/oidc');
});

test('an admin sets platform secrets (audited, never shown); a git source and SSO name them and work', async () => {
  if (!scheduler) startScheduler();
  for (const [name, value] of [
    ['PLATFORM_GIT_TOKEN', V.gitToken],
    ['PLATFORM_OIDC_SECRET', V.oidc],
    ['PLATFORM_GIT_WEBHOOK', V.webhook],
  ] as const) {
    const r = await s.api<PlatformSecret>('PUT', `/api/v1/platform-secrets/${name}`, { value });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body).sort(), ['created_at', 'global_copy', 'key_id', 'name', 'updated_at', 'updated_by', 'upgraded_from_global']);
    assert.deepEqual([r.body.name, r.body.key_id, r.body.global_copy, r.body.upgraded_from_global], [name, 'k1', false, false]);
  }
  const names = (await platformList()).map((p) => p.name);
  assert.ok(
    ['PLATFORM_GIT_TOKEN', 'PLATFORM_GIT_WEBHOOK', 'PLATFORM_OIDC_SECRET'].every((n) => names.includes(n)),
    names.join(),
  );
  const audit = (await s.api('GET', '/api/v1/audit?action=platform_secret.set&limit=50')).body.items as { target: unknown; payload: unknown }[];
  assert.equal(audit.length, 3, JSON.stringify(audit));
  assert.ok(JSON.stringify(audit).includes('PLATFORM_GIT_TOKEN'));
  // Deleting is audited too.
  assert.equal((await s.api('PUT', '/api/v1/platform-secrets/SHORT_LIVED', { value: `short-${tag()}` })).status, 200);
  assert.equal((await s.api('DELETE', '/api/v1/platform-secrets/SHORT_LIVED')).status, 204);
  assert.equal((await s.api('DELETE', '/api/v1/platform-secrets/SHORT_LIVED')).status, 404);
  assert.equal((await s.api('GET', '/api/v1/audit?action=platform_secret.delete')).body.items.length, 1);

  // A git source over HTTPS authenticates with the platform token; its push webhook checks the platform secret.
  const repo = new TestRepo(root, 'private');
  const first = repo.commit({ 'flows/p.flow.yaml': flowFile('p') }, 'first');
  const created = await s.api('POST', '/api/v1/git-sources', {
    name: 'private',
    repo_url: `${git.url}/private.git`,
    auth_type: 'token',
    credential_secret_key: 'PLATFORM_GIT_TOKEN',
    webhook_secret_key: 'PLATFORM_GIT_WEBHOOK',
    mappings: [{ namespace: 'synced', repo_path: 'flows' }],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await syncedTo(created.body.id, first);
  assert.equal((await s.api('GET', '/api/v1/flows/synced/p')).status, 200);
  const payload = JSON.stringify({ ref: 'refs/heads/main' });
  const sign = (key: string) => `sha256=${crypto.createHmac('sha256', key).update(payload).digest('hex')}`;
  const hook = (key: string) =>
    fetch(`${s.url}/hooks/git/${created.body.id}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(key) }, body: payload });
  assert.equal((await hook('wrong')).status, 401);
  assert.equal((await hook(V.webhook)).status, 202);

  // SSO: the client secret comes from the platform store; a whole login goes through.
  const put = await s.api('PUT', '/api/v1/sso/oidc', {
    display_name: 'Test IdP',
    issuer_url: idp.issuer,
    client_id: 'svc-plat',
    client_secret_secret: 'PLATFORM_OIDC_SECRET',
    default_role: 'viewer',
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const b = new TestBrowser();
  const start = await b.request('GET', `${s.url}/api/v1/sso/oidc/login`);
  assert.equal(start.status, 302, start.body);
  const callback = await b.throughIdp(start.headers.location!, 'erin', `${s.url}/api/v1/sso/oidc/callback`);
  const back = await b.request('GET', callback);
  assert.equal(back.status, 302, back.body);
  assert.doesNotMatch(back.headers.location ?? '', /sso_error=token/, 'the token endpoint accepted the client secret');
  assert.equal(back.headers.location, '/', `signed in, not sent to ${back.headers.location}`);
  assert.ok(b.cookie(s.url, 'svc_session'));
});

test('a flow of team-a saved and run by a none user bound editor there cannot read a platform secret, and sees no value anywhere', async () => {
  const names = ['PLATFORM_GIT_TOKEN', 'PLATFORM_OIDC_SECRET', 'PLATFORM_GIT_WEBHOOK', 'OLD_GIT_TOKEN'];
  const saved = await asBound('POST', '/api/v1/namespaces/team-a/changes', {
    message: 'try the platform credentials',
    changes: names.map((n, i) => ({
      op: 'put',
      path: `steal${i}.flow.yaml`,
      content: flow({ id: `steal${i}`, tasks: [{ id: 'read', type: 'command', env: { V: `{{ secret('${n}') }}` }, command: sh('echo "got $V"; printf "%s" "$V" | od -c') }] }),
    })),
  });
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  for (const [i, name] of names.entries()) {
    const started = await asBound('POST', `/api/v1/flows/team-a/steal${i}/executions`, {});
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const done = await s.waitEnded(started.body.id, 60_000);
    assert.equal(done.state, 'FAILED', `secret('${name}') must not resolve: ${JSON.stringify(done)}`);
    const ex = await asBound('GET', `/api/v1/executions/${started.body.id}`);
    const read = run(ex.body, 'read');
    assert.equal(read.reason, 'secret_not_found');
    assert.match(read.error, new RegExp(`"${name}" is not set in namespace team-a, its parents or the global scope`), read.error);
    await asBound('GET', `/api/v1/executions/${started.body.id}/logs`);
    await s.api('GET', `/api/v1/executions/${started.body.id}/logs`);
  }
  // The check a namespace editor may run says the same; the platform operations are the admin's.
  const check = await asBound('POST', '/api/v1/namespaces/team-a/secrets/PLATFORM_GIT_TOKEN/check');
  assert.equal(check.status, 200);
  assert.deepEqual([check.body.ok, check.body.error], [false, 'secret_not_found']);
  assert.equal((await asBound('GET', '/api/v1/platform-secrets')).status, 403);
  assert.equal((await asBound('PUT', '/api/v1/platform-secrets/PLATFORM_GIT_TOKEN', { value: 'replaced-by-editor' })).status, 403);
  assert.equal((await asBound('DELETE', '/api/v1/platform-secrets/PLATFORM_GIT_TOKEN')).status, 403);
  assert.equal((await asBound('GET', '/api/v1/git-sources')).status, 403);

  // No value anywhere: the bound user's answers, every table of the database as text, the services' output.
  const tables = (await s.db.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public'`)).rows.map((r) => r.t);
  const texts: [string, string][] = boundAnswers.map((a, i) => [`answer #${i} to the bound user`, a]);
  for (const t of tables) {
    const rows = await s.db.query<{ r: string }>(`SELECT t::text AS r FROM "${t}" t`);
    texts.push([`table ${t}`, rows.rows.map((r) => r.r).join('\n')]);
  }
  for (const [i, p] of s.procs.entries()) texts.push([`output of app #${i}`, p.output()]);
  for (const [what, value] of Object.entries(V)) {
    for (const [where, text] of texts) assert.ok(!text.includes(value), `the value of ${what} is in ${where}`);
  }
});

test('a git source or the SSO settings naming a flow-readable secret are 422 naming the field', async () => {
  assert.equal((await s.api('PUT', '/api/v1/secrets/FLOW_READABLE', { value: V.global })).status, 200);
  assert.equal((await s.api('PUT', '/api/v1/namespaces/team-a/secrets/TEAM_TOKEN', { value: V.ns })).status, 200);
  const base = { name: 'refused', repo_url: `${git.url}/private.git`, auth_type: 'token', mappings: [{ namespace: 'refused', repo_path: '' }] };
  assertRefused(
    (await s.api('POST', '/api/v1/git-sources', { ...base, credential_secret_key: 'FLOW_READABLE' })) as never,
    'credential_secret_key',
    /FLOW_READABLE is a global secret, which flows can read/,
  );
  assertRefused(
    (await s.api('POST', '/api/v1/git-sources', { ...base, credential_secret_key: 'TEAM_TOKEN' })) as never,
    'credential_secret_key',
    /a secret of namespace team-a, which flows can read/,
  );
  assertRefused((await s.api('POST', '/api/v1/git-sources', { ...base, credential_secret_key: 'NOWHERE' })) as never, 'credential_secret_key', /no platform secret NOWHERE/);
  assertRefused(
    (await s.api('POST', '/api/v1/git-sources', { ...base, credential_secret_key: 'PLATFORM_GIT_TOKEN', webhook_secret_key: 'FLOW_READABLE' })) as never,
    'webhook_secret_key',
    /global secret/,
  );
  const id = (await s.api('GET', '/api/v1/git-sources')).body.items.find((x: { name: string }) => x.name === 'private').id as string;
  const upd = await s.api('PUT', `/api/v1/git-sources/${id}`, {
    name: 'private',
    repo_url: `${git.url}/private.git`,
    auth_type: 'token',
    credential_secret_key: 'FLOW_READABLE',
    mappings: [{ namespace: 'synced', repo_path: 'flows' }],
  });
  assertRefused(upd as never, 'credential_secret_key', /global secret/);
  assert.equal((await source(id)).credential_secret_key, 'PLATFORM_GIT_TOKEN', 'the source is unchanged');

  const sso = { display_name: 'Test IdP', issuer_url: idp.issuer, client_id: 'svc-plat', default_role: 'viewer' };
  assertRefused(
    (await s.api('PUT', '/api/v1/sso/oidc', { ...sso, client_secret_secret: 'FLOW_READABLE' })) as never,
    'client_secret_secret',
    /global secret, which flows can read/,
  );
  assertRefused(
    (await s.api('PUT', '/api/v1/sso/oidc', { ...sso, client_secret_secret: 'env:OIDC_SECRET' })) as never,
    'client_secret_secret',
    /provider reference, which flows can read/,
  );
  assert.equal((await s.api('GET', '/api/v1/sso/oidc')).body.client_secret_secret, 'PLATFORM_OIDC_SECRET', 'the settings are unchanged');
});
