// Spawning task processes through the spawn helper (spawner.ts), for runners
// inside a large process (the process executor in the dispatcher). The helper
// is started on first use and again after it dies; a task whose helper died
// is reported as killed (its process group is killed too), so nothing is left
// half-watched.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { FromSpawner, ToSpawner } from './spawn-protocol.js';
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

export interface SpawnHelperOptions {
  /** Reports that the helper died (the tasks it watched are reported as killed). */
  onHelperExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

/** A spawn helper process and its tasks. `spawn` is a SpawnFn for runTask's `spawn` option. */
export class SpawnHelper {
  private proc: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private closed = false;

  constructor(private readonly o: SpawnHelperOptions = {}) {}

  readonly spawn: SpawnFn = (inv, opts) =>
    new Promise<SpawnedChild>((resolve, reject) => {
      if (this.closed) return reject(Object.assign(new Error('spawn helper closed'), { code: 'ECLOSED' }));
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
    this.proc?.disconnect();
    this.proc = null;
  }

  private send(m: ToSpawner): void {
    this.helper().send(m);
  }

  private helper(): ChildProcess {
    if (this.proc) return this.proc;
    const proc = fork(spawnerPath(), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
      execArgv: ['--max-semi-space-size=1'],
      // The helper needs no configuration: its environment holds none of its parent's (credentials, SVC_*), and tasks get theirs from the spec.
      env: helperEnv(),
    });
    proc.on('message', (m: FromSpawner) => this.onMessage(m));
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
        p.child = new HelperChild(m.pid, (paused) => this.proc?.send({ t: 'pause', id: m.id, paused } satisfies ToSpawner));
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
