// `svc role-binding` against a real stack, as a subprocess: an
// admin binds a user (by email) and an IdP group to namespaces, lists them
// (table, JSON, filtered), and deletes one; the user bound as editor on
// `cli` may then save a file on `cli.child` and not on `elsewhere`, and not
// any more once the binding is gone. Bad arguments are usage errors (exit 2)
// before any request; a non-admin token is refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createUser } from '@svc/identity';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
let bobToken = '';

before(async () => {
  s = await startStack({ maintenance: false, dispatchers: 0 });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  for (const ns of ['cli', 'cli.child', 'elsewhere']) assert.equal((await s.api('POST', '/api/v1/namespaces', { name: ns })).status, 201);
  await createUser(s.db, { email: 'bob@example.com', role: 'viewer', password: 'bob password 12' }, new Date());
});
after(async () => {
  await s?.stop();
  home.cleanup();
});

async function bobSaves(ns: string): Promise<number> {
  const r = await fetch(`${s.url}/api/v1/namespaces/${ns}/changes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bobToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'bob', changes: [{ op: 'put', path: `n-${Date.now()}.txt`, content: 'x' }] }),
  });
  return r.status;
}

test('svc role-binding create, list and delete; the binding applies on the namespace and its children only', async () => {
  const made = await svc(['role-binding', 'create', 'cli', 'editor', '--user', 'bob@example.com'], { env });
  assert.equal(made.code, 0, made.stderr);
  const id = made.stdout.trim();
  assert.match(made.stderr, /editor on cli \(and children\) for bob@example\.com: binding \S+ created/);
  const group = await svc(['role-binding', 'create', 'elsewhere', 'operator', '--group', 'ops'], { env });
  assert.equal(group.code, 0, group.stderr);

  const table = await svc(['role-binding', 'list'], { env });
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /cli\s+user:bob@example\.com\s+editor\s+e2e@example\.com/);
  assert.match(table.stdout, /elsewhere\s+group:ops\s+operator/);
  const json = JSON.parse((await svc(['role-binding', 'list', '--namespace', 'cli', '-o', 'json'], { env })).stdout);
  assert.deepEqual(
    json.map((b: { id: string; role: string }) => [b.id, b.role]),
    [[id, 'editor']],
  );
  const byUser = JSON.parse((await svc(['role-binding', 'list', '--user', 'bob@example.com', '-o', 'json'], { env })).stdout);
  assert.equal(byUser.length, 1);

  // Bob (global viewer) mints an editor token (up to his binding) and may write under cli only.
  const login = await fetch(`${s.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bob@example.com', password: 'bob password 12' }),
  });
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
  const tok = await fetch(`${s.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bob', role: 'editor' }),
  });
  assert.equal(tok.status, 201);
  bobToken = ((await tok.json()) as { secret: string }).secret;
  assert.equal(await bobSaves('cli.child'), 201);
  assert.equal(await bobSaves('elsewhere'), 403);

  // Bob's token cannot manage bindings: only a global admin can.
  const refused = await svc(['role-binding', 'list'], { env: { ...home.env, SVC_URL: s.url, SVC_TOKEN: bobToken } });
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /admin/);

  const del = await svc(['role-binding', 'delete', id], { env });
  assert.equal(del.code, 0, del.stderr);
  assert.match(del.stderr, new RegExp(`role binding ${id} deleted`));
  assert.equal(await bobSaves('cli.child'), 403);
  const again = await svc(['role-binding', 'delete', id], { env });
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /no role binding/);
});

test('bad arguments are usage errors before any request', async () => {
  const noRequest = { ...home.env, SVC_URL: 'http://127.0.0.1:9', SVC_TOKEN: s.token };
  const both = await svc(['role-binding', 'create', 'cli', 'editor', '--user', 'a@b.c', '--group', 'g'], { env: noRequest });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /exactly one of --user and --group/);
  const role = await svc(['role-binding', 'create', 'cli', 'owner', '--user', 'a@b.c'], { env: noRequest });
  assert.equal(role.code, 2);
  assert.match(role.stderr, /viewer, operator, editor, admin/);
});
