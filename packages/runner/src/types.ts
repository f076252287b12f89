// The runner protocol's shapes and the transport seam: the same `runTask`
// runs inside the dispatcher process (direct transport, no HTTP) and as `svc
// exec` in containers (HTTP). The shapes are the wire contract's, declared
// once in @svc/api-spec (the schemas the gateway validates with); what the
// runner sends narrows them to what it always sets.
import type { RunnerCompletion, RunnerHeartbeatResponse, RunnerLogLine, RunnerMetric, RunnerSpec } from '@svc/api-spec';
import type { SpawnFn } from './process.js';
import type { BundleCache } from './bundle-cache.js';
import type { WorkdirPool } from './workdir-pool.js';
import type { TaskUser } from './task-user.js';

export type { RunnerSpec };

/** Interpreters a script task may name; see `RUNTIME_CANDIDATES`. */
export type { Runtime } from './resolve.js';

/** One posted log line: a RunnerLogLine with its number and time always set. */
export interface LogLine extends RunnerLogLine {
  /** 1, 2, 3 … per task run across both streams, no gaps. */
  n: number;
  /** Nanoseconds since the epoch as a decimal string; strictly increasing within a run. */
  ts: string;
  stream: 'stdout' | 'stderr';
  /** One line without its newline, masked. */
  text: string;
}

export type CompletionState = NonNullable<RunnerCompletion['state']>;

/**
 * Reasons the runner reports: '' on success, `exit_code`, `timeout`, `cancelled`,
 * `runtime_not_found`, `executor_error`, and `instance_shutdown` when the runner
 * itself is being stopped (RunOptions.shutdownSignal, or SIGTERM to `svc exec`).
 */
export type CompletionReason = '' | 'exit_code' | 'timeout' | 'cancelled' | 'runtime_not_found' | 'executor_error' | 'instance_shutdown';

export type Metric = RunnerMetric;

/** The runner's report at the end of a task run (body of runnerComplete), every field set. */
export interface Completion extends Required<RunnerCompletion> {
  reason: CompletionReason | (string & {});
  outputs: Record<string, unknown>;
}

/** How the runner talks to the service; HTTP in containers, direct calls inside the dispatcher. */
export interface RunnerTransport {
  getSpec(): Promise<RunnerSpec>;
  /** tar.gz of the namespace snapshot (empty archive allowed); null when the snapshot has no files. */
  getBundle(): Promise<NodeJS.ReadableStream | null>;
  /** Called every `heartbeatMs`; answering { cancel: true } makes the runner stop the task (SIGTERM, SIGKILL after killDelayMs). */
  heartbeat(): Promise<RunnerHeartbeatResponse>;
  postLogs(lines: LogLine[]): Promise<void>;
  /**
   * Uploads one file, streamed. `opts.kind` `output` stores an output file
   * (docs/using/files.md); `opts.sha256` (hex) is checked by the receiver,
   * which keeps nothing of a body with another.
   */
  putArtifact(name: string, body: NodeJS.ReadableStream, size: number, opts?: { kind?: 'artifact' | 'output'; sha256?: string }): Promise<void>;
  /**
   * Streams one file the task reads (`spec.fetch_files`: an upstream task's
   * output file or a file input), by its artifact id; the runner checks its
   * size and sha256 itself (fetch-files.ts).
   */
  getFile(artifactId: string): Promise<NodeJS.ReadableStream>;
  complete(c: Completion): Promise<void>;
  /**
   * Reports what the runner is doing (runnerPostEvents), shown on the task
   * run as `progress`. Optional: the process executor's runner starts its
   * task at once and omits it; `svc exec` in a container reports its steps.
   */
  postEvent?(e: RunnerEvent): Promise<void>;
}

/** A runner event (the body of runnerPostEvents). */
export interface RunnerEvent {
  type: 'started' | 'progress' | 'heartbeat';
  message?: string;
  percent?: number;
}

export interface RunOptions {
  transport: RunnerTransport;
  /** Extracted bundles kept between task runs (the process executor's); without it each run extracts its bundle. */
  bundleCache?: BundleCache;
  /**
   * A directory of the caller's, empty but for an (empty) `artifacts/`, that
   * holds this run's outputs file and artifacts directory while it lasts; the
   * caller empties it afterwards and may give it to a later run. With it, the
   * run directory itself is the bundle root. Directory creation is the most
   * expensive file system step of a task on some file systems (ext4 without
   * a journal scans recently deleted inodes), so the process executor keeps
   * one per slot. Default: both inside the run directory.
   */
  ioDir?: string;
  /**
   * Working directories kept between runs (with `ioDir` only): the run's
   * working directory comes from the pool, brought back to exactly the
   * bundle's tree, and returns to it when the task's process group is gone,
   * instead of a fresh directory made and removed per run (see
   * workdir-pool.ts for why and what it checks). Default: a fresh one.
   */
  workdirs?: WorkdirPool;
  /**
   * Called once the task's main process has exited and its output ended, with
   * whether its whole process group is gone by then (a leftover that has not
   * died yet could still write to the io directory: do not reuse it then).
   * Also called when the runner itself fails after the start (once the
   * process ended). Not called when the task never started.
   */
  onProcessEnd?: (groupGone: boolean) => void;
  /** How the task process is started; default a spawn from this process (the process executor passes its SpawnHelper's). */
  spawn?: SpawnFn;
  /** Parent directory for the fresh run directory (created, and removed afterwards unless keepWorkdir). */
  workRoot: string;
  /** Cancels the task at once (in-process use): same effect as a heartbeat answering cancel. */
  signal?: AbortSignal;
  /**
   * Stops the task because the runner itself is going away (dispatcher shutdown,
   * SIGTERM to `svc exec`): same kill, but FAILED reason `instance_shutdown`, which
   * the engine retries, where a cancel is final.
   */
  shutdownSignal?: AbortSignal;
  /** Interval of `transport.heartbeat` calls. Default 10_000 ms. */
  heartbeatMs?: number;
  /** Delay between SIGTERM and SIGKILL of the process group. Default 10_000 ms (the spec's runner kill delay). */
  killDelayMs?: number;
  /** A log line waits at most this long before it is posted. Default 50 ms. */
  logBatchMs?: number;
  /** A batch holds at most this many lines; a full batch is posted at once. Default 500. */
  logBatchLines?: number;
  /**
   * Run the task's process as this user (the runner must be root). Its
   * working and io directories must be writable by it (the process
   * executor's pools and io directories are made so); files it leaves are
   * read only when it owns them. Default: the runner's own user.
   */
  user?: TaskUser;
  /** Leave the run directory in place (debugging). Default false. */
  keepWorkdir?: boolean;
  /** Runner diagnostics that reach no task log (failed heartbeats, lost log batches). Default: dropped. */
  log?: (message: string) => void;
}
