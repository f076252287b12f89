// One private Docker engine for a test run (`npm test`) or a benchmark run
// (`npm run bench`): Debian's dockerd, installed with apt-get when missing and
// we are root, with its data under the run's data directory and no network of
// its own (`--bridge=none --iptables=false`: containers use the host network
// or none, and nothing here ever routes to a private address range).
//
//   const engine = await startDockerEngine({ dir: '.test-data/docker' });
//   if (engine.ok) { use engine.host (unix://…); await engine.stop(); }
//   else console.error(engine.reason);
//
// The engine also listens on tcp://127.0.0.1:<free port> with --tlsverify
// (engine.tls: its address and DOCKER_CERT_PATH directories, made per run by
// docker-engine-tls.mjs), the way a remote engine is reached; when the
// certificates cannot be made, engine.tls is { skip: reason } and the engine
// serves its socket alone.
//
// A run killed before it stopped its engine leaves dockerd, containerd, the
// shims, containers and mounts behind: stopDockerLeftovers(dir) (called by
// startDockerEngine, and by npm test before it empties its data directory)
// ends exactly those, found by their paths, never by a process name.
import { spawn, spawnSync } from 'node:child_process';
import { aptInstall, withSbin } from './apt-install.mjs';
import { freeLoopbackPort, makeEngineTls } from './docker-engine-tls.mjs';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

/** Debian packages for the engine and the test images (packages/container-testing builds them from these files). */
const PACKAGES = [
  { name: 'docker.io', present: () => Boolean(findDockerd()) },
  { name: 'busybox-static', present: () => isStaticBusybox('/bin/busybox') || isStaticBusybox('/usr/bin/busybox') },
  { name: 'musl', present: () => fs.existsSync('/lib/ld-musl-x86_64.so.1') },
  // The app images' base in the tests is made of this machine's files: tini (PID 1), git and ssh (e2e/test/infra-images.ts).
  { name: 'tini', present: () => fs.existsSync('/usr/bin/tini') },
  { name: 'git', present: () => fs.existsSync('/usr/bin/git') },
  { name: 'openssh-client', present: () => fs.existsSync('/usr/bin/ssh') },
  // The engine's TLS listener: its certificates are made with the openssl CLI (docker-engine-tls.mjs).
  { name: 'openssl', present: () => onPath('openssl') },
  // The Compose test (e2e/test/infra-compose.test.ts): Debian's Compose, and the PostgreSQL server its image is made of.
  { name: 'docker-compose', present: () => fs.existsSync('/usr/bin/docker-compose') },
  {
    name: 'postgresql',
    present: () => fs.existsSync('/usr/lib/postgresql') && fs.readdirSync('/usr/lib/postgresql').some((v) => fs.existsSync(`/usr/lib/postgresql/${v}/bin/postgres`)),
  },
];

/** How long dockerd may take to answer its first ping (it is ready in about 2 s). */
const READY_TIMEOUT_MS = 60_000;

/**
 * Paths of the engine whose data lives under `dir`. The exec root holds unix
 * sockets (108-byte limit), so it sits under /tmp with a name derived from `dir`:
 * the same directory gives the same paths, so a later run finds the leftovers.
 */
export function dockerEnginePaths(dir) {
  const abs = path.resolve(dir);
  const execRoot = `/tmp/svc-dockerd-${crypto.createHash('sha256').update(abs).digest('hex').slice(0, 12)}`;
  return {
    dir: abs,
    dataRoot: path.join(abs, 'root'),
    execRoot,
    socket: path.join(execRoot, 'docker.sock'),
    pidfile: path.join(execRoot, 'dockerd.pid'),
    logFile: path.join(abs, 'dockerd.log'),
    tlsDir: path.join(abs, 'tls'),
  };
}

/**
 * Starts dockerd with its data under `dir` and waits until it answers.
 * Resolves { ok: true, host, socket, stop } or { ok: false, reason }; never rejects.
 * @param {{ dir: string, log?: (m: string) => void, install?: boolean }} opts
 *   install: apt-get the missing packages when root (default true).
 */
