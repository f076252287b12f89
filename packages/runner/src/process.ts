// The task's process, in its own process group (detached), so a stop reaches
// every process the task started: SIGTERM to the group, SIGKILL `killDelayMs`
// later. When the main process exits by itself, what is left of its group gets
// the same treatment, because a leftover holding the stdout pipe open would
// otherwise keep the run from ending.
import { spawn, type SpawnOptions } from 'node:child_process';
import { finished, type Readable } from 'node:stream';
import { PrepareError } from './errors.js';
import type { Invocation } from './resolve.js';
import type { TaskUser } from './task-user.js';

/** Why the runner stopped the task; the first one wins. */
export type StopCause = 'timeout' | 'cancel' | 'shutdown';

export interface ProcessExit {
  /** Exit code, or null when a signal ended the process. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the runner stopped the task before it exited by itself. */
  stopCause: StopCause | null;
}

/** A started task process, however it was spawned. */
export interface SpawnedChild {
  pid: number;
  stdout: Readable;
  stderr: Readable;
  /** Calls `fn` once the main process exited (at once if it has). */
  onExit(fn: ExitHandler): void;
  /** Pauses reading at the source, for output relayed from elsewhere (the spawn helper). */
  setPaused?(paused: boolean): void;
}

/** Starts a process detached (its own process group) with stdin ignored and stdout, stderr piped; rejects with the spawn error. */
export type SpawnFn = (inv: Invocation, opts: SpawnOpts) => Promise<SpawnedChild>;

/** Where and how a task process starts; `uid` and `gid` (both or neither) run it as another user (the runner must be root). */
export interface SpawnOpts {
  cwd: string;
  env: Record<string, string>;
  uid?: number;
  gid?: number;
}

/** spawn's identity options of SpawnOpts (none when the task runs as the runner's own user). */
export const identityOf = (o: { uid?: number; gid?: number }): { uid?: number; gid?: number } => (o.uid !== undefined && o.gid !== undefined ? { uid: o.uid, gid: o.gid } : {});

/** How every task process is spawned (here or by the spawn helper): its own process group, stdin closed, output piped. */
export const TASK_SPAWN_OPTIONS = { detached: true, stdio: ['ignore', 'pipe', 'pipe'] } as const satisfies SpawnOptions;

type ExitHandler = (code: number | null, signal: NodeJS.Signals | null) => void;

/** A process's exit, for SpawnedChild.onExit: handlers added before it wait, those added after run at once. */
export class ExitLatch {
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly waiting: ExitHandler[] = [];

  readonly onExit = (fn: ExitHandler): void => {
    if (this.exit) fn(this.exit.code, this.exit.signal);
    else this.waiting.push(fn);
  };

  /** Records the exit (the first one only) and runs the waiting handlers. */
  exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exit) return;
    this.exit = { code, signal };
    for (const fn of this.waiting.splice(0)) fn(code, signal);
  }
}

/** Calls `fn` once `stream` is done: ended, closed or failed. */
export function onStreamDone(stream: Readable, fn: () => void): void {
  finished(stream, { writable: false }, () => fn());
}

/** Spawning from this process. */
export const directSpawn: SpawnFn = (inv, opts) =>
  new Promise((resolve, reject) => {
    const child = spawn(inv.file, inv.args, { argv0: inv.argv0, cwd: opts.cwd, env: opts.env, ...identityOf(opts), ...TASK_SPAWN_OPTIONS });
    const exit = new ExitLatch();
    child.once('exit', (code, signal) => exit.exited(code, signal));
    // `on`, not `once`: a later error (a failed kill) must not become an uncaught 'error' event.
    child.on('error', (err) => {
      if (child.pid === undefined) reject(err);
    });
    child.once('spawn', () =>
      resolve({
        pid: child.pid!,
        stdout: child.stdout,
        stderr: child.stderr,
        onExit: exit.onExit,
      }),
    );
  });

