import type { SpawnFn } from './process.js';
import type { BundleCache } from './bundle-cache.js';
import type { WorkdirPool } from './workdir-pool.js';
import type { TaskUser } from './task-user.js';
// The runner protocol's shapes (runner spec, log line, completion) and the
// transport seam: the same `runTask` runs inside the dispatcher process
// (direct transport, no HTTP) and as `svc exec` in containers (HTTP).

/** Interpreters a script task may name; see `RUNTIME_CANDIDATES`. */
export type Runtime = 'python' | 'bash' | 'bun' | 'node';

/** The runner spec (response of runnerGetSpec), exactly the spec's fields. */
export interface RunnerSpec {
  task_run_id: string;
  execution_id: string;
  /** '' for file runs. */
  flow_id: string;
  namespace: string;
  task_id: string;
  bundle_hash: string;
  /** Working directory relative to the bundle root; '' = the root. */
  workdir: string;
  attempt: number;
  /** argv; for script tasks `[file, ...args]` and the runner prefixes the interpreter. */
  command: string[];
  /** The task's whole environment (SVC_* ids and the rendered env); PATH and HOME fall back to the runner's own. */
  env: Record<string, string>;
  /** Files written before start: path relative to the bundle root → content. */
  files?: Record<string, string>;
  /** Interpreter of a script task: 'python' | 'bash' | 'bun' | 'node'. */
  runtime?: string;
  limits: {
    /** Largest artifact uploaded; larger files are skipped with a warning line. 0 or less = no limit. */
    max_artifact_bytes: number;
    /** Largest bundle (sum of extracted file sizes); a larger one fails the run. 0 or less = no limit. */
    max_bundle_bytes: number;
  };
  /** Values replaced with *** in every log line. */
  mask_values: string[];
  /** Seconds before the task is killed as TIMED_OUT; 0 or less = no timeout. */
  timeout_seconds: number;
}

/** One posted log line. */
export interface LogLine {
  /** 1, 2, 3 … per task run across both streams, no gaps. */
  n: number;
  /** Nanoseconds since the epoch as a decimal string; strictly increasing within a run. */
  ts: string;
  stream: 'stdout' | 'stderr';
  /** One line without its newline, masked. */
  text: string;
}

export type CompletionState = 'SUCCESS' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED';

/**
 * Reasons the runner reports: '' on success, `exit_code`, `timeout`, `cancelled`,
 * `runtime_not_found`, `executor_error`, and `instance_shutdown` when the runner
 * itself is being stopped (RunOptions.shutdownSignal, or SIGTERM to `svc exec`).
 */
export type CompletionReason = '' | 'exit_code' | 'timeout' | 'cancelled' | 'runtime_not_found' | 'executor_error' | 'instance_shutdown';

export interface Metric {
  name: string;
  value: number;
  tags?: Record<string, string>;
}

/** The runner's report at the end of a task run (body of runnerComplete). */
export interface Completion {
  state: CompletionState;
  reason: CompletionReason | (string & {});
  error: string;
  /** The process's exit code; 128 + signal number when a signal killed it; null when it never ran. */
  exit_code: number | null;
  outputs: Record<string, unknown>;
  metrics: Metric[];
}

/** How the runner talks to the service; HTTP in containers, direct calls inside the dispatcher. */
export interface RunnerTransport {
  getSpec(): Promise<RunnerSpec>;
  /** tar.gz of the namespace snapshot (empty archive allowed); null when the snapshot has no files. */
  getBundle(): Promise<NodeJS.ReadableStream | null>;
  /** Called every `heartbeatMs`; answering { cancel: true } makes the runner stop the task (SIGTERM, SIGKILL after killDelayMs). */
  heartbeat(): Promise<{ cancel: boolean }>;
  postLogs(lines: LogLine[]): Promise<void>;
  putArtifact(name: string, body: NodeJS.ReadableStream, size: number): Promise<void>;
  complete(c: Completion): Promise<void>;
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
