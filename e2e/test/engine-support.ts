// Small helpers shared by the engine end-to-end tests (engine-*.test.ts):
// flow files written as JSON (a JSON document is valid YAML, so no quoting
// traps inside shell commands), task runs picked out of an execution, process
// liveness, the shape of the spec's Execution and TaskRun objects.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { registerInstance } from '@svc/db';
import { claimTaskRuns, loadRunTokenKey, signRunToken } from '@svc/engine/internal';

/**
 * Plays a process dispatcher `id` on `pools`: registers it online (else the watchdog, SVC_WATCHDOG_MS, may end its runs
 * as lost on a loaded machine), claims up to `limit` queued runs, and GETs a file over the runner protocol with a run's
 * own run token (runnerGetFile).
 */
export async function claimAsDispatcher(db: pg.Pool, url: string, o: { id: string; pools: string[]; limit: number }) {
  await registerInstance(db, { id: o.id, kind: 'dispatcher', hostname: 'e2e', version: 'test', pools: o.pools, executors: ['process'] });
  const claimed = await claimTaskRuns(db, { instanceId: o.id, pools: o.pools, executorType: 'process', limit: o.limit, now: new Date() });
  const key = await loadRunTokenKey(db);
  const getFile = (taskRunId: string, artifactId: string) =>
    fetch(`${url}/api/runner/v1/task-runs/${taskRunId}/files/${artifactId}`, {
      headers: { authorization: `Bearer ${signRunToken(key, taskRunId, new Date(Date.now() + 3_600_000))}` },
    });
  return { claimed, getFile };
}

/** A flow file's text from a flow definition object. */
export const flow = (def: Record<string, unknown>): string => JSON.stringify(def, null, 1);

/** argv of a shell script (command tasks run without a shell). */
export const sh = (script: string): string[] => ['sh', '-c', script];

/** A shell statement appending `{"outputs": obj}` to the task's outputs file. */
export const emit = (obj: Record<string, unknown>): string => `printf '%s\\n' '${JSON.stringify({ outputs: obj })}' >> "$SVC_OUTPUTS"`;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 30_000, every = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(every);
  }
}

const made: string[] = [];
/**
 * A fresh temporary directory (for pid files and markers the tasks write),
 * removed when the test process exits. Writable by everyone: as root, the
 * dispatcher runs tasks as SVC_TASK_USER.
 */
export function tmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-engine-'));
  fs.chmodSync(dir, 0o1777);
  if (!made.length) process.once('exit', () => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  made.push(dir);
  return dir;
}

/** Whether a process exists and is not a zombie (a killed orphan may wait unreaped under a container's PID 1). */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Reads a pid a task wrote into a file, waiting for the file. */
export async function pidFrom(file: string): Promise<number> {
  return until(`pid file ${file}`, () => {
    try {
      const n = Number(fs.readFileSync(file, 'utf8').trim());
      return Number.isInteger(n) && n > 0 ? n : undefined;
    } catch {
      return undefined;
    }
  });
}

/** All attempts of one task, attempt 1 first. */
export const runsOf = (ex: any, key: string): any[] => ex.task_runs.filter((r: any) => r.task_key === key).sort((a: any, b: any) => a.attempt - b.attempt);

/** The latest attempt of one task. */
export function run(ex: any, key: string): any {
  const all = runsOf(ex, key);
  assert.ok(all.length, `no task run of ${key} in ${JSON.stringify(ex.task_runs)}`);
  return all[all.length - 1];
}

export const ms = (iso: string): number => new Date(iso).getTime();

