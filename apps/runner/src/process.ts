// The task's process, in its own process group (detached), so a stop reaches
// every process the task started: SIGTERM to the group, SIGKILL `killDelayMs`
// later. When the main process exits by itself, what is left of its group gets
// the same treatment, because a leftover holding the stdout pipe open would
// otherwise keep the run from ending.
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { PrepareError } from './errors.js';
import type { Invocation } from './resolve.js';

/** Why the runner stopped the task; the first one wins. */
export type StopCause = 'timeout' | 'cancel' | 'shutdown';

export interface ProcessExit {
  /** Exit code, or null when a signal ended the process. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the runner stopped the task before it exited by itself. */
  stopCause: StopCause | null;
}

export interface TaskProcessOptions {
  cwd: string;
  env: Record<string, string>;
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
  ) {
    this.done = done.then(({ code, signal }) => {
      for (const t of this.timers) clearTimeout(t);
      return { code, signal, stopCause: this.stopCause };
    });
  }

  /** Spawns the task; rejects with a PrepareError when the process cannot start. */
  static start(inv: Invocation, opts: TaskProcessOptions): Promise<TaskProcess> {
    return new Promise((resolve, reject) => {
      const child = spawn(inv.file, inv.args, {
        argv0: inv.argv0,
        cwd: opts.cwd,
        env: opts.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
      let open = 2;
      let finish: (v: { code: number | null; signal: NodeJS.Signals | null }) => void = () => {};
      const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => (finish = r));
      const maybeDone = () => {
        if (exit && open === 0) finish(exit);
      };
      const pipes = [child.stdout, child.stderr] as Readable[];
      for (const [i, stream] of (['stdout', 'stderr'] as const).entries()) {
        const pipe = pipes[i]!;
        let ended = false;
        const end = () => {
          if (ended) return;
          ended = true;
          opts.onStreamEnd(stream);
          open--;
          maybeDone();
        };
        pipe.on('data', (chunk: Buffer) => opts.onOutput(stream, chunk));
        pipe.on('end', end);
        pipe.on('close', end);
        pipe.on('error', end);
      }
      // `on`, not `once`: a later error (a failed kill) must not become an uncaught 'error' event.
      child.on('error', (err: NodeJS.ErrnoException) => {
        reject(new PrepareError('executor_error', `cannot start ${inv.argv0}: ${err.code ?? err.message}`, { cause: err }));
      });
      child.once('spawn', () => {
        const proc = new TaskProcess(child.pid!, pipes, opts.killDelayMs, done);
        child.once('exit', (code, signal) => {
          exit = { code, signal };
          proc.exited = true;
          proc.terminateGroup(); // leftovers of the group
          maybeDone();
        });
        resolve(proc);
      });
    });
  }

  /** Stops the task (SIGTERM to the group, SIGKILL after the kill delay); the first cause is the one reported. */
  stop(cause: StopCause): void {
    if (!this.exited && !this.stopCause) this.stopCause = cause;
    this.terminateGroup();
  }

  /** Pauses or resumes reading the task's output (backpressure). */
  setPaused(paused: boolean): void {
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
