// The docker executor reaches a remote engine over TLS as the docker CLI does
// (docs/operating/executors.md, "Remote Docker engine"), tested against the
// run's dockerd listening on tcp://127.0.0.1 with --tlsverify and
// certificates made by the run (scripts/docker-engine-tls.mjs):
// DOCKER_TLS_VERIFY + DOCKER_CERT_PATH run a docker task to SUCCESS; a client
// certificate the engine does not trust, or a ca.pem that did not sign the
// engine's, leaves docker unadvertised with a TLS reason in the log and in
// /readyz's details (no crash, no key material); plain HTTP to the TLS port gets nowhere; a plain
// remote address and missing certificate files stop the dispatcher with
// exit 2 before any connection.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { dockerAt, ensureTestImages, testDocker, testDockerTls } from '@svc/container-testing';
import { startStack, type Proc, type Stack } from './stack.js';

const d = testDocker();
const tls = testDockerTls();
const skip = 'skip' in d ? `SKIPPED, no Docker engine: ${d.skip}` : 'skip' in tls ? `SKIPPED, no TLS Docker engine: ${tls.skip}` : false;
if (skip) process.stderr.write(`\n!!! ${skip}\n\n`);
const t = tls as Exclude<typeof tls, { skip: string }>;
let s: Stack;
let busybox: string;

before(async () => {
  if (skip) return;
  busybox = (await ensureTestImages((d as { docker: import('dockerode') }).docker)).busybox;
  // The stack's own dispatcher runs no docker tasks: each test starts the one it needs.
  s = await startStack({ env: { SVC_EXECUTORS: 'process' } });
  await s.saveFlow('tls', {
    'boxed.flow.yaml': JSON.stringify({ id: 'boxed', tasks: [{ id: 'b', type: 'command', executor: { type: 'docker', image: busybox }, command: ['echo', 'ran over tls'] }] }),
  });
});
after(async () => {
  if (!skip) await s?.stop();
});

const dockerOf = (env: Record<string, string>) => s.startApp('dispatcher', { SVC_EXECUTORS: 'docker', SVC_DOCKER_NETWORK: 'host', ...env });

async function waitForOutput(p: Proc, pattern: RegExp, ms = 30_000): Promise<string> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    if (pattern.test(p.output())) return p.output();
    if (p.child.exitCode !== null) break;
  }
  assert.fail(`no ${pattern} in the dispatcher's output:\n${p.output()}`);
}

/** Lines of the key files' bodies (never to be logged). */
function keyLines(certPath: string): string[] {
  return fs
    .readFileSync(path.join(certPath, 'key.pem'), 'utf8')
    .split('\n')
    .filter((l) => l.length > 20 && !l.startsWith('-----'));
}

test(
  'a client certificate the engine does not trust, or a CA that did not sign the engine: docker is not advertised, the log and /readyz say TLS, no key in the log',
  { skip },
  async () => {
    const logs = { SVC_LOG_FORMAT: 'json', SVC_LOG_LEVEL: 'info', SVC_HEALTH_PORT: '0' };
    const untrusted = dockerOf({ SVC_DOCKER_HOST: t.host, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: t.untrustedCertPath, ...logs });
    const wrongCa = dockerOf({ SVC_DOCKER_HOST: t.host, SVC_DOCKER_TLS_VERIFY: 'true', SVC_DOCKER_CERT_PATH: t.wrongCaCertPath, ...logs });
    await waitForOutput(untrusted, /does not answer.*TLS: the handshake/);
    await waitForOutput(wrongCa, /does not answer.*TLS: the Docker engine's certificate is not trusted/);
    // /readyz stays ready and says why docker is not advertised.
    for (const [p, why] of [
      [untrusted, /^not advertised, the Docker engine does not answer: TLS: the handshake/],
      [wrongCa, /^not advertised, the Docker engine does not answer: TLS: the Docker engine's certificate is not trusted/],
    ] as const) {
      const port = /"message":"health listening"[^\n]*"port":(\d+)/.exec(await waitForOutput(p, /"message":"health listening"/))![1];
      let ready: { status: number; body: { details?: Record<string, string> } } | undefined;
      for (let i = 0; i < 100 && ready?.status !== 200; i++, await new Promise((r) => setTimeout(r, 100))) {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`);
        ready = { status: res.status, body: (await res.json()) as { details?: Record<string, string> } };
      }
      assert.equal(ready!.status, 200, JSON.stringify(ready));
      assert.match(ready!.body.details?.docker_executor ?? '', why, JSON.stringify(ready!.body));
    }
    // Both are running dispatchers that advertise only inline (no crash loop).
    await new Promise((r) => setTimeout(r, 1500));
    const rows = (await s.db.query(`SELECT executors FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL`)).rows.map((r) => [...r.executors].sort().join(','));
    assert.deepEqual(rows.sort(), ['inline', 'inline', 'inline,process']);
    assert.equal(untrusted.child.exitCode, null);
    assert.equal(wrongCa.child.exitCode, null);
    for (const [out, certPath] of [
      [untrusted.output(), t.untrustedCertPath],
      [wrongCa.output(), t.wrongCaCertPath],
    ] as const) {
      assert.doesNotMatch(out, /PRIVATE KEY|BEGIN CERTIFICATE/);
      for (const line of keyLines(certPath)) assert.ok(!out.includes(line), 'a line of the key is in the log');
    }
    untrusted.child.kill('SIGTERM');
    wrongCa.child.kill('SIGTERM');
    await Promise.all([untrusted.exited, wrongCa.exited]);
  },
);

test('plain HTTP to the TLS port gets no answer from the engine', { skip }, async () => {
  await assert.rejects(dockerAt(t.host).ping(), /HTTP request to an HTTPS server|400/);
});

test('DOCKER_TLS_VERIFY and DOCKER_CERT_PATH: a docker task runs to SUCCESS on the TLS engine', { skip }, async () => {
  const p = dockerOf({ SVC_DOCKER_HOST: t.host, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: t.certPath });
  try {
    const e = await s.trigger('tls', 'boxed');
    const done = await s.waitEnded(e.id, 120_000);
    assert.equal(done.state, 'SUCCESS', `${JSON.stringify(done)}\n${p.output()}`);
    const rows = (await s.db.query(`SELECT executors FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL`)).rows.map((r) => [...r.executors].sort().join(','));
    assert.ok(rows.includes('docker,inline'), JSON.stringify(rows));
    for (const line of keyLines(t.certPath)) assert.ok(!p.output().includes(line), 'a line of the key is in the log');
  } finally {
    p.child.kill('SIGTERM');
    await p.exited;
  }
});

test('a remote engine over plain HTTP, and missing certificate files, stop the dispatcher at start with exit 2', { skip }, async () => {
  // docker.example.invalid resolves nowhere: the refusal comes before any connection.
  const plain = dockerOf({ SVC_DOCKER_HOST: 'tcp://docker.example.invalid:2375' });
  assert.equal(await plain.exited, 2, plain.output());
  assert.match(plain.output(), /SVC_DOCKER_HOST: .*plain HTTP.*SVC_DOCKER_TLS_VERIFY=true.*SVC_DOCKER_ALLOW_PLAINTEXT=true/);

  const noCerts = dockerOf({ SVC_DOCKER_HOST: 'tcp://docker.example.invalid', DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: '/nonexistent/svc-certs' });
  assert.equal(await noCerts.exited, 2, noCerts.output());
  assert.match(noCerts.output(), /DOCKER_CERT_PATH: cannot read \/nonexistent\/svc-certs\/ca\.pem \(ENOENT\)/);
  assert.match(noCerts.output(), /key\.pem/);
});