export async function startDockerEngine({ dir, log = (m) => process.stderr.write(`[docker] ${m}\n`), install = true }) {
  if (process.platform !== 'linux') return { ok: false, reason: `no Docker engine on ${process.platform}` };
  const p = dockerEnginePaths(dir);
  try {
    await stopDockerLeftovers(p.dir);
    const missing = PACKAGES.filter((x) => !x.present()).map((x) => x.name);
    if (missing.length) {
      const isRoot = process.getuid?.() === 0;
      if (!install || !isRoot || !onPath('apt-get')) {
        if (!findDockerd())
          return {
            ok: false,
            reason: `dockerd is not installed and cannot be (${!isRoot ? 'not root' : !install ? 'install disabled' : 'no apt-get'}): apt-get install ${missing.join(' ')}`,
          };
        log(`missing ${missing.join(', ')} (not installed: ${!isRoot ? 'not root' : 'no apt-get'}); the test images that need them will fail`);
      } else {
        const t = Date.now();
        log(`installing ${missing.join(' ')} with apt-get (about 15 s, once per machine)`);
        const r = await aptInstall(missing);
        if (!r.ok) return { ok: false, reason: `apt-get install ${missing.join(' ')} failed: ${r.output.trim().split('\n').slice(-3).join(' | ')}` };
        log(`installed in ${((Date.now() - t) / 1000).toFixed(1)} s`);
      }
    }
    const dockerd = findDockerd();
    if (!dockerd) return { ok: false, reason: 'dockerd is still missing after apt-get install docker.io' };
    fs.mkdirSync(p.dataRoot, { recursive: true });
    fs.mkdirSync(p.execRoot, { recursive: true, mode: 0o700 });
    const certs = makeEngineTls(p.tlsDir);
    const tlsPort = certs.ok ? await freeLoopbackPort() : 0;
    if (!certs.ok) log(`no TLS listener: ${certs.reason}`);
    const out = fs.openSync(p.logFile, 'a');
    const child = spawn(
      dockerd,
      [
        '--data-root',
        p.dataRoot,
        '--exec-root',
        p.execRoot,
        '--host',
        `unix://${p.socket}`,
        '--pidfile',
        p.pidfile,
        '--iptables=false',
        '--ip6tables=false',
        '--bridge=none',
        '--ip-forward=false',
        '--ip-masq=false',
        '--shutdown-timeout=2',
        '--log-level=warn',
        ...(certs.ok ? certs.dockerdArgs(tlsPort) : []),
      ],
      { stdio: ['ignore', out, out], env: { ...process.env, PATH: withSbin(process.env.PATH) } },
    );
    fs.closeSync(out);
    let exited = null;
    child.once('exit', (code, signal) => (exited = { code, signal }));
    child.on('error', (err) => (exited = { code: null, signal: null, error: err.message }));
    const t = Date.now();
    while (!(await ping(p.socket))) {
      if (exited || Date.now() - t > READY_TIMEOUT_MS) {
        if (!exited) child.kill('SIGKILL');
        await stopDockerLeftovers(p.dir);
        return { ok: false, reason: `dockerd ${exited ? `exited (${JSON.stringify(exited)})` : 'did not answer within 60 s'}: ${tail(p.logFile)}` };
      }
      await sleep(100);
    }
    const tls = certs.ok
      ? { host: `tcp://127.0.0.1:${tlsPort}`, certPath: certs.certPath, untrustedCertPath: certs.untrustedCertPath, wrongCaCertPath: certs.wrongCaCertPath }
      : { skip: certs.reason };
    log(`dockerd ready in ${((Date.now() - t) / 1000).toFixed(1)} s at unix://${p.socket}${certs.ok ? ` and ${tls.host} (TLS)` : ''}`);
    return {
      ok: true,
      host: `unix://${p.socket}`,
      socket: p.socket,
      tls,
      async stop() {
        if (!exited) {
          child.kill('SIGTERM');
          const deadline = Date.now() + 15_000;
          while (!exited && Date.now() < deadline) await sleep(100);
          if (!exited) child.kill('SIGKILL');
        }
        await stopDockerLeftovers(p.dir);
      },
    };
  } catch (err) {
    return { ok: false, reason: `cannot start dockerd: ${err?.message ?? err}` };
  }
}

/**
 * Ends what an engine with its data under `dir` left running: dockerd (by its
 * pidfile), its containerd and shims (their command lines name the exec root),
 * the containers' processes (their cgroups name a container of this data root),
 * and its mounts; then removes the exec root.
 */
export async function stopDockerLeftovers(dir) {
  if (process.platform !== 'linux') return;
  const p = dockerEnginePaths(dir);
  const pid = Number(readOr(p.pidfile, ''));
  if (pid > 0 && readOr(`/proc/${pid}/cmdline`, '').includes(p.execRoot)) {
    signal(pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (fs.existsSync(`/proc/${pid}`) && Date.now() < deadline) await sleep(100);
  }
  let containers = [];
  try {
    containers = fs.readdirSync(path.join(p.dataRoot, 'containers')).filter((id) => /^[0-9a-f]{64}$/.test(id));
  } catch {
    // no data root: nothing ran
  }
  for (const proc of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    if (Number(proc) === process.pid) continue;
    const cmdline = readOr(`/proc/${proc}/cmdline`, '');
    const cgroup = containers.length ? readOr(`/proc/${proc}/cgroup`, '') : '';
    if (cmdline.includes(p.execRoot) || containers.some((id) => cgroup.includes(id))) signal(Number(proc), 'SIGKILL');
  }
  const mounts = readOr('/proc/self/mountinfo', '')
    .split('\n')
    .map((l) => l.split(' ')[4]?.replace(/\\(\d{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8))))
    .filter((m) => m && [p.dataRoot, p.execRoot].some((r) => m === r || m.startsWith(`${r}/`)))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) spawnSync('umount', ['-l', m], { stdio: 'ignore' });
  fs.rmSync(p.execRoot, { recursive: true, force: true });
}

function findDockerd() {
  for (const dir of withSbin(process.env.PATH).split(':')) {
    const f = path.join(dir || '.', 'dockerd');
    try {
      fs.accessSync(f, fs.constants.X_OK);
      return f;
    } catch {
      // not here
    }
  }
  return null;
}

function onPath(name) {
  return withSbin(process.env.PATH)
    .split(':')
    .some((d) => fs.existsSync(path.join(d || '.', name)));
}

/** A busybox with no program interpreter (no PT_INTERP): the one a libc-less image can run. */
function isStaticBusybox(file) {
  try {
    const b = fs.readFileSync(file);
    return b.readUInt32BE(0) === 0x7f454c46 && !b.includes('/lib64/ld-linux') && !b.includes('ld-musl');
  } catch {
    return false;
  }
}

function ping(socketPath) {
  return new Promise((resolve) => {
    const req = http.get({ socketPath, path: '/_ping', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {
    // gone already
  }
}

function readOr(file, fallback) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

function tail(file) {
  return readOr(file, '').trim().split('\n').slice(-5).join(' | ') || '(no output)';
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
