// The runner bundle: a directory that starts `svc` inside any linux image of
// the machine's architecture, whatever libc the image has, if any:
//
//   lib/ld-linux-x86-64.so.2   node's dynamic loader, copied from this machine
//   lib/libc.so.6 …            every shared library node needs, by soname
//   bin/node                   this machine's node
//   svc.cjs                    svc exec (@svc/runner) bundled into one CommonJS file
//   svc                        a /bin/sh launcher, for images that carry the
//                              bundle and put `svc` on their PATH
//   bundle.json                what went in, and the hash
//
// It is started as `<dir>/lib/ld-linux-x86-64.so.2 --inhibit-cache
// --library-path <dir>/lib <dir>/bin/node <dir>/svc.cjs …`: the loader is run
// explicitly, so nothing is read from the image's /lib or /etc/ld.so.cache.
// (node then sees the loader as process.execPath and /proc/self/exe; `svc`
// relies on neither.) A Node single executable application would carry the
// same loader and libraries and save nothing: node is most of the size.
//
// Bundles are built lazily, once per content hash, into a cache directory: the
// process executor alone never builds one. A build goes into a temporary
// directory that is renamed into place, so processes that build at the same
// time each finish with the same complete directory.
import crypto from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readElfInfo } from './elf.js';
import { listSharedLibraries } from './libraries.js';
import { packDirectory } from './tar.js';

/** Where executors put the bundle inside a container. */
export const RUNNER_MOUNT = '/.svc-runner';

/** Bumped when the layout or the launcher changes, so the hash changes with them. */
const FORMAT = 'svc-runner-bundle/1';

export interface RunnerBundle {
  /** Absolute path of the bundle directory on this machine. */
  dir: string;
  /** Content hash (32 hex digits): changes when the runner code, node or its libraries change. Fits image tags, volume names and Kubernetes label values. */
  hash: string;
  /** Docker's name of the architecture the bundle runs on (amd64, arm64). */
  arch: string;
  /**
   * The argv that starts `svc` from this bundle placed at `mountDir` (default
   * RUNNER_MOUNT); the caller appends e.g. ['exec', '--server', url, '--task-run', id].
   */
  argv(mountDir?: string): string[];
  /**
   * The bundle's contents as a tar stream (for dockerode's putArchive). With
   * `prefix` (e.g. '.svc-runner'), every name is under that directory and the
   * archive extracts at '/' of a container that lacks it.
   */
  tar(prefix?: string): NodeJS.ReadableStream;
}

export interface EnsureRunnerBundleOptions {
  /** Directory holding one bundle directory per hash. Default: `<os tmpdir>/svc-runner-bundles-<uid>`. */
  cacheDir?: string;
  /** The node executable to ship. Default: process.execPath (this process's node). */
  nodePath?: string;
  /** The bundled svc to ship. Default: dist/svc.cjs of @svc/runner (svc exec, written by its build). */
  scriptPath?: string;
}

/** Thrown when a bundle cannot be built or does not start once built. */
export class RunnerBundleError extends Error {
  override readonly name = 'RunnerBundleError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(`runner bundle: ${message}`, options);
  }
}

interface Source {
  /** Path inside the bundle. */
  rel: string;
  from: string;
  mode: number;
}

interface Plan {
  sources: Source[];
  launcher: string;
  loader: string | null;
  arch: string;
  libraries: string[];
}

/** Bundles of other hashes unused this long are removed after a build (each ensureRunnerBundle call marks its bundle used). */
const PRUNE_AFTER_MS = 7 * 24 * 3600_000;
/** A temporary build directory this old belongs to a build that died. */
const STALE_BUILD_MS = 3600_000;

/** Builds in-flight or done in this process, by inputs and their file stats (a changed file makes a new key). */
const inProcess = new Map<string, Promise<RunnerBundle>>();

/** The bundle for this machine's node and the built svc: built once per content hash, then reused. */
export async function ensureRunnerBundle(opts: EnsureRunnerBundleOptions = {}): Promise<RunnerBundle> {
  const cacheDir = path.resolve(opts.cacheDir ?? path.join(os.tmpdir(), `svc-runner-bundles-${process.getuid?.() ?? 'user'}`));
  const nodePath = opts.nodePath ?? process.execPath;
  const scriptPath = opts.scriptPath ?? createRequire(import.meta.url).resolve('@svc/runner/svc.cjs');
  const key = [cacheDir, ...[nodePath, scriptPath].map((f) => `${f}:${statKey(f)}`)].join('\0');
  let p = inProcess.get(key);
  if (!p) {
    p = build(cacheDir, nodePath, scriptPath);
    inProcess.set(key, p);
    p.catch(() => inProcess.delete(key));
  }
  const bundle = await p;
  const now = new Date();
  await fs.promises.utimes(bundle.dir, now, now).catch(() => {}); // marks it used, against pruning
  return bundle;
}

function statKey(file: string): string {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st) throw new RunnerBundleError(`${file} does not exist${file.endsWith('svc.cjs') ? ' (build packages/runner: npm run build)' : ''}`);
  return `${st.size}:${st.mtimeMs}:${st.ino}`;
}

