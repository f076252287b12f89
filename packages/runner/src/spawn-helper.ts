// Spawning task processes through a spawn helper, for runners inside a large
// process (the process executor in the dispatcher). The helper is the Perl
// one (spawner-perl.ts) where a `perl` is on the PATH, else the Node one
// (spawner.ts); both speak the messages of spawn-protocol.ts, the Perl one
// in frames over its stdin and stdout. The helper is started on first use and
// again after it dies; a task whose helper died is reported as killed (its
// process group is killed too), so nothing is left half-watched.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { FromSpawner, ToSpawner } from './spawn-protocol.js';
import { PERL_SPAWNER } from './spawner-perl.js';
import { ExitLatch, identityOf, type SpawnedChild, type SpawnFn } from './process.js';

interface Pending {
  resolve: (c: SpawnedChild) => void;
  reject: (err: NodeJS.ErrnoException) => void;
  child?: HelperChild;
}

class HelperChild extends ExitLatch implements SpawnedChild {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();

  constructor(
    readonly pid: number,
    readonly setPaused: (paused: boolean) => void,
  ) {
    super();
  }
}

/** The helper's script: beside this module once built; from the sources (tests run by tsx), the built one in dist/. */
function spawnerPath(): string {
  const here = fileURLToPath(new URL('./spawner.js', import.meta.url));
  return fs.existsSync(here) ? here : fileURLToPath(new URL('../dist/spawner.js', import.meta.url));
}

/** The few variables the helper's own runtime may use. */
function helperEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'LANG', 'LC_ALL', 'TZ']) if (process.env[k] !== undefined) env[k] = process.env[k];
  return env;
}

/** The first `perl` on the PATH, or null. */
export function findPerl(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, 'perl');
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return null;
}

export type SpawnHelperRuntime = 'perl' | 'node';

export interface SpawnHelperOptions {
  /** Reports that the helper died (the tasks it watched are reported as killed). */
  onHelperExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
  /** Which helper; default the Perl one when a `perl` is on the PATH, else the Node one. */
  runtime?: SpawnHelperRuntime;
}

const SIGNAL_NAMES = new Map(Object.entries(os.constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]));
const ERRNO_NAMES = new Map(Object.entries(os.constants.errno).map(([name, n]) => [n, name]));

/** A wait status as Node reports an exit: the code, or the signal that ended the process. */
function exitOf(status: number): { code: number | null; signal: NodeJS.Signals | null } {
  const sig = status & 0x7f;
  return sig ? { code: null, signal: SIGNAL_NAMES.get(sig) ?? null } : { code: (status >> 8) & 0xff, signal: null };
}

/** One frame to the Perl helper: its length, then the type byte and NUL-separated fields. */
function perlFrame(m: ToSpawner): Buffer {
  const fields =
    m.t === 'start'
      ? [
          'S' + m.id,
          m.file,
          m.argv0,
          m.cwd,
          m.uid === undefined ? '' : String(m.uid),
          m.gid === undefined ? '' : String(m.gid),
          String(m.args.length),
          ...m.args,
          ...Object.entries(m.env).map(([k, v]) => `${k}=${v}`),
        ]
      : ['P' + m.id, m.paused ? '1' : '0'];
  const body = Buffer.from(fields.join('\0'));
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

/** Reads the Perl helper's frames from its stdout as FromSpawner messages. */
function perlReader(onMessage: (m: FromSpawner) => void): (chunk: Buffer) => void {
  let buf: Buffer<ArrayBufferLike> = Buffer.alloc(0);
  return (chunk) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    let at = 0;
    while (buf.length - at >= 4) {
      const len = buf.readUInt32BE(at);
      if (buf.length - at - 4 < len) break;
      const frame = buf.subarray(at + 4, at + 4 + len);
      at += 4 + len;
      const type = String.fromCharCode(frame[0]);
      const nul = frame.indexOf(0);
      const id = Number(frame.subarray(1, nul).toString());
      const rest = frame.subarray(nul + 1);
      if (type === 'd') onMessage({ t: 'data', id, s: rest[0] === 0x31 ? 1 : 0, d: rest.subarray(2) });
      else if (type === 'p') onMessage({ t: 'spawn', id, pid: Number(rest.toString()) });
      else if (type === 'e') {
        const code = ERRNO_NAMES.get(Number(rest.toString())) ?? 'EUNKNOWN';
        onMessage({ t: 'error', id, code, message: `spawn ${code}` });
      } else if (type === 'x' || type === 'D') onMessage({ t: type === 'x' ? 'exit' : 'done', id, ...exitOf(Number(rest.toString())) });
    }
    buf = at === buf.length ? Buffer.alloc(0) : buf.subarray(at);
  };
}

