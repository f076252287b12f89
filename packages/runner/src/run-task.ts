// One task run, start to end:
//   prepare  fetch the spec, make a fresh run directory and extract the
//            bundle (or take a kept one, synced to the bundle, from
//            `workdirs`), write the spec's files, find the cwd and the
//            executable;
//   run      spawn in its own process group, stream masked lines, heartbeat,
//            stop on timeout, cancel or shutdown;
//   report   read the outputs file, upload artifacts, flush the logs, remove
//            the run directory, and call `complete` exactly once — also when
//            preparing failed (FAILED executor_error or runtime_not_found).
//
// The run directory `<workRoot>/<task_run_id>-<random>/` holds `bundle/` (the
// bundle root), `outputs.jsonl` ($SVC_OUTPUTS) and `artifacts/` ($SVC_ARTIFACTS_DIR),
// so the task's own files never collide with the runner's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { uploadArtifacts } from './artifacts.js';
import { uploadOutputFiles } from './output-files.js';
import { fetchFiles } from './fetch-files.js';
import { BundleHashMismatchError, verifiedBundle } from './bundle-verify.js';
import { assertNever } from '@svc/assert';
import { Masker } from '@svc/masking';
import { BundleTooLargeError, CompletionDeliveryError, errorMessage, PrepareError, UnsafePathError } from './errors.js';
import { cutUtf8, LineSplitter, MAX_LINE_BYTES } from './lines.js';
import { LogBatcher } from './log-batcher.js';
import { readOutputs } from './outputs.js';
import { type ProcessExit, type StopCause, TaskProcess } from './process.js';
import { resolveInvocation } from './resolve.js';
import type { Completion, RunnerEvent, RunnerSpec, RunOptions } from './types.js';
import type { TaskUser } from './task-user.js';
import type { WorkdirLease } from './workdir-pool.js';
import { extractBundle, resolveCwd, writeFiles } from './workspace.js';

/** The last stderr line quoted in a failure's error is cut to this many characters. */
const MAX_ERROR_LINE_CHARS = 500;
/** setTimeout's largest delay; a longer task timeout is clamped to it (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export async function runTask(opts: RunOptions): Promise<Completion> {
  const { transport } = opts;
  const log = opts.log ?? (() => {});
  let stopCause: StopCause | null = null;
  let onStop: ((cause: StopCause) => void) | null = null;
  const requestStop = (cause: StopCause) => {
    if (stopCause) return;
    stopCause = cause;
    onStop?.(cause);
  };
  const abortListeners: [AbortSignal, () => void][] = [];
  for (const [signal, cause] of [
    [opts.signal, 'cancel'],
    [opts.shutdownSignal, 'shutdown'],
  ] as const) {
    if (!signal) continue;
    if (signal.aborted) requestStop(cause);
    const listener = () => requestStop(cause);
    signal.addEventListener('abort', listener, { once: true });
    abortListeners.push([signal, listener]);
  }

  let heartbeating = false;
  const heartbeat = setInterval(() => {
    if (heartbeating) return;
    heartbeating = true;
    transport
      .heartbeat()
      .then((r) => {
        if (r?.cancel) requestStop('cancel');
      })
      .catch((err: unknown) => log(`heartbeat failed: ${errorMessage(err)}`))
      .finally(() => (heartbeating = false));
  }, opts.heartbeatMs ?? 10_000);

  let spec: RunnerSpec | null = null;
  let runDir: string | null = null;
  let lease: WorkdirLease | null = null;
  // A pooled working directory goes back only once nothing of the task can write there (its group is gone).
  let reusable = true;
  const runOpts: RunOptions = {
    ...opts,
    onProcessEnd: (groupGone) => {
      reusable = groupGone;
      opts.onProcessEnd?.(groupGone);
    },
  };
  let completion: Completion;
  try {
    spec = checkSpec(await transport.getSpec());
    if (opts.workdirs && opts.ioDir && !opts.keepWorkdir) {
      const hash = spec.bundle_hash;
      const spool = opts.bundleCache?.spoolDir ?? opts.workRoot;
      lease = await opts.workdirs.acquire(hash, () => verifiedBundle(() => transport.getBundle(), hash, spool), spec.limits.max_bundle_bytes);
      runDir = lease.dir;
    } else {
      runDir = makeRunDir(opts.workRoot, spec.task_run_id);
    }
    completion = await execute(spec, runDir, runOpts, log, {
      cause: () => stopCause,
      onStop: (fn) => (onStop = fn),
      starting: () => (reusable = false),
      bundleReady: lease !== null,
    });
  } catch (err) {
    completion = prepareFailure(err);
  }
  try {
    if (lease) {
      lease.release(reusable);
    } else if (runDir && !opts.keepWorkdir) {
      try {
        removeTree(runDir);
      } catch (err) {
        log(`cannot remove ${runDir}: ${errorMessage(err)}`);
      }
    }
    await transport.complete(completion);
  } catch (err) {
    throw new CompletionDeliveryError(spec?.task_run_id ?? '', { cause: err });
  } finally {
    clearInterval(heartbeat);
    for (const [signal, listener] of abortListeners) signal.removeEventListener('abort', listener);
  }
  return completion;
}

interface RunHooks {
  cause(): StopCause | null;
  onStop(fn: (cause: StopCause) => void): void;
  /** Called just before the task's process is started. */
  starting(): void;
  /** The run directory already holds the bundle (a pooled working directory). */
  bundleReady: boolean;
}

