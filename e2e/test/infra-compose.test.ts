// infra/compose.yaml brought up for real in the test run's Docker engine, from
// images built on this machine, and a flow run through it: a namespace synced
// from a git daemon, a docker task run by one of the two dispatchers, its log
// followed on the event stream, and the UI at `/`.
//
// What differs from an operator's `docker compose up`, and why (each a
// transformation of the shipped file, made below, nothing else):
// - Compose: Debian's docker-compose 1.29 (the only one installable here; it
//   predates the top-level `name`, so the project name is given with -p).
// - Images: the app images of infra/Dockerfile built as in the image tests
//   (./infra-images.ts); PostgreSQL from Debian's package, with the official
//   image's environment (POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD_FILE);
//   the S3 store an s3rver stand-in started with SeaweedFS's arguments,
//   identities file and security settings (./compose-standins/s3-standin.cjs;
//   it checks the mounted security.toml, its keys and certificates): no
//   registry is reachable, and neither SeaweedFS nor its build tools can be
//   installed.
// - Network: every service on the host network, on free loopback ports, since
//   this machine's Docker engine makes no bridge (--bridge=none); so the data,
//   default and task networks are replaced by the host's, the S3 gateway binds
//   loopback instead of 0.0.0.0, and the two secret URLs name 127.0.0.1 and
//   those ports instead of `postgres` and `s3`. The networks as shipped are
//   checked from the file (the first test).
// - Two dispatchers on one host network cannot share a health port: theirs is
//   off (0) and so is their healthcheck.
// - Healthchecks of the apps: the same command, run every second (as the
//   image tests do) instead of every 15 s, so the stack is found healthy sooner.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import * as yaml from 'js-yaml';
import { ensureTestImages, Rootfs, testDocker, TEST_LABEL } from '@svc/container-testing';
import { startGitDaemon, TestRepo, tempRoot } from '@svc/git-sources/testing';
import { build, docker, dockerEnv, dockerImport, Final, freePort, host, image, importNodeBase, importPrebuilt, lastLogs, skip as noDocker, until } from './infra-images.js';
import { root } from './stack.js';

const run = promisify(execFile);
const compose = fs.existsSync('/usr/bin/docker-compose') ? '/usr/bin/docker-compose' : '';
const pgBin = fs.existsSync('/usr/lib/postgresql')
  ? fs
      .readdirSync('/usr/lib/postgresql')
      .sort((a, b) => Number(b) - Number(a))
      .map((v) => `/usr/lib/postgresql/${v}/bin`)
      .find((d) => fs.existsSync(`${d}/postgres`))
  : undefined;
const skip = noDocker || (!compose && 'no docker-compose (apt-get install docker-compose)') || (!pgBin && 'no PostgreSQL server (apt-get install postgresql)');
if (skip && !noDocker) process.stderr.write(`\n!! the Compose test is SKIPPED: ${skip}\n\n`);

const BASE = 'svc-test/node24-local:compose';
const PREBUILT = 'svc-test/infra-prebuilt:compose';
const PG_IMAGE = 'svc-test/compose-postgres:latest';
const S3_IMAGE = 'svc-test/compose-s3:latest';
const APPS = ['api-gateway', 'scheduler', 'dispatcher', 'maintenance'];
const project = `svctest${process.pid}`;
const work = fs.mkdtempSync(path.join(process.env.SVC_TEST_DATA_DIR ?? os.tmpdir(), 'compose-'));
const ports = { pg: 0, s3: 0, gateway: 0, scheduler: 0, maintenance: 0 };
const gitRoot = tempRoot();
let daemon: Awaited<ReturnType<typeof startGitDaemon>> | undefined;
let up = false;

const composeRun = (args: string[], timeoutMs = 240_000) =>
  run(compose, ['-p', project, '-f', path.join(work, 'compose.yaml'), '--project-directory', work, ...args], {
    cwd: work,
    env: { ...dockerEnv(), COMPOSE_INTERACTIVE_NO_CLI: '1' },
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });

/** PostgreSQL from Debian's package, with the entrypoint of the official image's environment (the parts Compose uses). */
async function buildPostgres(): Promise<void> {
  const bin = pgBin!;
  const version = path.basename(path.dirname(bin));
  const r = new Rootfs();
  for (const d of ['/proc', '/sys', '/dev', '/etc', '/run', '/var/lib/postgresql', '/var/run/postgresql']) r.dir(d);
  r.dir('/tmp', 0o1777);
  r.file('/etc/passwd', 'root:x:0:0:root:/root:/bin/sh\npostgres:x:999:999::/var/lib/postgresql:/bin/sh\n');
  r.file('/etc/group', 'root:x:0:\npostgres:x:999:\n');
  const tools = ['sh', 'cat', 'mkdir', 'chown', 'chmod', 'rm', 'printf', 'test'].map((t) => `/usr/bin/${t}`).filter((f) => fs.existsSync(f));
  await r.withLibraries([...tools, ...['postgres', 'initdb', 'pg_ctl', 'pg_isready', 'psql'].map((b) => `${bin}/${b}`)]);
  r.hostTree(`/usr/lib/postgresql/${version}/lib`);
  r.hostTree(`/usr/share/postgresql/${version}`);
  if (fs.existsSync('/usr/share/zoneinfo')) r.hostTree('/usr/share/zoneinfo');
  for (const l of ['/bin', '/lib', '/lib64', '/sbin']) if (fs.existsSync(l)) r.host(l);
  r.file(
    '/usr/local/bin/docker-entrypoint.sh',
    `#!/bin/sh
# POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD(_FILE) and PGDATA as the official image reads them.
set -eu
PATH=${bin}:$PATH
# From 18 the official image keeps PGDATA under its volume, /var/lib/postgresql (here the test's major version).
: "\${PGDATA:=/var/lib/postgresql/${version}/docker}"
mkdir -p "$PGDATA" && chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -n "\${POSTGRES_PASSWORD_FILE:-}" ]; then pw="$(cat "$POSTGRES_PASSWORD_FILE")"; else pw="$POSTGRES_PASSWORD"; fi
  printf '%s\\n' "$pw" > /tmp/pw
  initdb -D "$PGDATA" -U "\${POSTGRES_USER:-postgres}" --pwfile=/tmp/pw --auth-host=scram-sha-256 --auth-local=trust -E UTF8 --locale=C >/dev/null
  rm -f /tmp/pw
  printf 'host all all all scram-sha-256\\n' >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories=/var/run/postgresql" -w start >/dev/null
  psql -h /var/run/postgresql -U "\${POSTGRES_USER:-postgres}" -d postgres -v ON_ERROR_STOP=1 -c "CREATE DATABASE \\"\${POSTGRES_DB:-postgres}\\"" >/dev/null
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses="\${POSTGRES_LISTEN:-*}" -c unix_socket_directories=/var/run/postgresql -p "\${PGPORT:-5432}"
`,
    0o755,
  );
  const rootfsTag = `${PG_IMAGE}-rootfs`;
  await dockerImport(r.tar(), rootfsTag, [`ENV PATH=${bin}:/usr/local/bin:/usr/bin:/bin`, `LABEL ${TEST_LABEL}=1`]);
  const df = `FROM ${rootfsTag}\nRUN chown -R 999:999 /var/lib/postgresql /var/run/postgresql\nUSER postgres\nENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]\n`;
  await docker(['build', '-q', '-t', PG_IMAGE, '-f', '-', work], { input: df, timeoutMs: 120_000 });
}

/** The s3rver stand-in (see the file comment), bundled into one file on the test base's Node. */
async function buildS3(): Promise<void> {
  const esbuild = createRequire(path.join(root, 'apps/cli/package.json'))('esbuild') as { build(o: Record<string, unknown>): Promise<unknown> };
  const dir = path.join(work, 's3-image');
  await esbuild.build({
    entryPoints: [path.join(root, 'e2e/test/compose-standins/s3-standin.cjs')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: path.join(dir, 'server.cjs'),
    logLevel: 'warning',
  });
  fs.writeFileSync(path.join(dir, 'Dockerfile'), `FROM ${BASE}\nCOPY server.cjs /s3/server.cjs\nENTRYPOINT ["node", "/s3/server.cjs"]\n`);
  await docker(['build', '-q', '-t', S3_IMAGE, dir], { timeoutMs: 120_000 });
}

/** YAML merge keys (`<<: *anchor`), which Compose resolves and js-yaml 5 leaves as a `<<` key. */
function mergeKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(mergeKeys);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  const o = v as Record<string, unknown>;
  if (o['<<']) Object.assign(out, mergeKeys(o['<<']));
  for (const [k, x] of Object.entries(o)) if (k !== '<<') out[k] = mergeKeys(x);
  return out;
}

