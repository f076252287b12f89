// svc org namespace (docs/using/emails.md#namespaces), as a subprocess on the
// database of a real stack: add, list (table and JSON), show and remove the
// namespaces whose alert rules may send as an organization; a bad name is
// refused. Then `svc alert create` against the stack's gateway: an email
// channel naming an organization that does not allow the rule's namespace
// fails with the field named, and passes once the namespace is added.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addOrganizationSender } from '@svc/identity';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let dbEnv: Record<string, string>;
let apiEnv: Record<string, string>;

before(async () => {
  s = await startStack({ maintenance: false, dispatchers: 0 });
  dbEnv = { ...home.env, SVC_DATABASE_URL: (s.db as unknown as { options: { connectionString: string } }).options.connectionString };
  apiEnv = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  for (const name of ['team-a', 'team-b']) assert.equal((await s.api('POST', '/api/v1/namespaces', { name })).status, 201);
});
after(async () => {
  await s?.stop();
  home.cleanup();
});

test('svc org namespace add, list, show and remove', async () => {
  assert.equal((await svc(['org', 'create', 'nsco'], { env: dbEnv })).code, 0);
  const empty = await svc(['org', 'namespace', 'list', 'nsco'], { env: dbEnv });
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(empty.stdout + empty.stderr, /allows no namespace/);

  const add = await svc(['org', 'namespace', 'add', 'nsco', 'team-b'], { env: dbEnv });
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stderr, /alert rules of team-b \(and their children\) may send as nsco/);
  assert.equal((await svc(['org', 'namespace', 'add', 'nsco', 'team-b.etl'], { env: dbEnv })).code, 0, 'a child of a listed one is covered already');
  assert.equal((await svc(['org', 'namespace', 'add', 'nsco', 'other'], { env: dbEnv })).code, 0);
  const bad = await svc(['org', 'namespace', 'add', 'nsco', 'Not A Namespace'], { env: dbEnv });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /namespace "Not A Namespace"/);
  assert.equal((await svc(['org', 'namespace', 'add', 'nobody', 'team-b'], { env: dbEnv })).code, 1, 'no such organization');

  const json = await svc(['org', 'namespace', 'list', 'nsco', '-o', 'json'], { env: dbEnv });
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), [{ namespace: 'other' }, { namespace: 'team-b' }]);
  const table = await svc(['org', 'namespace', 'list', 'nsco'], { env: dbEnv });
  assert.match(table.stdout, /NAMESPACE\s*\nother\s*\nteam-b/);
  const show = await svc(['org', 'show', 'nsco'], { env: dbEnv });
  assert.match(show.stdout, /Namespaces:\s+other, team-b/);
  const listed = JSON.parse((await svc(['org', 'list', '-o', 'json'], { env: dbEnv })).stdout) as { organization: string; namespaces: string[] }[];
  assert.deepEqual(listed.find((o) => o.organization === 'nsco')?.namespaces, ['other', 'team-b']);

  const gone = await svc(['org', 'namespace', 'remove', 'nsco', 'other'], { env: dbEnv });
  assert.equal(gone.code, 0, gone.stderr);
  assert.equal((await svc(['org', 'namespace', 'remove', 'nsco', 'other'], { env: dbEnv })).code, 1, 'not listed any more');
  assert.deepEqual((await s.db.query(`SELECT namespaces FROM organizations WHERE name = 'nsco'`)).rows[0].namespaces, ['team-b']);
});

test('svc alert create names the field when the organization does not allow the namespace', async () => {
  assert.equal((await svc(['org', 'create', 'mailer'], { env: dbEnv })).code, 0);
  await addOrganizationSender(s.db, 'mailer', 'mailer.test');
  const args = ['alert', 'create', 'team-a', '--on', 'failed', '--email', 'mailer:alerts@mailer.test:oncall@example.test'];
  const refused = await svc(args, { env: apiEnv });
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /validation_failed/);
  assert.match(refused.stderr, /channels\[0\]\.organization: organization mailer does not allow namespace team-a/);

  assert.equal((await svc(['org', 'namespace', 'add', 'mailer', 'team-a'], { env: dbEnv })).code, 0);
  const made = await svc(args, { env: apiEnv });
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout.trim(), /^\S+$/, 'the new rule id');
});