async function execute(spec: RunnerSpec, runDir: string, opts: RunOptions, log: (m: string) => void, stop: RunHooks): Promise<Completion> {
  const { transport } = opts;
  // Events are reported on the side: a lost one costs nothing but the display.
  // Events go out one after another, in the order they happened: posted side by
  // side, a slow "fetching the namespace files" could land after "started" and
  // leave the task run's progress saying it is still fetching (seen under load).
  let events: Promise<void> = Promise.resolve();
  const event = (e: RunnerEvent) => {
    events = events.then(() => transport.postEvent?.(e)).catch((err: unknown) => log(`cannot report a runner event: ${errorMessage(err)}`));
  };
  // With an io directory of the caller's, the run directory is the bundle root
  // itself: one directory made per task instead of three (see RunOptions.ioDir).
  const bundleRoot = opts.ioDir ? runDir : path.join(runDir, 'bundle');
  const outputsFile = path.join(opts.ioDir ?? runDir, 'outputs.jsonl');
  const artifactsDir = path.join(opts.ioDir ?? runDir, 'artifacts');
  // The small file system steps of every task run are synchronous: each takes
  // microseconds, where a trip through libuv's thread pool costs more than the call.
  if (!opts.ioDir) {
    fs.mkdirSync(bundleRoot);
    fs.mkdirSync(artifactsDir);
  } else if (!fs.existsSync(artifactsDir)) {
    fs.mkdirSync(artifactsDir);
  }
  // The outputs file is not created here: the task's first append (`>> "$SVC_OUTPUTS"`) creates it, and no file means no outputs.

  if (spec.bundle_hash && !stop.bundleReady) event({ type: 'progress', message: 'fetching the namespace files' });
  if (stop.bundleReady) {
    // Synced by the pool.
  } else if (opts.bundleCache && spec.bundle_hash) {
    const spool = opts.bundleCache.spoolDir;
    await opts.bundleCache.fill(spec.bundle_hash, () => verifiedBundle(() => transport.getBundle(), spec.bundle_hash, spool), bundleRoot, spec.limits.max_bundle_bytes);
  } else {
    // Checked against bundle_hash before anything of it is unpacked (bundle-verify.ts).
    const bundle = await verifiedBundle(() => transport.getBundle(), spec.bundle_hash, opts.workRoot);
    if (bundle) await extractBundle(bundle, bundleRoot, spec.limits.max_bundle_bytes);
  }
  if (spec.files) await writeFiles(bundleRoot, spec.files, opts.user);
  const cwd = resolveCwd(bundleRoot, spec.workdir);
  if (spec.fetch_files?.length) {
    event({ type: 'progress', message: `fetching ${spec.fetch_files.length} file${spec.fetch_files.length === 1 ? '' : 's'}` });
    await fetchFiles(transport, cwd, spec.fetch_files, opts.user);
  }
  const env = taskEnv(spec, outputsFile, artifactsDir, opts.user);
  const invocation = await resolveInvocation(spec.command, spec.runtime, env.PATH, cwd);
  const early = stop.cause();
  if (early) return stoppedBeforeStart(early);

  const masker = new Masker(spec.mask_values);
  let proc: TaskProcess | null = null;
  let dropped = 0;
  const batcher = new LogBatcher({
    post: (lines) => transport.postLogs(lines),
    batchMs: opts.logBatchMs,
    batchLines: opts.logBatchLines,
    onPressure: (paused) => proc?.setPaused(paused),
    onPostError: (err, lines) => {
      dropped += lines.length;
      log(`${lines.length} log lines lost: ${errorMessage(err)}`);
    },
  });
  let lastStderr = '';
  const splitters = { stdout: new LineSplitter({ masker }), stderr: new LineSplitter({ masker }) };
  const emit = (stream: 'stdout' | 'stderr', lines: string[]) => {
    for (const text of lines) {
      if (stream === 'stderr' && text.trim()) lastStderr = text;
      batcher.add(stream, text);
    }
  };

  stop.starting();
  proc = await TaskProcess.start(invocation, {
    spawn: opts.spawn,
    cwd,
    env,
    user: opts.user,
    killDelayMs: opts.killDelayMs ?? 10_000,
    onOutput: (stream, chunk) => emit(stream, splitters[stream].push(chunk)),
    onStreamEnd: (stream) => emit(stream, splitters[stream].end()),
  });
  const started = proc;
  event({ type: 'started', message: `${invocation.argv0} started${process.env.SVC_IMAGE ? ` in image ${process.env.SVC_IMAGE}` : ''}` });
  stop.onStop((cause) => started.stop(cause));
  const raced = stop.cause();
  if (raced) proc.stop(raced);
  const timer = spec.timeout_seconds > 0 ? setTimeout(() => started.stop('timeout'), Math.min(spec.timeout_seconds * 1000, MAX_TIMER_MS)) : null;
  try {
    const exit = await proc.done;
    if (timer) clearTimeout(timer);
    opts.onProcessEnd?.(!started.groupAlive());
    const warn = (text: string) => {
      for (const piece of cutUtf8(masker.text(text), MAX_LINE_BYTES)) batcher.add('stderr', piece);
    };
    const parsed = readOutputs(outputsFile, undefined, opts.user);
    parsed.warnings.forEach(warn);
    (await uploadArtifacts(transport, artifactsDir, spec.limits.max_artifact_bytes, opts.user)).forEach(warn);
    let end = endState(exit, spec, lastStderr);
    if (end.state === 'SUCCESS' && spec.output_files?.length) {
      try {
        await uploadOutputFiles(transport, cwd, spec.output_files, spec.limits.max_artifact_bytes, opts.user);
      } catch (err) {
        const error = masker.text(errorMessage(err));
        warn(`[svc] ${error}`);
        end = { state: 'FAILED', reason: 'executor_error', error, exit_code: end.exit_code };
      }
    }
    await batcher.flush();
    if (dropped) log(`${dropped} log lines of task run ${spec.task_run_id} could not be posted`);
    return { ...end, outputs: parsed.outputs, metrics: parsed.metrics };
  } catch (err) {
    // Never report while the task may still run: stop it, then let runTask report executor_error.
    if (timer) clearTimeout(timer);
    started.stop('shutdown');
    await started.done;
    opts.onProcessEnd?.(!started.groupAlive());
    await batcher.flush();
    throw err;
  }
}

