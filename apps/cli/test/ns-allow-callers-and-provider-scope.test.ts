// `svc ns allow-callers`, `svc ns get` and `svc secret provider`
// against a real stack, as subprocesses: an admin lets `team-a` call into
// `team-b` (shown by ns get, as a table and JSON) and takes it back; sets the
// namespaces a secret provider serves (list shows them); a team-a flow with a
// subflow into team-b saves only while allowed. Bad arguments are usage
// errors (exit 2) before any request; a non-admin token is refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;

before(async () => {
  s = await startStack({ maintenance: false, dispatchers: 0 });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  for (const ns of ['team-a', 'team-b']) assert.equal((await s.api('POST', '/api/v1/namespaces', { name: ns })).status, 201);
  assert.equal((await s.api('POST', '/api/v1/secret-providers', { name: 'envp', type: 'env', config: { prefix: 'CLI_SECRET_' } })).status, 201);
});
after(async () => {
  await s?.stop();
  home.cleanup();
});

const subflowInto = (target: string) =>
  s.api('POST', '/api/v1/namespaces/team-a/changes', {
    message: 'cli',
    changes: [{ op: 'put', path: 'call.flow.yaml', content: JSON.stringify({ id: 'call', tasks: [{ id: 'c', type: 'subflow', flow: `${target}/x` }] }) }],
  });

test('svc ns allow-callers and ns get: the pair is allowed, shown, and taken back', async () => {
  assert.equal((await subflowInto('team-b')).status, 422, 'refused before any allowance');
  const set = await svc(['ns', 'allow-callers', 'team-b', 'team-a', 'other.ns'], { env });
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stderr, /team-b may be called by: other\.ns, team-a \(and their children\)/);
  const table = await svc(['ns', 'get', 'team-b'], { env });
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /Allowed callers:\s+other\.ns, team-a/);
  const json = JSON.parse((await svc(['ns', 'get', 'team-b', '-o', 'json'], { env })).stdout);
  assert.deepEqual(json.allowed_callers, ['other.ns', 'team-a']);
  assert.equal((await subflowInto('team-b')).status, 201, 'allowed now');

  const none = await svc(['ns', 'allow-callers', 'team-b', '--none'], { env });
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stderr, /team-b may be called by no other namespace/);
  assert.match((await svc(['ns', 'get', 'team-b'], { env })).stdout, /Allowed callers:\s+\(none/);
  const changed = await s.api('POST', '/api/v1/namespaces/team-a/changes', {
    message: 'cli',
    changes: [{ op: 'put', path: 'call.flow.yaml', content: JSON.stringify({ id: 'call', description: 'again', tasks: [{ id: 'c', type: 'subflow', flow: 'team-b/x' }] }) }],
  });
  assert.equal(changed.status, 422, 'refused again');
});

test('svc secret provider namespaces and list', async () => {
  const set = await svc(['secret', 'provider', 'namespaces', 'envp', 'team-a', 'team-b.etl'], { env });
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stderr, /secret provider envp serves team-a, team-b\.etl/);
  const list = await svc(['secret', 'provider', 'list'], { env });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /envp\s+env\s+yes\s+team-a, team-b\.etl/);
  assert.equal((await svc(['secret', 'provider', 'namespaces', 'envp', '--all'], { env })).code, 0);
  const json = JSON.parse((await svc(['secret', 'provider', 'list', '-o', 'json'], { env })).stdout);
  assert.deepEqual(json[0].namespaces, ['*']);
  assert.equal((await svc(['secret', 'provider', 'namespaces', 'envp', '--none'], { env })).code, 0);
  assert.match((await svc(['secret', 'provider', 'list'], { env })).stdout, /envp\s+env\s+yes\s+\(none\)/);
});

test('usage errors exit 2 before any request; a non-admin is refused', async () => {
  for (const args of [
    ['ns', 'allow-callers', 'team-b'],
    ['ns', 'allow-callers', 'team-b', 'team-a', '--none'],
    ['secret', 'provider', 'namespaces', 'envp'],
    ['secret', 'provider', 'namespaces', 'envp', 'team-a', '--all'],
  ]) {
    const r = await svc(args, { env: { ...env, SVC_URL: 'http://127.0.0.1:9' } });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
  }
  const bad = await svc(['ns', 'allow-callers', 'team-b', 'Not A Namespace'], { env });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /allowed_callers/);
  const viewer = await s.api('POST', '/api/v1/tokens', { name: 'v', role: 'viewer' });
  assert.equal(viewer.status, 201, JSON.stringify(viewer.body));
  const refused = await svc(['ns', 'allow-callers', 'team-b', 'team-a'], { env: { ...env, SVC_TOKEN: viewer.body.secret } });
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /403|forbidden|admin/i);
});
