// runFile is an operator's: it may run a namespace's files but not write code.
// Environment variables that make the loader, a shell or an interpreter run
// something else (BASH_ENV, NODE_OPTIONS, LD_PRELOAD, PYTHONSTARTUP, ...) are
// refused over HTTP with 422 validation_failed, one details entry per name
// (field env.<NAME>), whatever their case, and no execution starts; an
// ordinary variable still reaches the script.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createUser } from '@svc/identity';
import { startStack, type Stack } from './stack.js';

let s: Stack;
const NS = 'runenv';
let operator: (body: unknown) => Promise<{ status: number; body: any }>;

before(async () => {
  s = await startStack();
  await s.saveFlow(NS, { 'hello.sh': 'echo "greeting: $GREETING"\n' });
  await createUser(s.db, { email: 'op@example.com', role: 'operator', password: 'operator password 1' }, new Date());
  const login = await fetch(`${s.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'op@example.com', password: 'operator password 1' }),
  });
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
  const tok = (await (
    await fetch(`${s.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'op', role: 'operator' }),
    })
  ).json()) as { secret: string };
  operator = async (body) => {
    const r = await fetch(`${s.url}/api/v1/namespaces/${NS}/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tok.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
});
after(() => s.stop());

const REFUSED = [
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'DYLD_INSERT_LIBRARIES',
  'BASH_ENV',
  'ENV',
  'BASH_FUNC_ls',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'PROMPT_COMMAND',
  'IFS',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_EXTRA_CA_CERTS',
  'NODE_REPL_EXTERNAL_MODULE',
  'PYTHONSTARTUP',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONINSPECT',
  'PYTHONBREAKPOINT',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'PERL5DB',
  'RUBYOPT',
  'RUBYLIB',
  'BUN_OPTIONS',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'GCONV_PATH',
  'HOSTALIASES',
  'LOCPATH',
  'MALLOC_CHECK_',
  'GLIBC_TUNABLES',
  'PATH',
  'SVC_OUTPUTS',
  'SVC_MASTER_KEYS',
  'ld_preload',
  'Node_Options',
  'path',
  // The allowlist: proxies, TLS trust, git and package indexes, and names outside ^[A-Z][A-Z0-9_]*$.
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'https_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'NODE_TLS_REJECT_UNAUTHORIZED',
  'GIT_SSL_NO_VERIFY',
  'PIP_INDEX_URL',
  'NPM_CONFIG_REGISTRY',
  'npm_config_registry',
  'HOME',
  'Greeting',
  '_X',
];

test('each loader or interpreter control variable is refused with 422 and its field; no execution starts', async () => {
  const before = (await s.db.query(`SELECT count(*)::int AS n FROM executions`)).rows[0].n;
  for (const name of REFUSED) {
    const r = await operator({ path: 'hello.sh', env: { GREETING: 'hi', [name]: '$(touch /tmp/svc-pwned)' } });
    assert.equal(r.status, 422, `${name}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, 'validation_failed');
    assert.deepEqual(
      r.body.error.details.map((d: any) => d.field),
      [`env.${name}`],
      name,
    );
  }
  const many = await operator({ path: 'hello.sh', env: { BASH_ENV: 'x', NODE_OPTIONS: '--import=data:text/javascript,1', OK: 'y' } });
  assert.equal(many.status, 422);
  assert.deepEqual(many.body.error.details.map((d: any) => d.field).sort(), ['env.BASH_ENV', 'env.NODE_OPTIONS']);
  assert.equal((await s.db.query(`SELECT count(*)::int AS n FROM executions`)).rows[0].n, before, 'nothing started');
});

test('an ordinary variable still reaches the script', async () => {
  const r = await operator({ path: 'hello.sh', env: { GREETING: 'hello there', MY_PATH: '/x', PATHS: 'y' } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const done = await s.waitEnded(r.body.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  const lines = (await s.db.query(`SELECT text FROM log_lines WHERE execution_id = $1 ORDER BY n`, [done.id])).rows.map((x) => x.text);
  assert.deepEqual(lines, ['greeting: hello there']);
});