/**
 * The task's environment: the spec's, and nothing of the runner's own (its
 * credentials and SVC_* configuration stay out) but PATH, HOME (the task
 * user's home with a task user), the locale and time zone when the spec sets
 * none, the task user's USER and LOGNAME, and the runner's two paths.
 */
function taskEnv(spec: RunnerSpec, outputsFile: string, artifactsDir: string, user: TaskUser | undefined): Record<string, string> {
  const env: Record<string, string> = { ...spec.env };
  if (env.PATH === undefined) env.PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
  if (env.HOME === undefined) env.HOME = user ? user.home : (process.env.HOME ?? os.homedir());
  for (const k of ['LANG', 'LC_ALL', 'TZ']) if (env[k] === undefined && process.env[k] !== undefined) env[k] = process.env[k]!;
  if (user) {
    env.USER ??= user.name;
    env.LOGNAME ??= user.name;
  }
  env.SVC_OUTPUTS = outputsFile;
  env.SVC_ARTIFACTS_DIR = artifactsDir;
  return env;
}

function endState(exit: ProcessExit, spec: RunnerSpec, lastStderr: string): Pick<Completion, 'state' | 'reason' | 'error' | 'exit_code'> {
  const signo = exit.signal ? os.constants.signals[exit.signal] : undefined;
  const exitCode = exit.code ?? (signo !== undefined ? 128 + signo : null);
  switch (exit.stopCause) {
    case 'timeout':
      return { state: 'TIMED_OUT', reason: 'timeout', error: `timed out after ${spec.timeout_seconds}s`, exit_code: exitCode };
    case 'cancel':
      return { state: 'CANCELLED', reason: 'cancelled', error: 'cancelled', exit_code: exitCode };
    case 'shutdown':
      return { state: 'FAILED', reason: 'instance_shutdown', error: 'the runner was stopped while the task ran', exit_code: exitCode };
    case null:
      break;
    default:
      assertNever(exit.stopCause);
  }
  if (exitCode === 0) return { state: 'SUCCESS', reason: '', error: '', exit_code: 0 };
  let error = exit.code !== null ? `exit code ${exit.code}` : `exit code ${exitCode ?? '?'} (killed by ${exit.signal})`;
  const quoted = lastStderr.trim();
  if (quoted) error += `: ${quoted.length > MAX_ERROR_LINE_CHARS ? quoted.slice(0, MAX_ERROR_LINE_CHARS) : quoted}`;
  return { state: 'FAILED', reason: 'exit_code', error, exit_code: exitCode };
}

