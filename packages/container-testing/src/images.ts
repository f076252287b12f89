// Test images, imported from tar streams of this machine's files (no image
// registry is reachable here, and none is needed):
//
//   debian    glibc: bash, dash as sh, coreutils-ish tools, python3 when this
//             machine has /usr/bin/python3 (stdlib without tests, tk, idle,
//             config: about 25 MB), each with its libraries
//   musl      Alpine's layout: musl's loader at /lib/ld-musl-x86_64.so.1 and a
//             static busybox with its applet links; no glibc anywhere
//   busybox   a static busybox and its applet links; no libc at all
//   withSvc   debian plus the runner bundle at /opt/svc and `svc` on the PATH
//             (/usr/local/bin/svc, a link to the bundle's launcher)
//   runner    the runner bundle at RUNNER_MOUNT and nothing else (the image of
//             a Kubernetes init container that runs `svc install-runner`)
//
// Each image is tagged with RECIPE (and the bundle hash for the two that hold
// the bundle), so a changed recipe or runner makes a new tag. Building is
// idempotent and safe from concurrent test files: a present tag is used as
// is; otherwise one process builds it under a lock while the others wait.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Dockerode from 'dockerode';
import { ensureRunnerBundle, RUNNER_MOUNT, type RunnerBundle } from '@svc/runner-bundle';
import { Rootfs } from './rootfs.js';

/** Bump when a recipe changes: images of an older recipe are rebuilt under a new tag. */
const RECIPE = 'r1';
const PATH_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Label on every test image (and the containers tests make from them may carry it too). */
export const TEST_LABEL = 'svc.test';

export interface TestImages {
  debian: string;
  musl: string;
  busybox: string;
  withSvc: string;
  runner: string;
}

export interface EnsureTestImagesOptions {
  /** The runner bundle for withSvc and runner. Default: ensureRunnerBundle(). */
  bundle?: RunnerBundle;
}

const building = new WeakMap<Dockerode, Promise<TestImages>>();

/** The five test images in `docker`, built once (see the file comment). */
export function ensureTestImages(docker: Dockerode, opts: EnsureTestImagesOptions = {}): Promise<TestImages> {
  let p = building.get(docker);
  if (!p) {
    p = buildAll(docker, opts);
    building.set(docker, p);
    p.catch(() => building.delete(docker));
  }
  return p;
}

async function buildAll(docker: Dockerode, opts: EnsureTestImagesOptions): Promise<TestImages> {
  const bundle = opts.bundle ?? (await ensureRunnerBundle());
  const b = bundle.hash.slice(0, 16);
  const images: TestImages = {
    debian: `svc-test/debian:${RECIPE}`,
    musl: `svc-test/musl:${RECIPE}`,
    busybox: `svc-test/busybox:${RECIPE}`,
    withSvc: `svc-test/with-svc:${RECIPE}-${b}`,
    runner: `svc-test/runner:${RECIPE}-${b}`,
  };
  await ensureImage(docker, images.debian, () => debianRootfs(), ['CMD ["/bin/sh"]']);
  await ensureImage(docker, images.musl, () => muslRootfs(), ['CMD ["/bin/sh"]']);
  await ensureImage(docker, images.busybox, () => busyboxRootfs(), ['CMD ["/bin/sh"]']);
  await ensureImage(docker, images.withSvc, async () => withSvc(await debianRootfs(), bundle), ['CMD ["svc", "--help"]']);
  await ensureImage(docker, images.runner, () => new Rootfs().copyTree(bundle.dir, RUNNER_MOUNT), []);
  return images;
}

async function ensureImage(docker: Dockerode, ref: string, rootfs: () => Promise<Rootfs> | Rootfs, changes: string[]): Promise<void> {
  if (await exists(docker, ref)) return;
  const modem = docker.modem as unknown as { socketPath?: string; host?: string; port?: number };
  const release = await lock(`${modem.socketPath ?? `${modem.host}:${modem.port}`}\0${ref}`);
  try {
    if (await exists(docker, ref)) return; // built while we waited
    const [repo, tag] = ref.split(':') as [string, string];
    const stream = await docker.importImage((await rootfs()).tar(), {
      repo,
      tag,
      changes: [`ENV ${PATH_ENV}`, `LABEL ${TEST_LABEL}=1`, ...changes],
    } as object);
    const progress = await new Promise<{ error?: string }[]>((resolve, reject) =>
      docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => (err ? reject(err) : resolve(out))),
    );
    const failed = progress.find((m) => m.error);
    if (failed) throw new Error(`docker import ${ref}: ${failed.error}`);
  } finally {
    release();
  }
}

async function exists(docker: Dockerode, ref: string): Promise<boolean> {
  try {
    await docker.getImage(ref).inspect();
    return true;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw err;
  }
}

/**
 * A lock between processes of this machine: a directory made atomically,
 * holding the owner's pid; one whose owner died is taken over.
 */
