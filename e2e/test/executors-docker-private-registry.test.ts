// Docker tasks whose image lives in a private registry (SVC_DOCKER_REGISTRY_AUTH):
// a real registry (Debian's docker-registry, installed by the test run's own
// apt helper when missing) on a loopback port with htpasswd authentication,
// a test image pushed to it and removed from the engine, and a real stack
// whose docker executor pulls it with the credential of a platform secret.
// The right credential pulls and the task succeeds; a wrong password, a
// platform secret that was never set, and a namespace the entry does not
// serve (also once the image is on the engine) end image_pull_failed with a
// message naming the image, the registry and the secret; the passwords
// appear in no task run error, log line, database row, API answer or
// process output.
//
// dockerd treats registries on 127.0.0.0/8 as insecure (plain HTTP) by
// default, so the test engine needs no --insecure-registry.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import type Dockerode from 'dockerode';
import { ensureTestImages, testDocker } from '@svc/container-testing';
import { hashPassword } from '@svc/identity';
import { until } from './engine-support.js';
import { root, startStack, type Stack } from './stack.js';

const REGISTRY_BIN = '/usr/bin/docker-registry';
const USER = 'svc-puller';
// Distinct, long, and nowhere else: any appearance of either is a leak.
const PASSWORD = `right-${'p4ss'.repeat(4)}-${process.pid}`;
const WRONG = `wrong-${'w0rd'.repeat(4)}-${process.pid}`;

const d = testDocker();
let skip: string | false = 'skip' in d ? `SKIPPED, no Docker engine: ${d.skip}` : false;

/** The registry binary, installed with apt-get (scripts/apt-install.mjs) when missing and we are root. */
async function ensureRegistryBinary(): Promise<string | false> {
  if (fs.existsSync(REGISTRY_BIN)) return false;
  if (process.getuid?.() !== 0) return `${REGISTRY_BIN} is missing and cannot be installed (not root): apt-get install docker-registry`;
  const { aptInstall } = (await import(pathToFileURL(path.join(root, 'scripts/apt-install.mjs')).href)) as {
    aptInstall(pkgs: string[]): Promise<{ ok: boolean; output: string }>;
  };
  const r = await aptInstall(['docker-registry']);
  if (!r.ok || !fs.existsSync(REGISTRY_BIN)) return `apt-get install docker-registry failed: ${r.output.trim().split('\n').slice(-3).join(' | ')}`;
  return false;
}
if (!skip) {
  const why = await ensureRegistryBinary();
  if (why) skip = `SKIPPED, no registry: ${why}`;
}
if (skip) process.stderr.write(`\n!!! ${skip}\n\n`);

let docker: Dockerode;
let registry: ChildProcess | undefined;
let registryOut = '';
let dir: string;
let s: Stack;
let host: string;
let image: string;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Follows a push or pull stream to its end; rejects with the engine's error. */
function follow(stream: Readable): Promise<void> {
  return new Promise((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null, events: { error?: string }[]) => {
      const failed = events?.find((e) => e.error);
      if (err || failed) reject(err ?? new Error(failed!.error));
      else resolve();
    }),
  );
}

const flow = (id: string) =>
  JSON.stringify({ id, tasks: [{ id: 't', type: 'command', executor: { type: 'docker', image }, command: ['sh', '-c', 'echo pulled from the private registry'] }] });
const logsOf = async (id: string) => (await s.db.query(`SELECT text FROM log_lines WHERE execution_id = $1 ORDER BY n`, [id])).rows.map((r: { text: string }) => r.text);
const imagePresent = () =>
  docker
    .getImage(image)
    .inspect()
    .then(
      () => true,
      () => false,
    );