/** The largest number of [start, end] intervals that overlap at one instant. */
export function maxOverlap(intervals: [number, number][]): number {
  const events = intervals.flatMap(([s, e]) => [
    [s, 1],
    [e, -1],
  ]);
  // Ends before starts at the same instant: a run that ended frees its place for one starting then.
  events.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let cur = 0;
  let max = 0;
  for (const [, d] of events) max = Math.max(max, (cur += d!));
  return max;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function isDateTime(v: unknown): boolean {
  return typeof v === 'string' && ISO.test(v) && !Number.isNaN(Date.parse(v));
}

function check(obj: any, field: string, ok: (v: unknown) => boolean, what: string) {
  assert.ok(Object.hasOwn(obj, field), `field ${field} is missing`);
  assert.ok(ok(obj[field]), `field ${field} should be ${what}, got ${JSON.stringify(obj[field])}`);
}

const str = (v: unknown) => typeof v === 'string';
const strOrNull = (v: unknown) => v === null || typeof v === 'string';
const int = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
const intOrNull = (v: unknown) => v === null || int(v);
const dt = isDateTime;
const dtOrNull = (v: unknown) => v === null || isDateTime(v);
const obj = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const objOrNull = (v: unknown) => v === null || obj(v);
const strMap = (v: unknown) => obj(v) && Object.values(v as object).every(str);

const EXECUTION_STATES = ['QUEUED', 'RUNNING', 'CANCELLING', 'SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'];
const TASK_RUN_STATES = ['PENDING', 'QUEUED', 'RUNNING', 'SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'];

/** Asserts every required field of the spec's Task run object, with its type. */
export function assertTaskRunShape(r: any): void {
  for (const f of ['id', 'task_key', 'task_type', 'executor_type', 'pool', 'state', 'reason', 'error']) check(r, f, str, 'a string');
  assert.ok(TASK_RUN_STATES.includes(r.state), `task run state ${r.state}`);
  check(r, 'attempt', int, 'an integer');
  for (const f of ['child_execution_id', 'reused_from_id']) check(r, f, strOrNull, 'a string or null');
  for (const f of ['exit_code', 'duration_ms']) check(r, f, intOrNull, 'an integer or null');
  for (const f of ['queued_at', 'started_at', 'ended_at']) check(r, f, dtOrNull, 'a date-time or null');
  check(r, 'outputs', objOrNull, 'an object or null');
}

/** Asserts every required field of the spec's Execution object, with its type (and git_sha's type when present). */
export function assertExecutionShape(e: any): void {
  for (const f of ['id', 'state', 'reason', 'error', 'namespace', 'snapshot_id', 'created_by', 'trigger_type']) check(e, f, str, 'a string');
  assert.ok(EXECUTION_STATES.includes(e.state), `execution state ${e.state}`);
  for (const f of ['flow_id', 'flow_revision_id', 'parent_execution_id', 'restart_of_id']) check(e, f, strOrNull, 'a string or null');
  if (Object.hasOwn(e, 'git_sha')) check(e, 'git_sha', str, 'a string');
  check(e, 'snapshot_version', intOrNull, 'an integer or null');
  check(e, 'inputs', obj, 'an object');
  check(e, 'labels', strMap, 'an object of strings');
  check(e, 'outputs', objOrNull, 'an object or null');
  check(e, 'chain_depth', int, 'an integer');
  check(e, 'children', Array.isArray, 'an array');
  for (const c of e.children) {
    check(c, 'id', str, 'a string');
    check(c, 'state', str, 'a string');
    check(c, 'created_at', dt, 'a date-time');
  }
  check(e, 'created_at', dt, 'a date-time');
  for (const f of ['started_at', 'ended_at']) check(e, f, dtOrNull, 'a date-time or null');
  check(e, 'duration_ms', intOrNull, 'an integer or null');
  check(e, 'secret_keys_used', (v) => Array.isArray(v) && v.every(str), 'an array of strings');
  check(e, 'trigger_payload', obj, 'an object');
  check(e, 'task_runs', Array.isArray, 'an array');
  e.task_runs.forEach(assertTaskRunShape);
}

/** Audit events of one action on one execution. */
export async function auditOf(api: (m: string, p: string) => Promise<{ status: number; body: any }>, action: string, executionId: string): Promise<any[]> {
  const r = await api('GET', `/api/v1/audit?action=${encodeURIComponent(action)}&limit=200`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.items.filter((i: any) => i.target === `execution:${executionId}` || JSON.stringify(i).includes(executionId));
}