export interface TaskProcessOptions {
  /** How to start the process; default {@link directSpawn}. */
  spawn?: SpawnFn;
  cwd: string;
  env: Record<string, string>;
  /** Run the process as this user (the runner must be root); default the runner's own. */
  user?: TaskUser;
  /** Delay between SIGTERM and SIGKILL of the group. */
  killDelayMs: number;
  onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /** The stream ended (EOF, or abandoned after the kill). */
  onStreamEnd: (stream: 'stdout' | 'stderr') => void;
}

/** After SIGKILL, pipes still open this much longer belong to processes that left the group; stop waiting for them. */
const ABANDON_PIPES_MS = 1000;

export class TaskProcess {
  /** Resolves once the main process exited and both pipes ended. */
  readonly done: Promise<ProcessExit>;
  private stopCause: StopCause | null = null;
  private exited = false;
  private terminating = false;
  private readonly timers: NodeJS.Timeout[] = [];

  private constructor(
    private readonly pid: number,
    private readonly pipes: Readable[],
    private readonly killDelayMs: number,
    done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
    private readonly pauseSource?: (paused: boolean) => void,
  ) {
    this.done = done.then(({ code, signal }) => {
      for (const t of this.timers) clearTimeout(t);
      return { code, signal, stopCause: this.stopCause };
    });
  }

  /** Spawns the task; rejects with a PrepareError when the process cannot start. */
  static async start(inv: Invocation, opts: TaskProcessOptions): Promise<TaskProcess> {
    let child: SpawnedChild;
    try {
      child = await (opts.spawn ?? directSpawn)(inv, { cwd: opts.cwd, env: opts.env, ...(opts.user ? { uid: opts.user.uid, gid: opts.user.gid } : {}) });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      throw new PrepareError('executor_error', `cannot start ${inv.argv0}: ${e.code ?? e.message}`, { cause: err });
    }
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let open = 2;
    let finish: (v: { code: number | null; signal: NodeJS.Signals | null }) => void = () => {};
    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => (finish = r));
    const maybeDone = () => {
      if (exit && open === 0) finish(exit);
    };
    const pipes = [child.stdout, child.stderr];
    for (const [i, stream] of (['stdout', 'stderr'] as const).entries()) {
      const pipe = pipes[i];
      pipe.on('data', (chunk: Buffer) => opts.onOutput(stream, chunk));
      onStreamDone(pipe, () => {
        opts.onStreamEnd(stream);
        open--;
        maybeDone();
      });
    }
    const proc = new TaskProcess(child.pid, pipes, opts.killDelayMs, done, child.setPaused?.bind(child));
    child.onExit((code, signal) => {
      exit = { code, signal };
      proc.exited = true;
      proc.terminateGroup(); // leftovers of the group
      maybeDone();
    });
    return proc;
  }

  /** Stops the task (SIGTERM to the group, SIGKILL after the kill delay); the first cause is the one reported. */
  stop(cause: StopCause): void {
    if (!this.exited && !this.stopCause) this.stopCause = cause;
    this.terminateGroup();
  }

  /** Whether any process of the task's group still exists (leftovers have not died yet). */
  groupAlive(): boolean {
    try {
      process.kill(-this.pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  /** Pauses or resumes reading the task's output (backpressure). */
  setPaused(paused: boolean): void {
    this.pauseSource?.(paused);
    for (const p of this.pipes) {
      if (paused) p.pause();
      else p.resume();
    }
  }

  private terminateGroup(): void {
    if (this.terminating) return;
    this.terminating = true;
    this.signalGroup('SIGTERM');
    this.timers.push(
      setTimeout(() => {
        this.signalGroup('SIGKILL');
        this.timers.push(
          setTimeout(() => {
            for (const p of this.pipes) p.destroy();
          }, ABANDON_PIPES_MS),
        );
      }, this.killDelayMs),
    );
  }

  private signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the whole group is gone already.
    }
  }
}