before(async () => {
  if (skip) return;
  docker = (d as { docker: Dockerode }).docker;
  const images = await ensureTestImages(docker);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-registry-'));
  const port = await freePort();
  host = `127.0.0.1:${port}`;
  image = `${host}/private/busybox:1`;
  fs.writeFileSync(path.join(dir, 'htpasswd'), `${USER}:${await hashPassword(PASSWORD)}\n`);
  fs.writeFileSync(
    path.join(dir, 'config.yml'),
    [
      'version: 0.1',
      'log: { level: info }',
      `storage: { filesystem: { rootdirectory: ${path.join(dir, 'data')} } }`,
      `http: { addr: "${host}" }`,
      `auth: { htpasswd: { realm: svc-test, path: ${path.join(dir, 'htpasswd')} } }`,
      '',
    ].join('\n'),
  );
  registry = spawn(REGISTRY_BIN, ['serve', path.join(dir, 'config.yml')], { stdio: ['ignore', 'pipe', 'pipe'] });
  registry.stdout!.on('data', (c) => (registryOut += c));
  registry.stderr!.on('data', (c) => (registryOut += c));
  // Up, and asking for credentials.
  await until(`the registry at ${host} to ask for credentials`, async () => (await fetch(`http://${host}/v2/`).catch(() => null))?.status === 401, 30_000);

  // The image, pushed with the right credential, then gone from the engine.
  const [repo, tag] = [image.slice(0, image.lastIndexOf(':')), image.slice(image.lastIndexOf(':') + 1)];
  await docker.getImage(images.busybox).tag({ repo, tag });
  await follow((await docker.getImage(image).push({ authconfig: { username: USER, password: PASSWORD, serveraddress: host } })) as Readable);
  await docker.getImage(image).remove();
  assert.equal(await imagePresent(), false);
  // The registry refuses an anonymous pull of it.
  await assert.rejects(async () => follow((await docker.pull(image)) as Readable), /no basic auth credentials|unauthorized|authentication required/);

  s = await startStack({
    env: {
      SVC_EXECUTORS: 'process,docker',
      SVC_DOCKER_HOST: (d as { host: string }).host,
      SVC_DOCKER_NETWORK: 'host',
      SVC_DEFAULT_EXECUTOR: 'docker',
      // team-a pulls with the right password, team-w with a wrong one, team-m names a secret never set; team-b is served by none.
      SVC_DOCKER_REGISTRY_AUTH: `${host}/private=REG_TEAM_A@team-a;${host}=REG_WRONG@team-w;${host}/private=REG_NEVER_SET@team-m`,
    },
  });
  for (const [name, value] of [
    ['REG_TEAM_A', `${USER}:${PASSWORD}`],
    ['REG_WRONG', `${USER}:${WRONG}`],
  ]) {
    const r = await s.api('PUT', `/api/v1/platform-secrets/${name}`, { value });
    assert.ok([200, 201].includes(r.status), JSON.stringify(r.body));
    assert.ok(!JSON.stringify(r.body).includes(value.split(':')[1]!), 'the platform secret answer holds no value');
  }
  for (const ns of ['team-a', 'team-a.etl', 'team-b', 'team-w', 'team-m']) await s.saveFlow(ns, { 'pull.flow.yaml': flow('pull') });
});

