// svc login (password from stdin, or a token), the contexts file (mode 0600,
// under the user's config directory), context use/list/current, SVC_URL and
// SVC_TOKEN overriding it, logout revoking the token, and how API errors show
// the spec's code, the message and the request ID.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as yaml from 'js-yaml';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
const env = home.env;
const configFile = path.join(home.dir, '.config', 'svc', 'config.yaml');

before(async () => {
  s = await startStack({ maintenance: false });
});
after(async () => {
  await s.stop();
  home.cleanup();
});

test('svc login with --email and --password-stdin saves a context with a token in a 0600 file; whoami uses it', async () => {
  const r = await svc(['login', s.url, '--email', 'e2e@example.com', '--password-stdin', '--name', 'dev'], { env, stdin: 'e2e password 1\n' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Logged in to .* as e2e@example.com \(context "dev"/);
  const st = fs.statSync(configFile);
  assert.equal(st.mode & 0o777, 0o600, 'contexts file mode');
  const text = fs.readFileSync(configFile, 'utf8');
  assert.match(text, /token: svc_[0-9A-Za-z]{43}/);
  assert.doesNotMatch(text, /e2e password 1/, 'the password is never stored');

  const me = await svc(['whoami', '-o', 'json'], { env });
  assert.equal(me.code, 0, me.stderr);
  assert.equal(JSON.parse(me.stdout).email, 'e2e@example.com');

  const cur = await svc(['context', 'current'], { env });
  assert.equal(cur.stdout, 'dev\n');
});

test('a wrong password fails with the error code and request ID, exit 1, and saves nothing new', async () => {
  const r = await svc(['login', s.url, '--email', 'e2e@example.com', '--password-stdin', '--name', 'bad'], { env, stdin: 'nope\n' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /code unauthorized, HTTP 401, request ID \S+\)/);
  assert.doesNotMatch(fs.readFileSync(configFile, 'utf8'), /name: bad/);
});

test('svc login --token-stdin adds a second context; context use switches; SVC_URL and SVC_TOKEN override the file', async () => {
  const r = await svc(['login', s.url, '--token-stdin', '--name', 'ci'], { env, stdin: `${s.token}\n` });
  assert.equal(r.code, 0, r.stderr);
  const list = await svc(['context', 'list'], { env });
  assert.match(list.stdout, /^CURRENT\s+NAME\s+URL\s+USER/m);
  assert.match(list.stdout, /^\*\s+ci\s/m);
  assert.match(list.stdout, /^\s+dev\s/m);
  assert.equal((await svc(['context', 'use', 'dev'], { env })).code, 0);
  assert.equal((await svc(['context', 'current'], { env })).stdout, 'dev\n');
  assert.equal((await svc(['whoami', '--context', 'ci'], { env })).code, 0);
  assert.equal((await svc(['whoami', '--context', 'nope'], { env })).code, 1);

  // No file at all: SVC_URL and SVC_TOKEN alone are enough (CI).
  const bare = tempHome();
  try {
    const me = await svc(['whoami', '-o', 'yaml'], { env: { ...bare.env, SVC_URL: s.url, SVC_TOKEN: s.token } });
    assert.equal(me.code, 0, me.stderr);
    assert.match(me.stdout, /email: e2e@example.com/);
    const none = await svc(['ns', 'list'], { env: { ...bare.env, SVC_URL: s.url } });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /not logged in .*svc login/);
    // A bad SVC_TOKEN overrides a good context token.
    const bad = await svc(['ns', 'list'], { env: { ...env, SVC_TOKEN: `svc_${'x'.repeat(43)}` } });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /code unauthorized/);
  } finally {
    bare.cleanup();
  }
});

test('svc logout revokes the token login created and removes the context', async () => {
  const data = yaml.load(fs.readFileSync(configFile, 'utf8')) as { contexts: { name: string; token: string; token_id?: string }[] };
  const dev = data.contexts.find((c) => c.name === 'dev')!;
  assert.ok(dev.token_id, 'login with a password records the id of the token it created');
  const devToken = dev.token;
  const r = await svc(['logout', '--context', 'dev'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(fs.readFileSync(configFile, 'utf8'), /name: dev/);
  const res = await fetch(`${s.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${devToken}` } });
  assert.equal(res.status, 401, 'the token is revoked on the server');
  assert.equal((await svc(['whoami', '--context', 'ci'], { env })).code, 0, 'other contexts stay');
});

test('every command has --help; a usage error exits 2', async () => {
  for (const args of [['--help'], ['ns', 'push', '--help'], ['run', '--help'], ['executions', 'logs', '--help'], ['secret', 'set', '--help'], ['completion', '--help']]) {
    const r = await svc(args, { env });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout, /Usage: svc/);
  }
  assert.match((await svc(['run', '--help'], { env })).stdout, /3 FAILED, 4 TIMED_OUT, 5 CANCELLED, 6 SKIPPED/);
  const r = await svc(['ns', 'push'], { env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /required option '-n, --namespace <ns>' not specified/);
});
