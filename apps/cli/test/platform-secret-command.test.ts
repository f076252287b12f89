// `svc platform-secret` against a real stack, as a subprocess: an
// admin sets a platform secret from standard input, lists it in every
// format, is warned when a flow-readable global secret has the same name,
// and deletes it; each change is audited; a non-admin is refused (exit 1,
// 403). The value appears in no output of any command.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { createUser } from '@svc/identity';
import { startStack, svc, tempHome, type Stack, type SvcResult } from './support.js';

type PlatformSecret = components['schemas']['PlatformSecret'];

const VALUE = `cli-platform-${crypto.randomBytes(12).toString('hex')}`;
let s: Stack;
const home = tempHome();
let env: Record<string, string>;
const outputs: string[] = [];

async function run(args: string[], opts: { env?: Record<string, string>; stdin?: string } = {}): Promise<SvcResult> {
  const r = await svc(args, { env: opts.env ?? env, ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}) });
  outputs.push(`svc ${args.join(' ')}\n${r.stdout}\n${r.stderr}`);
  return r;
}

before(async () => {
  s = await startStack({ maintenance: false, dispatchers: 0 });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
});
after(async () => {
  await s?.stop();
  home.cleanup();
});

test('svc platform-secret set, list and delete; audited; never shown; admin only', async () => {
  const empty = await run(['platform-secret', 'list']);
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(empty.stdout + empty.stderr, /no platform secrets/);

  const set = await run(['platform-secret', 'set', 'GIT_TOKEN'], { stdin: `${VALUE}\n` });
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stderr, /^platform secret GIT_TOKEN set$/m);
  assert.doesNotMatch(set.stderr, /warning/);
  const nothing = await run(['platform-secret', 'set', 'EMPTY'], { stdin: '' });
  assert.equal(nothing.code, 1);
  assert.match(nothing.stderr, /the value is empty/);

  const table = await run(['platform-secret', 'list']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^NAME\s+UPDATED\s+UPDATED BY\s+NOTE/m);
  assert.match(table.stdout, /^GIT_TOKEN\s/m);
  const json = JSON.parse((await run(['platform-secret', 'list', '-o', 'json'])).stdout) as PlatformSecret[];
  assert.deepEqual(
    json.map((p) => [p.name, p.key_id, p.global_copy, p.upgraded_from_global]),
    [['GIT_TOKEN', 'k1', false, false]],
  );
  // The stored value is the one given, without the newline `echo` adds: the store opens it as such.
  const { PlatformSecretStore } = await import('@svc/secrets');
  assert.equal(await new PlatformSecretStore({ db: s.db, keys: [{ id: 'k1', key: Buffer.alloc(32, 9) }] }).read('GIT_TOKEN'), VALUE);

  // A global secret of the same name is one flows can read: the CLI says so.
  assert.equal((await s.api('PUT', '/api/v1/secrets/SSO_CLIENT', { value: `global-${VALUE}` })).status, 200);
  const twin = await run(['platform-secret', 'set', 'SSO_CLIENT'], { stdin: VALUE });
  assert.equal(twin.code, 0, twin.stderr);
  assert.match(twin.stderr, /warning: a global secret SSO_CLIENT exists too, and flows can read it: delete it \(svc secret delete SSO_CLIENT\)/);
  assert.match((await run(['platform-secret', 'list'])).stdout, /^SSO_CLIENT\s.*flows can read it/m);

  const del = await run(['platform-secret', 'delete', 'SSO_CLIENT']);
  assert.equal(del.code, 0, del.stderr);
  assert.match(del.stderr, /^platform secret SSO_CLIENT deleted$/m);
  const again = await run(['platform-secret', 'delete', 'SSO_CLIENT']);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /no platform secret SSO_CLIENT \(code not_found, HTTP 404/);

  const audit = (await s.api('GET', '/api/v1/audit?action=platform_secret.*&limit=20')).body.items as { action: string; target: unknown }[];
  assert.deepEqual(audit.map((a) => a.action).sort(), ['platform_secret.delete', 'platform_secret.set', 'platform_secret.set']);

  // An editor is refused.
  await createUser(s.db, { email: 'ed@example.com', role: 'editor', password: 'editor password 1' }, new Date());
  const login = await run(['login', s.url, '--email', 'ed@example.com', '--password-stdin', '--name', 'ed'], { env: { ...home.env }, stdin: 'editor password 1' });
  assert.equal(login.code, 0, login.stderr);
  const refused = await run(['platform-secret', 'list'], { env: { ...home.env } });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /HTTP 403/);
  const refusedSet = await run(['platform-secret', 'set', 'GIT_TOKEN'], { env: { ...home.env }, stdin: 'editor-value-123' });
  assert.equal(refusedSet.code, 1);
  assert.match(refusedSet.stderr, /HTTP 403/);

  for (const o of outputs) assert.ok(!o.includes(VALUE), `the value is in the output of ${o.split('\n')[0]}`);
});
