// How the docker executor's engine is read from SVC_DOCKER_* and the docker
// CLI's DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH: TLS and its
// files, default ports, the loopback rule for plain HTTP, and the problems
// (exit 2 at start) that name the variable and the file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { parseConfig } from './config.js';
import { type DockerEngineSettings, isLoopbackHost, resolveDockerEngine } from './docker-engine.js';
import { ConfigError } from './errors.js';

const certs = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docker-certs-'));
for (const f of ['ca.pem', 'cert.pem', 'key.pem']) fs.writeFileSync(path.join(certs, f), `-----BEGIN THING-----\nc2VjcmV0LWtleS1ib2R5\n-----END THING-----\n`);
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docker-home-'));
after(() => {
  fs.rmSync(certs, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

const none: DockerEngineSettings = { host: undefined, tlsVerify: undefined, certPath: undefined, allowPlaintext: false };
const files = (dir: string) => ({ ca: path.join(dir, 'ca.pem'), cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') });

test('tcp:// over TLS as the docker CLI reads it: DOCKER_TLS_VERIFY set to anything, the files from DOCKER_CERT_PATH, port 2376', () => {
  for (const verify of ['1', 'true', '0']) {
    const r = resolveDockerEngine(none, { DOCKER_HOST: 'tcp://docker.example.com', DOCKER_TLS_VERIFY: verify, DOCKER_CERT_PATH: certs }, home);
    assert.deepEqual(r, { engine: { kind: 'tcp', host: 'docker.example.com', port: 2376, tls: files(certs) }, problems: [] });
  }
});

test('SVC_DOCKER_* override the docker CLI variables; https:// is always TLS; ports given are kept', () => {
  const svc = { ...none, host: 'tcp://10.0.0.5:3376', tlsVerify: true, certPath: certs };
  assert.deepEqual(resolveDockerEngine(svc, { DOCKER_HOST: 'tcp://other:1', DOCKER_CERT_PATH: '/nowhere' }, home).engine, {
    kind: 'tcp',
    host: '10.0.0.5',
    port: 3376,
    tls: files(certs),
  });
  assert.deepEqual(resolveDockerEngine({ ...none, host: 'https://[2001:db8::1]', certPath: certs }, {}, home).engine, {
    kind: 'tcp',
    host: '2001:db8::1',
    port: 2376,
    tls: files(certs),
  });
  // SVC_DOCKER_TLS_VERIFY=false turns off what DOCKER_TLS_VERIFY turned on (a loopback engine: allowed in plain).
  assert.deepEqual(resolveDockerEngine({ ...none, host: 'tcp://127.0.0.1', tlsVerify: false }, { DOCKER_TLS_VERIFY: '1' }, home).engine, {
    kind: 'tcp',
    host: '127.0.0.1',
    port: 2375,
    tls: undefined,
  });
});

test('the cert path defaults to ~/.docker, and a missing file names the file and how to set the path', () => {
  const r = resolveDockerEngine({ ...none, host: 'tcp://docker.example.com', tlsVerify: true }, {}, home);
  assert.equal(r.engine, undefined);
  assert.equal(r.problems.length, 3);
  assert.equal(r.problems[0]!.variable, 'SVC_DOCKER_CERT_PATH');
  assert.match(r.problems[0]!.message, new RegExp(`cannot read ${path.join(home, '.docker', 'ca.pem')} \\(ENOENT\\).*set SVC_DOCKER_CERT_PATH or DOCKER_CERT_PATH`));
  assert.match(r.problems[2]!.message, /key\.pem \(ENOENT\)/);
});

test('a certificate file without a PEM block is refused without quoting it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docker-bad-'));
  try {
    for (const f of ['ca.pem', 'cert.pem']) fs.copyFileSync(path.join(certs, f), path.join(dir, f));
    fs.writeFileSync(path.join(dir, 'key.pem'), 'not-a-key-but-secret-text');
    const r = resolveDockerEngine({ ...none, host: 'tcp://docker.example.com' }, { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: dir }, home);
    assert.deepEqual(
      r.problems.map((p) => p.variable),
      ['DOCKER_CERT_PATH'],
    );
    assert.match(r.problems[0]!.message, /key\.pem holds no PEM block/);
    assert.doesNotMatch(JSON.stringify(r.problems), /secret-text/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('plain HTTP: allowed to a loopback host, refused to any other unless SVC_DOCKER_ALLOW_PLAINTEXT', () => {
  for (const host of ['tcp://127.0.0.1', 'tcp://localhost:2375', 'http://[::1]:2375', 'tcp://127.9.9.9:1']) {
    assert.equal(resolveDockerEngine({ ...none, host }, {}, home).engine?.kind, 'tcp', host);
  }
  for (const host of ['tcp://docker.example.com', 'http://192.0.2.10:2375', 'tcp://[2001:db8::1]']) {
    const r = resolveDockerEngine({ ...none, host }, {}, home);
    assert.equal(r.problems[0]?.variable, 'SVC_DOCKER_HOST', host);
    assert.match(r.problems[0]!.message, /plain HTTP.*SVC_DOCKER_TLS_VERIFY=true.*SVC_DOCKER_ALLOW_PLAINTEXT=true/);
    assert.deepEqual(resolveDockerEngine({ ...none, host, allowPlaintext: true }, {}, home).problems, []);
  }
  // Named as DOCKER_HOST when that is where the address came from.
  assert.equal(resolveDockerEngine(none, { DOCKER_HOST: 'tcp://docker.example.com:2375' }, home).problems[0]?.variable, 'DOCKER_HOST');
  // http:// with TLS asked for is a contradiction.
  assert.match(resolveDockerEngine({ ...none, host: 'http://127.0.0.1', tlsVerify: true }, {}, home).problems[0]!.message, /plain HTTP, but SVC_DOCKER_TLS_VERIFY asks for TLS/);
});

test('sockets and ssh:// need no TLS settings; unset everywhere is the local socket', () => {
  assert.deepEqual(resolveDockerEngine(none, {}, home).engine, { kind: 'socket', socketPath: '/var/run/docker.sock' });
  assert.deepEqual(resolveDockerEngine({ ...none, host: 'unix:///run/x.sock', tlsVerify: true }, { DOCKER_CERT_PATH: '/nowhere' }, home).engine, {
    kind: 'socket',
    socketPath: '/run/x.sock',
  });
  assert.deepEqual(resolveDockerEngine({ ...none, host: 'ssh://ops@docker.example.com' }, {}, home).engine, { kind: 'ssh', host: 'docker.example.com', port: 22, username: 'ops' });
  assert.equal(resolveDockerEngine(none, { DOCKER_HOST: 'ftp://x' }, home).problems[0]?.variable, 'DOCKER_HOST');
});

test('isLoopbackHost', () => {
  for (const h of ['localhost', 'LOCALHOST', 'a.localhost', '127.0.0.1', '127.255.0.1', '::1', '[::1]']) assert.ok(isLoopbackHost(h), h);
  for (const h of ['docker.example.com', '128.0.0.1', '10.0.0.1', '::2', 'localhost.example.com', '0.0.0.0']) assert.ok(!isLoopbackHost(h), h);
});

test('parseConfig resolves the engine only for a dispatcher running docker, and reports its problems with exit-2 problems', () => {
  const base = { SVC_DOCKER_HOST: 'tcp://docker.example.com:2375' };
  // Another app (no docker executor) is not stopped by a docker setting it never uses.
  assert.equal(parseConfig({ ...base, SVC_EXECUTORS: 'process' }, { cwd: '/srv' }).dockerEngine, undefined);
  assert.throws(
    () => parseConfig({ ...base, SVC_EXECUTORS: 'docker' }, { cwd: '/srv' }),
    (err: unknown) => err instanceof ConfigError && err.problems.some((p) => p.variable === 'SVC_DOCKER_HOST' && /SVC_DOCKER_ALLOW_PLAINTEXT/.test(p.message)),
  );
  const c = parseConfig({ SVC_EXECUTORS: 'docker', SVC_DOCKER_HOST: 'tcp://docker.example.com', SVC_DOCKER_TLS_VERIFY: 'true', SVC_DOCKER_CERT_PATH: certs }, { cwd: '/srv' });
  assert.deepEqual(c.dockerEngine, { kind: 'tcp', host: 'docker.example.com', port: 2376, tls: files(certs) });
  assert.throws(() => parseConfig({ SVC_DOCKER_TLS_VERIFY: 'yes' }, { cwd: '/srv' }), /SVC_DOCKER_TLS_VERIFY: must be true or false/);
});