after(async () => {
  if (skip) return;
  await s?.stop();
  registry?.kill('SIGTERM');
  await docker
    ?.getImage(image)
    .remove()
    .catch(() => undefined);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function run(ns: string): Promise<{ state: string; reason: string; error: string; id: string; answer: string }> {
  const e = await s.trigger(ns, 'pull');
  const done = await s.waitEnded(e.id, 120_000);
  const logs = await s.api('GET', `/api/v1/executions/${e.id}/logs`);
  return { state: done.state, reason: done.task_runs[0].reason ?? '', error: done.task_runs[0].error ?? '', id: e.id, answer: JSON.stringify([done, logs.body]) };
}

const answers: string[] = [];

// In this order: the image is not on the engine until team-a pulls it.
test('a wrong password ends image_pull_failed naming the image, the registry and the platform secret, not the password', { skip }, async () => {
  const r = await run('team-w');
  answers.push(r.answer);
  assert.equal(r.state, 'FAILED', r.answer);
  assert.equal(r.reason, 'image_pull_failed');
  assert.match(
    r.error,
    new RegExp(
      `^pulling image ${image.replace(/[.]/g, '\\.')} from ${host.replace(/[.]/g, '\\.')} with the credential of platform secret REG_WRONG \\(SVC_DOCKER_REGISTRY_AUTH ${host.replace(/[.]/g, '\\.')}=REG_WRONG@team-w\\) failed: `,
    ),
  );
  assert.match(r.error, /unauthorized|authentication required/);
  assert.equal(await imagePresent(), false);
});

test('a platform secret that was never set ends image_pull_failed saying how to set it', { skip }, async () => {
  const r = await run('team-m');
  answers.push(r.answer);
  assert.equal(r.state, 'FAILED', r.answer);
  assert.equal(r.reason, 'image_pull_failed');
  assert.match(
    r.error,
    /the platform secret REG_NEVER_SET that SVC_DOCKER_REGISTRY_AUTH names for .*=REG_NEVER_SET@team-m does not exist: set it \(svc platform-secret set REG_NEVER_SET/,
  );
});

test("a namespace the entry does not serve pulls anonymously and ends image_pull_failed: it cannot use team-a's credential by naming team-a's image", { skip }, async () => {
  const r = await run('team-b');
  answers.push(r.answer);
  assert.equal(r.state, 'FAILED', r.answer);
  assert.equal(r.reason, 'image_pull_failed');
  assert.match(
    r.error,
    / anonymously \(SVC_DOCKER_REGISTRY_AUTH serves the credential of this image to other namespaces, not to namespace team-b\) failed: .*(no basic auth credentials|unauthorized|authentication required)/,
  );
  assert.ok(!r.error.includes('REG_TEAM_A'), 'which secret serves which namespace is not told to another namespace');
});

test('the right credential pulls the private image, for the namespace and its descendants, and the task runs', { skip }, async () => {
  for (const ns of ['team-a', 'team-a.etl']) {
    const r = await run(ns);
    answers.push(r.answer);
    assert.equal(r.state, 'SUCCESS', r.answer);
    assert.deepEqual(await logsOf(r.id), ['pulled from the private registry'], ns);
  }
  assert.equal(await imagePresent(), true);
});

test("once team-a's pull left the image on the engine, team-b still cannot use it: an unserved namespace always pulls", { skip }, async () => {
  assert.equal(await imagePresent(), true);
  const r = await run('team-b');
  answers.push(r.answer);
  assert.equal(r.state, 'FAILED', r.answer);
  assert.equal(r.reason, 'image_pull_failed');
  assert.match(r.error, /not to namespace team-b\) failed: .*(no basic auth credentials|unauthorized|authentication required)/);
});

test('neither password appears in a task run error, log line, database row, API answer or process output', { skip }, async () => {
  assert.ok(answers.length >= 5, 'the runs above were made');
  const places: [string, string][] = answers.map((a, i) => [`API answer ${i}`, a]);
  const tables = (await s.db.query(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`)).rows.map((r: { tablename: string }) => r.tablename);
  assert.ok(tables.includes('task_runs') && tables.includes('log_lines'), tables.join(','));
  for (const t of tables) {
    const rows = (await s.db.query(`SELECT t::text AS row FROM "${t}" t`)).rows.map((r: { row: string }) => r.row);
    places.push([`table ${t}`, rows.join('\n')]);
  }
  places.push(['platform secrets list', JSON.stringify((await s.api('GET', '/api/v1/platform-secrets')).body)]);
  s.procs.forEach((p, i) => places.push([`process ${i} output`, p.output()]));
  for (const [where, text] of places) {
    assert.ok(!text.includes(PASSWORD), `the right password is in ${where}`);
    assert.ok(!text.includes(WRONG), `the wrong password is in ${where}`);
  }
  // The pulls did reach the registry with the credentials (they were not refused before it).
  assert.match(registryOut, new RegExp(`auth.user.name="?${USER}`));
});