function stoppedBeforeStart(cause: StopCause): Completion {
  const base = { exit_code: null, outputs: {}, metrics: [] };
  switch (cause) {
    case 'cancel':
      return { ...base, state: 'CANCELLED', reason: 'cancelled', error: 'cancelled before the task started' };
    case 'shutdown':
      return { ...base, state: 'FAILED', reason: 'instance_shutdown', error: 'the runner was stopped before the task started' };
    case 'timeout':
      return { ...base, state: 'TIMED_OUT', reason: 'timeout', error: 'timed out before the task started' };
    default:
      return assertNever(cause);
  }
}

function prepareFailure(err: unknown): Completion {
  const base = { state: 'FAILED' as const, exit_code: null, outputs: {}, metrics: [] };
  if (err instanceof PrepareError) return { ...base, reason: err.reason, error: err.message };
  if (err instanceof UnsafePathError || err instanceof BundleTooLargeError || err instanceof BundleHashMismatchError)
    return { ...base, reason: 'executor_error', error: `bundle: ${err.message}` };
  return { ...base, reason: 'executor_error', error: `runner error: ${errorMessage(err)}` };
}

/**
 * Removes a run directory: one readdir per directory, then unlink and rmdir,
 * where fs.rmSync first tries rmdir on each directory and fails. Falls back to
 * fs.rmSync on any surprise (a file the task made read-only, a race).
 */
function removeTree(dir: string): void {
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else fs.unlinkSync(p);
    }
    fs.rmdirSync(d);
  };
  try {
    walk(dir);
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function makeRunDir(workRoot: string, taskRunId: string): string {
  fs.mkdirSync(workRoot, { recursive: true });
  const safeId = taskRunId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100) || 'run';
  // realpath: confinement checks compare physical paths, and workRoot may sit behind a link (/tmp on some systems).
  return fs.realpathSync.native(fs.mkdtempSync(path.join(workRoot, `${safeId}-`)));
}

/** The fields runTask relies on, checked so that a malformed spec is an executor_error and not a crash. */
function checkSpec(spec: RunnerSpec): RunnerSpec {
  const problems: string[] = [];
  const isStr = (v: unknown) => typeof v === 'string';
  if (!spec || typeof spec !== 'object') throw new PrepareError('executor_error', 'invalid runner spec: not an object');
  if (!isStr(spec.task_run_id) || !spec.task_run_id) problems.push('task_run_id');
  if (!isStr(spec.workdir)) problems.push('workdir');
  if (!Array.isArray(spec.command) || !spec.command.every(isStr)) problems.push('command');
  if (!spec.env || typeof spec.env !== 'object' || !Object.values(spec.env).every(isStr)) problems.push('env');
  if (spec.files !== undefined && (!spec.files || typeof spec.files !== 'object' || !Object.values(spec.files).every(isStr))) problems.push('files');
  if (spec.runtime !== undefined && spec.runtime !== null && !isStr(spec.runtime)) problems.push('runtime');
  if (!spec.limits || typeof spec.limits.max_artifact_bytes !== 'number' || typeof spec.limits.max_bundle_bytes !== 'number') problems.push('limits');
  if (!Array.isArray(spec.mask_values) || !spec.mask_values.every(isStr)) problems.push('mask_values');
  if (typeof spec.timeout_seconds !== 'number') problems.push('timeout_seconds');
  if (problems.length) throw new PrepareError('executor_error', `invalid runner spec: bad ${problems.join(', ')}`);
  return spec;
}