/** infra/compose.yaml with the transformations of the file comment, written to work/compose.yaml. */
function writeComposeFile(taskImage: string): void {
  const c = mergeKeys(yaml.load(fs.readFileSync(path.join(root, 'infra/compose.yaml'), 'utf8'))) as {
    name?: string;
    services: Record<string, Record<string, any>>;
    secrets: Record<string, { file: string }>;
    networks?: unknown;
  };
  delete c.name;
  delete c.networks;
  const socket = host.replace(/^unix:\/\//, '');
  for (const [name, s] of Object.entries(c.services)) {
    // The apps' healthchecks only: PostgreSQL's keeps its interval, since a check every second
    // can pass while its first start's initialisation still restarts the server (migrate then failed).
    if (APPS.includes(name) && s.healthcheck?.test) Object.assign(s.healthcheck, { interval: '1s', start_period: '1s' });
    delete s.build;
    delete s.ports;
    delete s.networks;
    s.network_mode = 'host';
    if (APPS.includes(name) || name === 'migrate') {
      s.image = image(name === 'migrate' ? 'maintenance' : name);
      s.environment = { ...s.environment, SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'info' };
    }
  }
  const s = c.services;
  s.postgres!.image = PG_IMAGE;
  s.postgres!.environment = { ...s.postgres!.environment, PGPORT: String(ports.pg), POSTGRES_LISTEN: '127.0.0.1' };
  s.s3!.image = S3_IMAGE;
  s.s3!.command = (s.s3!.command as string[]).map((a) => (a.startsWith('-s3.port=') ? `-s3.port=${ports.s3}` : a === '-s3.ip.bind=0.0.0.0' ? '-s3.ip.bind=127.0.0.1' : a));
  s.s3!.healthcheck.test = ['CMD-SHELL', `node -e "fetch('http://127.0.0.1:${ports.s3}/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"`];
  s['api-gateway']!.environment.SVC_PORT = String(ports.gateway);
  s['api-gateway']!.environment.SVC_PUBLIC_URL = `http://127.0.0.1:${ports.gateway}`;
  s.scheduler!.environment.SVC_HEALTH_PORT = String(ports.scheduler);
  s.scheduler!.environment.SVC_GIT_SYNC_TICK_MS = '200';
  s.maintenance!.environment.SVC_HEALTH_PORT = String(ports.maintenance);
  const d = s.dispatcher!;
  d.environment = { ...d.environment, SVC_HEALTH_PORT: '0', SVC_DOCKER_NETWORK: 'host', SVC_RUNNER_URL: `http://127.0.0.1:${ports.gateway}`, SVC_DEFAULT_IMAGE: taskImage };
  d.healthcheck = { disable: true };
  // The test engine's socket in place of the host's; the shipped data directory volume stays (the root is read-only).
  d.volumes = [...(d.volumes as string[]).filter((v) => !v.endsWith(':/var/run/docker.sock')), `${socket}:/var/run/docker.sock`];
  d.group_add = [String(fs.statSync(socket).gid)];
  for (const sec of Object.values(c.secrets)) sec.file = path.join(work, 'secrets', path.basename(sec.file));
  fs.writeFileSync(path.join(work, 'compose.yaml'), yaml.dump(c, { noRefs: true, lineWidth: -1 }));
}

before(async () => {
  if (skip) return;
  for (const k of Object.keys(ports) as (keyof typeof ports)[]) ports[k] = await freePort();
  // The operator's script writes the secrets; on the host network the two URLs name loopback ports.
  await run('sh', [path.join(root, 'infra/compose-secrets.sh'), path.join(work, 'secrets')]);
  const secret = (n: string) => fs.readFileSync(path.join(work, 'secrets', n), 'utf8').trim();
  fs.writeFileSync(path.join(work, 'secrets/database_url'), `${secret('database_url').replace('@postgres:5432/', `@127.0.0.1:${ports.pg}/`)}\n`);
  fs.writeFileSync(path.join(work, 'secrets/storage_url'), `${secret('storage_url').replace('@s3:9000/', `@127.0.0.1:${ports.s3}/`)}\n`);

  await importNodeBase(BASE);
  await importPrebuilt(PREBUILT, APPS);
  for (const app of APPS) await build('infra/Dockerfile', image(app), ['--build-arg', `NODE_IMAGE=${BASE}`, '--build-arg', `PREBUILT=${PREBUILT}`, '--build-arg', `APP=${app}`]);
  await buildPostgres();
  await buildS3();
  const images = await ensureTestImages((testDocker() as { docker: import('dockerode') }).docker);
  writeComposeFile(images.debian);
  daemon = await startGitDaemon(gitRoot);
  up = true;
  await composeRun(['up', '-d', '--no-build'], 280_000);
});

after(async () => {
  if (up) {
    const logs = await composeRun(['logs', '--no-color', '--tail', '40']).catch((e: Error) => ({ stdout: e.message }));
    if (process.env.SVC_E2E_PRINT_LOGS) process.stderr.write(logs.stdout);
    await composeRun(['down', '-v', '--remove-orphans'], 120_000).catch(() => {});
  }
  await daemon?.close();
  fs.rmSync(gitRoot, { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

/** State of each container of the project, by service. */
async function states(): Promise<Record<string, { id: string; running: boolean; health?: string; exit: number; restarts: number }[]>> {
  const ids = (await docker(['ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`])).split('\n').filter(Boolean);
  const out: Record<string, { id: string; running: boolean; health?: string; exit: number; restarts: number }[]> = {};
  for (const id of ids) {
    const [c] = JSON.parse(await docker(['inspect', id])) as {
      RestartCount: number;
      Config: { Labels: Record<string, string> };
      State: { Running: boolean; ExitCode: number; Health?: { Status: string } };
    }[];
    (out[c!.Config.Labels['com.docker.compose.service']!] ??= []).push({
      id,
      running: c!.State.Running,
      health: c!.State.Health?.Status,
      exit: c!.State.ExitCode,
      restarts: c!.RestartCount,
    });
  }
  return out;
}

// The file as shipped (no Docker needed): what sits on which network, and SeaweedFS's exposure and security settings.
test('the networks as shipped: PostgreSQL and the S3 store on an internal data network tasks never join; the task network holds the gateway alone; SeaweedFS exposes its S3 port only, with JWT keys and gRPC mutual TLS', async () => {
  const c = mergeKeys(yaml.load(fs.readFileSync(path.join(root, 'infra/compose.yaml'), 'utf8'))) as {
    services: Record<string, Record<string, any>>;
    secrets: Record<string, { file: string }>;
    networks: Record<string, { name?: string; internal?: boolean }>;
  };
  const s = c.services;
  const on = (net: string) =>
    Object.entries(s)
      .filter(([, x]) => ((x.networks as string[] | undefined) ?? ['default']).includes(net))
      .map(([n]) => n)
      .sort();
  // The task network: the dispatchers' SVC_DOCKER_NETWORK, holding the gateway alone (task containers join it at run time).
  const taskNet = Object.entries(c.networks).find(([, n]) => n.name === s.dispatcher!.environment.SVC_DOCKER_NETWORK)?.[0];
  assert.ok(taskNet, 'the task network is declared');
  assert.deepEqual(on(taskNet), ['api-gateway']);
  assert.equal(s.dispatcher!.environment.SVC_RUNNER_URL, 'http://api-gateway:8080', 'runners report to the gateway, by its name on the task network');
  // The data network: internal (no route out, no published port), PostgreSQL, the S3 store, the migrations and the apps.
  assert.equal(c.networks.data?.internal, true);
  assert.deepEqual(on('data'), ['api-gateway', 'dispatcher', 'maintenance', 'migrate', 'postgres', 's3', 'scheduler']);
  for (const store of ['postgres', 's3']) {
    assert.deepEqual(s[store]!.networks, ['data'], `${store}: on the data network only`);
    assert.equal(s[store]!.ports, undefined, `${store}: no published port`);
    assert.equal(s[store]!.network_mode, undefined, store);
  }
  for (const n of Object.keys(s)) assert.ok(!(s[n]!.networks ?? []).includes(taskNet) || n === 'api-gateway', n);
  // The URLs the apps use name the stores on the data network.
  const secretsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-compose-secrets-'));
  try {
    await run('sh', [path.join(root, 'infra/compose-secrets.sh'), secretsDir]);
    const read = (f: string) => fs.readFileSync(path.join(secretsDir, f), 'utf8');
    assert.match(read('database_url'), /@postgres:5432\//);
    assert.match(read('storage_url'), /@s3:9000\//);

    // SeaweedFS: master, volume server and filer on the container's loopback; the S3 gateway alone beyond it.
    const args = s.s3!.command as string[];
    for (const a of ['server', '-ip=127.0.0.1', '-ip.bind=127.0.0.1', '-s3', '-s3.port=9000', '-s3.ip.bind=0.0.0.0', '-s3.config=/run/secrets/s3_config'])
      assert.ok(args.includes(a), a);
    assert.deepEqual(
      args.filter((a) => /^-(master|volume|filer)\.(ip|port\.public|publicUrl)|^-(filer|webdav|iam|sftp|mq\.broker)(=|$)|^-whiteList=/.test(a)),
      [],
      'no server of it bound or published elsewhere, none but the S3 gateway started beside it',
    );
    // Its security settings, mounted where SeaweedFS reads them, as written by compose-secrets.sh.
    const mounts = Object.fromEntries(
      (s.s3!.secrets as (string | { source: string; target: string })[]).map((x) => (typeof x === 'string' ? [`/run/secrets/${x}`, x] : [x.target, x.source])),
    );
    const file = (mount: string) => path.join(secretsDir, path.basename(c.secrets[mounts[mount]!]!.file));
    assert.ok(mounts['/etc/seaweedfs/security.toml'], 'security.toml is mounted where SeaweedFS reads it');
    const toml = fs.readFileSync(file('/etc/seaweedfs/security.toml'), 'utf8');
    const section = (name: string) => {
      const m = new RegExp(`^\\[${name.replace(/\./g, '\\.')}\\]\\n((?:[^\\[].*\\n?)*)`, 'm').exec(toml);
      return m ? Object.fromEntries([...m[1]!.matchAll(/^(\w+) = "?([^"\n]*)"?$/gm)].map((x) => [x[1]!, x[2]!])) : undefined;
    };
    for (const jwt of ['jwt.signing', 'jwt.filer_signing', 'jwt.filer_signing.read']) assert.match(section(jwt)?.key ?? '', /^[A-Za-z0-9]{32,}$/, `[${jwt}] key`);
    assert.equal(section('jwt.signing.read'), undefined, "read JWTs on the volume server would break the filer's reads");
    assert.equal(section('access')?.ui, 'false');
    assert.equal(section('filer.expose_directory_metadata')?.enabled, 'false');
    const ca = new crypto.X509Certificate(fs.readFileSync(file(section('grpc')!.ca!)));
    assert.ok(ca.ca);
    for (const g of ['grpc.master', 'grpc.volume', 'grpc.filer', 'grpc.s3', 'grpc.client']) {
      const { cert, key } = section(g) ?? {};
      assert.ok(cert && key && mounts[cert] && mounts[key], `[${g}]: a mounted certificate and key`);
      const x = new crypto.X509Certificate(fs.readFileSync(file(cert)));
      assert.ok(x.verify(ca.publicKey), `[${g}]: signed by the mounted CA`);
      assert.ok(x.checkPrivateKey(crypto.createPrivateKey(fs.readFileSync(file(key)))), `[${g}]: its key`);
      assert.deepEqual(x.keyUsage?.sort(), ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'], `[${g}]: server and client authentication`);
    }
    // Idempotent: a second run keeps every file (the keys and certificates the store already uses).
    const before = fs.readdirSync(secretsDir).map((f) => read(f));
    await run('sh', [path.join(root, 'infra/compose-secrets.sh'), secretsDir]);
    assert.deepEqual(
      fs.readdirSync(secretsDir).map((f) => read(f)),
      before,
    );
  } finally {
    fs.rmSync(secretsDir, { recursive: true, force: true });
  }
});

test('the Compose stack comes up: the migrations ran once and ended, every app turns healthy, two dispatchers run', { skip }, async () => {
  const s = await until(
    'the stack healthy',
    async () => {
      const st = await states();
      if (st.migrate?.[0] && !st.migrate[0].running && st.migrate[0].exit !== 0) throw new Final(`migrate exited ${st.migrate[0].exit}: ${await lastLogs(st.migrate[0].id)}`);
      // An app that died (and is restarted by its policy) will not come up by waiting: say why at once.
      for (const n of [...APPS, 'postgres', 's3'])
        for (const x of st[n] ?? [])
          if (x.restarts > 0 || (!x.running && x.exit !== 0)) throw new Final(`${n} exited with ${x.exit} (restarted ${x.restarts} times): ${await lastLogs(x.id)}`);
      const healthy = ['postgres', 's3', 'api-gateway', 'scheduler', 'maintenance'].every((n) => st[n]?.[0]?.health === 'healthy');
      return healthy && st.dispatcher?.length === 2 && st.dispatcher.every((x) => x.running) ? st : undefined;
    },
    240_000,
  );
  assert.equal(s.migrate!.length, 1);
  assert.deepEqual(
    s.migrate!.map((m) => [m.running, m.exit]),
    [[false, 0]],
  );
  // No secret is in any app container's environment: they read files.
  const ids = (await docker(['ps', '-q', '--filter', `label=com.docker.compose.project=${project}`])).split('\n').filter(Boolean);
  const secrets = ['database_url', 'storage_url', 'master_keys', 'admin_password'].map((n) => fs.readFileSync(path.join(work, 'secrets', n), 'utf8').trim());
  for (const id of ids) {
    const env = (await docker(['inspect', '--format', '{{json .Config.Env}}', id])).trim();
    for (const v of secrets) assert.ok(!env.includes(v), `container ${id.slice(0, 12)} has a secret in its environment`);
  }
});

test('through the stack: a git-synced namespace, a docker task run by a dispatcher, its log on the event stream, and the UI at /', { skip }, async () => {
  const gw = `http://127.0.0.1:${ports.gateway}`;
  // The first admin, from the admin_password secret.
  const password = fs.readFileSync(path.join(work, 'secrets/admin_password'), 'utf8').trim();
  const login = await fetch(`${gw}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@localhost', password }),
  });
  assert.equal(login.status, 200, await login.clone().text());
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
  const tokenRes = await fetch(`${gw}/api/v1/tokens`, {
    method: 'POST',
    headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'compose-test', role: 'admin' }),
  });
  const token = ((await tokenRes.json()) as { secret: string }).secret;
  const api = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(`${gw}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };

  const dispatchers = await until('two dispatchers online', async () => {
    const items = ((await api('GET', '/api/v1/instances')).body.items ?? []) as { kind: string; online: boolean; executors: string[] }[];
    // Online, and advertising docker: each reached the mounted Docker engine.
    const d = items.filter((i) => i.kind === 'dispatcher' && i.online && i.executors.includes('docker'));
    return d.length === 2 ? d : undefined;
  });
  assert.equal(dispatchers.length, 2);

  // A namespace synced from the git daemon by the scheduler's container.
  const repo = new TestRepo(gitRoot, 'compose');
  const flow = { id: 'hello', tasks: [{ id: 'greet', type: 'command', command: ['sh', '-c', 'echo hello from a docker task; echo "second line"'] }] };
  const sha = repo.commit({ 'flows/hello.flow.yaml': JSON.stringify(flow) }, 'first');
  const created = await api('POST', '/api/v1/git-sources', {
    name: 'compose',
    repo_url: `${daemon!.url}/compose.git`,
    poll_interval: 1,
    mappings: [{ namespace: 'compose.git', repo_path: 'flows' }],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await until(
    'synced',
    async () => {
      const src = (await api('GET', `/api/v1/git-sources/${created.body.id}`)).body;
      if (src.last_sync_status === 'failed') throw new Error(`sync failed: ${src.last_error}`);
      return src.last_synced_sha === sha ? true : undefined;
    },
    90_000,
  );

  // The flow, run as a docker task by one of the dispatchers; its log followed live.
  const ex = await api('POST', '/api/v1/flows/compose.git/hello/executions', {});
  assert.equal(ex.status, 201, JSON.stringify(ex.body));
  const stream = await fetch(`${gw}/api/v1/executions/${ex.body.id}/logs/stream`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(180_000) });
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
  let text = '';
  for await (const chunk of stream.body!) {
    text += Buffer.from(chunk as Uint8Array).toString('utf8');
    if (/^event: end$/m.test(text)) break;
  }
  const lines = [...text.matchAll(/^event: line\ndata: (.*)$/gm)].map((m) => (JSON.parse(m[1]!) as { text: string }).text);
  if (!lines.includes('hello from a docker task')) {
    // What went wrong, from the run and the dispatchers' own logs.
    const runs = (await api('GET', `/api/v1/executions/${ex.body.id}`)).body.task_runs;
    const logs = await Promise.all(((await states()).dispatcher ?? []).map((c) => lastLogs(c.id)));
    assert.fail(`no log line of the task: ${text.slice(0, 1000)}\ntask runs: ${JSON.stringify(runs)}\ndispatchers:\n${logs.join('\n---\n')}`);
  }
  assert.ok(lines.includes('second line'));
  const done = (await api('GET', `/api/v1/executions/${ex.body.id}`)).body;
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(done.task_runs[0].executor_type, 'docker');

  // The UI, from the gateway's image.
  const home = await fetch(`${gw}/`);
  assert.equal(home.status, 200);
  assert.match(await home.text(), /<div id="root"><\/div>/);
});