async function build(cacheDir: string, nodePath: string, scriptPath: string): Promise<RunnerBundle> {
  const plan = await planBundle(nodePath, scriptPath);
  const hash = await hashPlan(plan);
  const final = path.join(cacheDir, hash);
  if (fs.existsSync(path.join(final, 'bundle.json'))) return bundleAt(final, hash, plan);
  await fs.promises.mkdir(cacheDir, { recursive: true });
  const tmp = await fs.promises.mkdtemp(path.join(cacheDir, `.build-${hash}-`));
  try {
    for (const s of plan.sources) {
      const to = path.join(tmp, s.rel);
      await fs.promises.mkdir(path.dirname(to), { recursive: true });
      await fs.promises.copyFile(s.from, to, fs.constants.COPYFILE_FICLONE);
      await fs.promises.chmod(to, s.mode);
    }
    await fs.promises.writeFile(path.join(tmp, 'svc'), plan.launcher, { mode: 0o755 });
    const meta = { format: FORMAT, hash, arch: plan.arch, loader: plan.loader, libraries: plan.libraries, node: nodePath, script: scriptPath };
    await fs.promises.writeFile(path.join(tmp, 'bundle.json'), `${JSON.stringify(meta, null, 2)}\n`);
    await fs.promises.chmod(tmp, 0o755); // mkdtemp makes it 0700: containers may run as another user
    await verify(bundleAt(tmp, hash, plan));
    try {
      await fs.promises.rename(tmp, final);
    } catch (err) {
      // Another process renamed its build into place first: same hash, same content.
      if (!['ENOTEMPTY', 'EEXIST'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  } catch (err) {
    throw err instanceof RunnerBundleError ? err : new RunnerBundleError(`cannot build it in ${cacheDir}`, { cause: err });
  } finally {
    await fs.promises.rm(tmp, { recursive: true, force: true });
  }
  await prune(cacheDir, hash);
  return bundleAt(final, hash, plan);
}

/** Removes bundles of other hashes not used for PRUNE_AFTER_MS, and dead builds' temporary directories. */
async function prune(cacheDir: string, keep: string): Promise<void> {
  const now = Date.now();
  for (const name of await fs.promises.readdir(cacheDir).catch(() => [])) {
    const isBundle = /^[0-9a-f]{32}$/.test(name) && name !== keep;
    if (!isBundle && !name.startsWith('.build-')) continue;
    const st = await fs.promises.stat(path.join(cacheDir, name)).catch(() => null);
    if (st && now - st.mtimeMs > (isBundle ? PRUNE_AFTER_MS : STALE_BUILD_MS)) {
      await fs.promises.rm(path.join(cacheDir, name), { recursive: true, force: true }).catch(() => {});
    }
  }
}

async function planBundle(nodePath: string, scriptPath: string): Promise<Plan> {
  const elf = await readElfInfo(nodePath);
  const sources: Source[] = [
    { rel: 'bin/node', from: nodePath, mode: 0o755 },
    { rel: 'svc.cjs', from: scriptPath, mode: 0o644 },
  ];
  let loader: string | null = null;
  const libraries: string[] = [];
  if (elf.interpreter) {
    loader = path.basename(elf.interpreter);
    sources.push({ rel: `lib/${loader}`, from: elf.interpreter, mode: 0o755 });
    for (const lib of await listSharedLibraries(elf.interpreter, nodePath)) {
      sources.push({ rel: `lib/${lib.soname}`, from: lib.path, mode: 0o755 });
      libraries.push(lib.soname);
    }
  }
  return { sources, launcher: launcherScript(loader), loader, arch: elf.arch, libraries };
}

function launcherScript(loader: string | null): string {
  const start = loader ? `exec "$d/lib/${loader}" --inhibit-cache --library-path "$d/lib" "$d/bin/node" "$d/svc.cjs" "$@"` : `exec "$d/bin/node" "$d/svc.cjs" "$@"`;
  return [
    '#!/bin/sh',
    "# svc from the runner bundle this file is in, started with the bundle's own",
    '# loader and libraries. Put a link to it on the PATH (readlink -f finds the bundle).',
    'self=$0',
    'if [ -L "$self" ]; then self=$(readlink -f "$self" 2>/dev/null || echo "$self"); fi',
    'case $self in */*) d=${self%/*} ;; *) d=. ;; esac',
    start,
    '',
  ].join('\n');
}

async function hashPlan(plan: Plan): Promise<string> {
  const h = crypto.createHash('sha256');
  h.update(`${FORMAT}\0${plan.launcher}\0`);
  for (const s of [...plan.sources].sort((a, b) => (a.rel < b.rel ? -1 : 1))) {
    h.update(`${s.rel}\0${s.mode}\0`);
    for await (const chunk of fs.createReadStream(s.from, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  }
  return h.digest('hex').slice(0, 32);
}

function bundleAt(dir: string, hash: string, plan: Plan): RunnerBundle {
  return {
    dir,
    hash,
    arch: plan.arch,
    argv(mountDir = RUNNER_MOUNT) {
      const at = (rel: string) => path.posix.join(mountDir, rel);
      return plan.loader ? [at(`lib/${plan.loader}`), '--inhibit-cache', '--library-path', at('lib'), at('bin/node'), at('svc.cjs')] : [at('bin/node'), at('svc.cjs')];
    },
    tar(prefix?: string) {
      return packDirectory(dir, prefix);
    },
  };
}

/** Starts the fresh bundle once, with an empty environment: a bundle that cannot start is never renamed into place. */
async function verify(bundle: RunnerBundle): Promise<void> {
  const [file, ...args] = bundle.argv(bundle.dir);
  try {
    const { stdout } = await promisify(execFile)(file, [...args, '--help'], { env: {}, encoding: 'utf8', timeout: 30_000 });
    if (!stdout.includes('usage: svc exec')) throw new Error(`unexpected output ${JSON.stringify(stdout.slice(0, 200))}`);
  } catch (err) {
    throw new RunnerBundleError(`the bundle built in ${bundle.dir} does not start`, { cause: err });
  }
}