/** A spawn helper process and its tasks. `spawn` is a SpawnFn for runTask's `spawn` option. */
export class SpawnHelper {
  private proc: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private closed = false;

  /** Which helper runs the spawns (fixed for this SpawnHelper's life). */
  readonly runtime: SpawnHelperRuntime;
  private readonly perl: string | null;

  constructor(private readonly o: SpawnHelperOptions = {}) {
    this.perl = o.runtime === 'node' ? null : findPerl();
    if (o.runtime === 'perl' && !this.perl) throw new Error('no perl on the PATH for the spawn helper');
    this.runtime = this.perl ? 'perl' : 'node';
  }

  readonly spawn: SpawnFn = (inv, opts) =>
    new Promise<SpawnedChild>((resolve, reject) => {
      if (this.closed) return reject(Object.assign(new Error('spawn helper closed'), { code: 'ECLOSED' }));
      // As Node's spawn refuses them: a NUL cannot reach exec, and would split the Perl helper's fields.
      const strings = [inv.file, inv.argv0, opts.cwd, ...inv.args, ...Object.entries(opts.env).flat()];
      if (strings.some((x) => x.includes('\0'))) return reject(Object.assign(new TypeError('a spawn argument contains a NUL byte'), { code: 'ERR_INVALID_ARG_VALUE' }));
      const id = ++this.seq;
      this.pending.set(id, { resolve, reject });
      this.send({ t: 'start', id, file: inv.file, args: inv.args, argv0: inv.argv0, cwd: opts.cwd, env: opts.env, ...identityOf(opts) });
    });

  /** The helper's process id, once it runs (null before the first spawn or after it died). */
  get helperPid(): number | null {
    return this.proc?.pid ?? null;
  }

  /** Stops the helper (after the last task ended). */
  close(): void {
    this.closed = true;
    if (this.runtime === 'node') this.proc?.disconnect();
    else this.proc?.stdin?.end();
    this.proc = null;
  }

  private send(m: ToSpawner): void {
    const proc = this.helper();
    if (this.runtime === 'node') proc.send(m);
    else proc.stdin!.write(perlFrame(m));
  }

  private helper(): ChildProcess {
    if (this.proc) return this.proc;
    // The helper needs no configuration: its environment holds none of its parent's (credentials, SVC_*, PERL5OPT), and tasks get theirs from the spec.
    const proc =
      this.runtime === 'node'
        ? fork(spawnerPath(), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced', execArgv: ['--max-semi-space-size=1'], env: helperEnv() })
        : spawn(this.perl!, ['-e', PERL_SPAWNER], { stdio: ['pipe', 'pipe', 'inherit'], env: helperEnv() });
    if (this.runtime === 'node') proc.on('message', (m: FromSpawner) => this.onMessage(m));
    else {
      proc.stdout!.on(
        'data',
        perlReader((m) => this.onMessage(m)),
      );
      proc.stdin!.on('error', () => {}); // a dead helper is reported through 'exit'
    }
    proc.once('exit', (code, signal) => {
      if (this.proc === proc) this.proc = null;
      this.helperDied();
      if (!this.closed) this.o.onHelperExit?.(code, signal);
    });
    proc.on('error', () => {}); // reported through 'exit'
    this.proc = proc;
    return proc;
  }

  private onMessage(m: FromSpawner): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    switch (m.t) {
      case 'spawn':
        p.child = new HelperChild(m.pid, (paused) => this.proc && this.send({ t: 'pause', id: m.id, paused }));
        p.resolve(p.child);
        break;
      case 'error':
        this.pending.delete(m.id);
        p.reject(Object.assign(new Error(m.message), { code: m.code }));
        break;
      case 'data':
        (m.s === 0 ? p.child?.stdout : p.child?.stderr)?.write(Buffer.from(m.d.buffer, m.d.byteOffset, m.d.byteLength));
        break;
      case 'exit':
        p.child?.exited(m.code, m.signal);
        break;
      case 'done':
        this.pending.delete(m.id);
        p.child?.stdout.end();
        p.child?.stderr.end();
        p.child?.exited(m.code, m.signal);
        break;
    }
  }

  /** The helper is gone: its tasks lose their watcher, so they are killed and reported as killed. */
  private helperDied(): void {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      if (!p.child) {
        p.reject(Object.assign(new Error('the spawn helper exited'), { code: 'EHELPER' }));
        continue;
      }
      try {
        process.kill(-p.child.pid, 'SIGKILL');
      } catch {
        /* gone already */
      }
      if (!p.child.stdout.writableEnded) p.child.stdout.end();
      if (!p.child.stderr.writableEnded) p.child.stderr.end();
      p.child.exited(null, 'SIGKILL');
    }
  }
}