async function lock(key: string): Promise<() => void> {
  const dir = path.join(os.tmpdir(), `svc-test-image-${crypto.createHash('sha256').update(key).digest('hex').slice(0, 16)}.lock`);
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'pid'), String(process.pid));
      return () => fs.rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number(fs.readFileSync(path.join(dir, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
    if (owner && !alive(owner)) fs.rmSync(dir, { recursive: true, force: true });
    else if (!owner && Date.now() - (fs.statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 10_000) fs.rmSync(dir, { recursive: true, force: true });
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${dir}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Files every image has: the usual directories, root and nobody. */
function base(r: Rootfs, osRelease: string): Rootfs {
  for (const d of ['/root', '/home', '/proc', '/sys', '/dev', '/etc', '/run', '/var']) r.dir(d);
  r.dir('/tmp', 0o1777).dir('/var/tmp', 0o1777);
  r.file('/etc/passwd', 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n');
  r.file('/etc/group', 'root:x:0:\nnogroup:x:65534:\n');
  r.file('/etc/os-release', `${osRelease}\n`);
  return r;
}

const DEBIAN_TOOLS = [
  'bash',
  'sh',
  'dash',
  'cat',
  'echo',
  'ls',
  'env',
  'sleep',
  'true',
  'false',
  'mkdir',
  'rm',
  'rmdir',
  'cp',
  'mv',
  'ln',
  'touch',
  'chmod',
  'head',
  'tail',
  'wc',
  'sort',
  'uniq',
  'tr',
  'cut',
  'tee',
  'seq',
  'yes',
  'date',
  'uname',
  'id',
  'pwd',
  'printf',
  'test',
  '[',
  'stat',
  'dirname',
  'basename',
  'readlink',
  'realpath',
  'md5sum',
  'sha256sum',
  'base64',
  'du',
  'df',
  'grep',
  'sed',
  'find',
  'xargs',
  'awk',
  'mawk',
  'gzip',
  'tar',
  'kill',
  'ps',
];

/** Skipped from the python standard library: tests, GUI, build config, bytecode caches. */
const PYTHON_SKIP = new Set([
  'test',
  'tests',
  'idle_test',
  'idlelib',
  'tkinter',
  'turtledemo',
  'ensurepip',
  'lib2to3',
  'pydoc_data',
  '__pycache__',
  'site-packages',
  'dist-packages',
]);

async function debianRootfs(): Promise<Rootfs> {
  const r = base(new Rootfs(), 'ID=svc-test-debian\nNAME="svc test image: glibc, from this machine\'s files"');
  // Debian's merged /usr: /bin, /lib and /lib64 are links into /usr.
  const tools = DEBIAN_TOOLS.map((t) => `/usr/bin/${t}`).filter((f) => fs.existsSync(f));
  const python = fs.existsSync('/usr/bin/python3') ? pythonFiles() : [];
  await r.withLibraries([...tools, ...python]);
  for (const t of ['/bin', '/lib', '/lib64', '/sbin']) if (fs.existsSync(t)) r.host(t);
  return r;
}

/** /usr/bin/python3, its interpreter and its standard library (the shared objects among them are returned, to bring their libraries). */
function pythonFiles(): string[] {
  const exe = fs.realpathSync('/usr/bin/python3');
  const lib = `/usr/lib/${path.basename(exe)}`;
  const files = ['/usr/bin/python3', exe];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (PYTHON_SKIP.has(e.name) || e.name.startsWith('config-')) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files.push(p);
    }
  };
  if (fs.existsSync(lib)) walk(lib);
  return files;
}

/** Busybox and a link for each of its applets (busybox --list-full: bin/sh, usr/bin/env, …). */
function busybox(r: Rootfs): Rootfs {
  const bin = ['/bin/busybox', '/usr/bin/busybox'].find((f) => fs.existsSync(f));
  if (!bin) throw new Error('busybox is not installed on this machine (apt-get install busybox-static)');
  r.file('/bin/busybox', fs.readFileSync(bin), 0o755);
  const applets = busyboxApplets(bin);
  for (const a of applets) if (a !== 'bin/busybox') r.symlink(`/${a}`, '/bin/busybox');
  return r;
}

function busyboxApplets(bin: string): string[] {
  const out = execFileSync(bin, ['--list-full'], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

function busyboxRootfs(): Rootfs {
  return busybox(base(new Rootfs(), 'ID=svc-test-busybox\nNAME="svc test image: static busybox, no libc"'));
}

function muslRootfs(): Rootfs {
  const loader = '/lib/ld-musl-x86_64.so.1';
  if (!fs.existsSync(loader)) throw new Error(`${loader} is missing on this machine (apt-get install musl)`);
  const r = busybox(base(new Rootfs(), 'ID=svc-test-musl\nNAME="svc test image: musl loader and busybox, no glibc"'));
  // Alpine's layout: the loader is the libc, and a second name points at it.
  r.file(loader, fs.readFileSync(loader), 0o755);
  r.symlink('/lib/libc.musl-x86_64.so.1', 'ld-musl-x86_64.so.1');
  return r;
}

function withSvc(r: Rootfs, bundle: RunnerBundle): Rootfs {
  return r.copyTree(bundle.dir, '/opt/svc').symlink('/usr/local/bin/svc', '/opt/svc/svc');
}
