// What runners send while a task runs: log lines (idempotent by sequence
// number, so a retried batch is stored once), artifacts, heartbeats (whose
// answer tells the runner to stop when its execution is being cancelled or
// has ended).
import crypto from 'node:crypto';
import type pg from 'pg';
import { newId } from '@svc/db';
import type { MasterKey } from '@svc/config';
import { CHANNELS } from './db.js';
import { recordedValues, SecretMasker, type RecordedSecrets } from './secret-masking.js';

export interface IncomingLogLine {
  n: number;
  ts: string;
  stream: string;
  text: string;
}

export const LOG_CHANNEL = 'svc_log_lines';

export interface TaskRunIdentity {
  execution_id: string;
  task_key: string;
  attempt: number;
}

/** Options of a LogAppender. */
export interface LogAppenderOptions {
  /** Lines one statement stores at most (batches are never split; a larger batch goes alone). Default 20000. */
  maxLinesPerStatement?: number;
  /** Task runs whose identity and highest stored line number are remembered. Default 4096. */
  taskRunCacheSize?: number;
}

interface PendingBatch extends AppendBatch {
  resolve(stored: number): void;
  reject(err: unknown): void;
}

/** Batches of one execution waiting for its next statement; `inFlight` while one runs. */
interface ExecutionQueue {
  inFlight: boolean;
  waiting: PendingBatch[];
}

/**
 * Stores log lines, committing the batches of one execution that arrive
 * together in one statement (group commit in the application).
 *
 * An execution's batches are serialized anyway: each takes its `seq` numbers
 * from the execution's `log_sequences` row and holds that row's lock until it
 * commits (so an execution's lines commit in `seq` order and a live stream
 * that sees a line sees every line numbered below it). With one statement per
 * batch, several runners of one execution queued on that lock, each waiting in
 * turn for its own flush. Here one statement per execution is in flight from
 * this process; the batches that arrive meanwhile wait in memory and go
 * together in the next statement, and each caller is answered after the
 * commit that holds its lines. Nothing is acknowledged before it is durable.
 *
 * A statement stores each batch's lines in `n` order, batches in arrival
 * order. Modes of a statement (appendStatement):
 *   plain  every line is taken for new: a plain INSERT. Chosen when each
 *          batch's numbers are above the highest this process stored for its
 *          task run and distinct within the statement.
 *   safe   a line already stored under its (task run, n) is skipped (ON
 *          CONFLICT DO NOTHING), so a retried batch is stored once. Chosen for
 *          a task run this process has not stored lines of yet, a batch at or
 *          below that number (a retry), and after a plain statement failed on
 *          the unique key (the lines were stored through another gateway).
 * When a statement of several batches fails otherwise, each batch is tried
 * again alone, so one bad batch fails only its own caller.
 */
export class LogAppender {
  private readonly queues = new Map<string, ExecutionQueue>();
  private readonly identities = new Map<string, TaskRunIdentity>();
  /** Highest `n` committed by this process per task run: a hint for choosing `plain`; the unique key decides. */
  private readonly highest = new Map<string, number>();
  private readonly maxLines: number;
  private readonly cacheSize: number;

  constructor(
    private readonly pool: pg.Pool,
    opts: LogAppenderOptions = {},
  ) {
    this.maxLines = opts.maxLinesPerStatement ?? 20_000;
    this.cacheSize = opts.taskRunCacheSize ?? 4096;
  }

  /** Stores a batch; resolves with the lines newly stored once they are committed. 0 for an unknown task run. */
  async append(taskRunId: string, lines: IncomingLogLine[], who?: TaskRunIdentity): Promise<number> {
    if (!lines.length) return 0;
    const tr = who ?? (await this.identity(taskRunId));
    if (!tr) return 0;
    return new Promise<number>((resolve, reject) => {
      let q = this.queues.get(tr.execution_id);
      if (!q) this.queues.set(tr.execution_id, (q = { inFlight: false, waiting: [] }));
      q.waiting.push({ taskRunId, who: tr, lines: inOrder(lines), resolve, reject });
      this.pump(tr.execution_id, q);
    });
  }

  /**
   * Starts the execution's next statement when none is in flight, with the
   * batches waiting (up to maxLinesPerStatement); forgets the queue when
   * nothing waits or runs. (A second statement beside the first, queued on
   * the sequence row, was tried: no faster, and more CPU per line;
   * bench/RESULTS.md, logs.)
   */
  private pump(executionId: string, q: ExecutionQueue): void {
    if (q.inFlight) return;
    if (!q.waiting.length) {
      this.queues.delete(executionId);
      return;
    }
    let total = q.waiting[0]!.lines.length;
    let take = 1;
    while (take < q.waiting.length && total + q.waiting[take]!.lines.length <= this.maxLines) total += q.waiting[take++]!.lines.length;
    const group = q.waiting.splice(0, take);
    q.inFlight = true;
    void this.commit(executionId, group).finally(() => {
      q.inFlight = false;
      this.pump(executionId, q);
    });
  }

  /** Stores a group and answers its callers; a failed group is tried batch by batch. */
  private async commit(executionId: string, group: PendingBatch[]): Promise<void> {
    try {
      const stored = await this.store(executionId, group);
      group.forEach((b, i) => b.resolve(stored[i]!));
    } catch (err) {
      if (group.length === 1) group[0]!.reject(err);
      else for (const b of group) await this.store(executionId, [b]).then(([n]) => b.resolve(n!), (e: unknown) => b.reject(e));
    }
  }

  private async identity(taskRunId: string): Promise<TaskRunIdentity | undefined> {
    const known = this.identities.get(taskRunId);
    if (known) return known;
    const tr = (await this.pool.query<TaskRunIdentity>(`SELECT execution_id, task_key, attempt FROM task_runs WHERE id = $1`, [taskRunId])).rows[0];
    if (tr) remember(this.identities, taskRunId, tr, this.cacheSize);
    return tr;
  }

  /** One statement for batches of one execution, `plain` when the hints allow it (see the class comment). */
  private async store(executionId: string, batches: PendingBatch[]): Promise<number[]> {
    const plain = plainIsSafe(batches, this.highest);
    let stored: number[];
    try {
      stored = plain ? await this.run(appendStatement(executionId, batches, 'plain'), batches, 'plain') : await this.run(appendStatement(executionId, batches, 'safe'), batches, 'safe');
    } catch (err) {
      if (!plain || (err as { code?: string }).code !== '23505') throw err;
      stored = await this.run(appendStatement(executionId, batches, 'safe'), batches, 'safe');
    }
    for (const b of batches) remember(this.highest, b.taskRunId, Math.max(this.highest.get(b.taskRunId) ?? 0, b.lines.at(-1)!.n), this.cacheSize);
    return stored;
  }

  private async run(st: { text: string; values: unknown[] }, batches: readonly AppendBatch[], mode: 'plain' | 'safe'): Promise<number[]> {
    const r = await this.pool.query<{ stored: [number, number][] | string | null }>(st.text, st.values);
    if (mode === 'plain') return batches.map((b) => b.lines.length);
    const stored = batches.map(() => 0);
    for (const [b, n] of (r.rows[0]?.stored as [number, number][] | null) ?? []) stored[b - 1] = n;
    return stored;
  }
}

/** Sets `key` in a map bounded to `size` entries, dropping the oldest (a Map iterates in insertion order). */
function remember<V>(m: Map<string, V>, key: string, value: V, size: number): void {
  m.delete(key);
  if (m.size >= size) m.delete(m.keys().next().value!);
  m.set(key, value);
}

/**
 * Whether `batches` (each in `n` order) may go as a plain INSERT: each
 * batch's numbers distinct and above the highest `n` this process committed
 * for its task run, and above those of the run's earlier batches here.
 */
export function plainIsSafe(batches: readonly AppendBatch[], highest: ReadonlyMap<string, number>): boolean {
  const above = new Map<string, number>();
  for (const b of batches) {
    const floor = above.get(b.taskRunId) ?? highest.get(b.taskRunId);
    if (floor === undefined || b.lines[0]!.n <= floor) return false;
    for (let i = 1; i < b.lines.length; i++) if (b.lines[i]!.n === b.lines[i - 1]!.n) return false;
    above.set(b.taskRunId, b.lines.at(-1)!.n);
  }
  return true;
}

/** A PostgreSQL array literal of numbers (nothing to quote). */
const numberArray = (xs: readonly number[]) => `{${xs.join(',')}}`;

/** A PostgreSQL array literal of text: each element quoted, `"` and `\` escaped (pg's own escaping runs two regexps per element). */
function textArray(xs: readonly string[]): string {
  let out = '{';
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    if (i) out += ',';
    out += x.includes('"') || x.includes('\\') ? `"${x.replace(/[\\"]/g, '\\$&')}"` : `"${x}"`;
  }
  return out + '}';
}

/** A batch of one task run's lines, in `n` order. */
export interface AppendBatch {
  taskRunId: string;
  who: Pick<TaskRunIdentity, 'task_key' | 'attempt'>;
  lines: IncomingLogLine[];
}

/**
 * The statement that stores `batches` (all of one execution; each in `n`
 * order): the lines' `seq` numbers from the execution's `log_sequences` row
 * (taken first, so statements of one execution queue on it and commit in
 * `seq` order), the insert, each task run's `log_seq` (highest `n` stored),
 * and a NOTIFY for live streams. It returns per batch (1-based) the lines
 * newly stored: `safe` as `[batch, lines]` pairs, `plain` the total (all
 * of them, or the statement failed).
 *
 * Per line only what differs from line to line is sent; the task run of a
 * line is its batch's, found by `width_bucket` over the ordinals of the
 * batches' first lines. `plain` inserts without ON CONFLICT, whose
 * speculative insertion costs about a fifth of the statement (bench/RESULTS.md,
 * logs): it fails on the unique key if a line was stored already.
 */
export function appendStatement(executionId: string, batches: readonly AppendBatch[], mode: 'plain' | 'safe'): { text: string; values: unknown[] } {
  const ns: number[] = [];
  const tss: string[] = [];
  const streams: string[] = [];
  const texts: string[] = [];
  const starts: number[] = [];
  const highest = new Map<string, number>();
  for (const b of batches) {
    starts.push(ns.length + 1);
    for (const l of b.lines) {
      ns.push(l.n);
      tss.push(l.ts);
      streams.push(l.stream);
      texts.push(l.text);
    }
    highest.set(b.taskRunId, Math.max(highest.get(b.taskRunId) ?? 0, b.lines.at(-1)!.n));
  }
  // Task runs in one order in every statement.
  const runs = [...highest.keys()].sort();
  const values = [
    executionId,
    ns.length,
    textArray(batches.map((b) => b.taskRunId)),
    textArray(batches.map((b) => b.who.task_key)),
    numberArray(batches.map((b) => b.who.attempt)),
    numberArray(ns),
    textArray(tss),
    textArray(streams),
    textArray(texts),
    numberArray(starts),
    textArray(runs),
    numberArray(runs.map((id) => highest.get(id)!)),
    LOG_CHANNEL,
  ];
  // plain: every line is inserted or the statement fails, so the counts are the batches' sizes (no RETURNING to aggregate).
  const counted =
    mode === 'safe'
      ? `ON CONFLICT (task_run_id, n) DO NOTHING RETURNING seq),
       counted AS (SELECT width_bucket((ins.seq - c.base)::int, $10::int[]) AS b, count(*)::int AS n FROM ins, c GROUP BY 1),`
      : `RETURNING 1),`;
  const stored = mode === 'safe' ? `(SELECT json_agg(json_build_array(b, n)) FROM counted)` : `(SELECT count(*) FROM ins)`;
  const text = `WITH c AS (
         INSERT INTO log_sequences AS q (execution_id, seq) VALUES ($1, $2)
         ON CONFLICT (execution_id) DO UPDATE SET seq = q.seq + $2 RETURNING q.seq - $2 AS base),
       ins AS (
         INSERT INTO log_lines (task_run_id, n, execution_id, task_key, attempt, ts, stream, text, seq)
         SELECT ($3::text[])[l.b], l.n, $1, ($4::text[])[l.b], ($5::int[])[l.b], l.ts, l.s, l.t, c.base + l.o
         FROM c, (SELECT width_bucket(o::int, $10::int[]) AS b, * FROM unnest($6::int[], $7::bigint[], $8::text[], $9::text[]) WITH ORDINALITY AS u(n, ts, s, t, o)) l
         ${counted}
       seq AS (
         UPDATE task_runs t SET log_seq = GREATEST(t.log_seq, m.n)
         FROM unnest($11::text[], $12::int[]) AS m(id, n) WHERE t.id = m.id RETURNING 1)
       SELECT ${stored} AS stored, (SELECT count(*) FROM seq) AS s, pg_notify($13, $1)`;
  return { text, values };
}

/** The lines in `n` order (a copy only when they were not). */
function inOrder(lines: IncomingLogLine[]): IncomingLogLine[] {
  for (let i = 1; i < lines.length; i++) if (lines[i]!.n < lines[i - 1]!.n) return [...lines].sort((a, b) => a.n - b.n);
  return lines;
}

/** One LogAppender per pool (the Engine holds one pool): batches of one process share their execution's statements. */
const appenders = new WeakMap<pg.Pool, LogAppender>();

/**
 * Stores a batch of log lines (see LogAppender): resolves once they are
 * committed, with the lines newly stored (a line already stored under its
 * `n` is skipped, so a retried batch is stored once).
 */
export function appendLogs(pool: pg.Pool, taskRunId: string, lines: IncomingLogLine[], who?: TaskRunIdentity): Promise<number> {
  let a = appenders.get(pool);
  if (!a) appenders.set(pool, (a = new LogAppender(pool)));
  return a.append(taskRunId, lines, who);
}

/**
 * Object key of an artifact. Artifact names are the task's relative paths and
 * may hold any character; object keys may not, so the key uses a hash of the
 * name (the name itself is kept in the row).
 */
export const artifactKey = (executionId: string, taskRunId: string, name: string) =>
  `artifacts/${executionId}/${taskRunId}/${crypto.createHash('sha256').update(name).digest('hex').slice(0, 40)}`;

/**
 * Stores one artifact (streamed to the object store) and its row. Idempotent
 * per (task run, name): the object key derives from both, and a repeated
 * upload (a retry after a failure the uploader could not see succeed)
 * replaces the object and updates the one row, keeping its id.
 */
export async function storeArtifact(
  pool: pg.Pool,
  storage: { put(key: string, body: NodeJS.ReadableStream | Buffer, opts?: { contentType?: string; size?: number }): Promise<{ size: number }> },
  taskRunId: string,
  name: string,
  body: Buffer,
  contentType = 'application/octet-stream',
): Promise<{ id: string; size: number }> {
  const tr = (await pool.query<{ execution_id: string }>(`SELECT execution_id FROM task_runs WHERE id = $1`, [taskRunId])).rows[0];
  if (!tr) throw new Error(`no task run ${taskRunId}`);
  const key = artifactKey(tr.execution_id, taskRunId, name);
  await storage.put(key, body, { contentType, size: body.length });
  const r = await pool.query<{ id: string }>(
    `INSERT INTO artifacts (id, execution_id, task_run_id, name, object_key, size, content_type, sha256, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
     ON CONFLICT (task_run_id, name) DO UPDATE
       SET object_key = EXCLUDED.object_key, size = EXCLUDED.size, content_type = EXCLUDED.content_type, sha256 = EXCLUDED.sha256
     RETURNING id`,
    [newId(), tr.execution_id, taskRunId, name, key, body.length, contentType, crypto.createHash('sha256').update(body).digest('hex')],
  );
  return { id: r.rows[0]!.id, size: body.length };
}

/**
 * Records a runner heartbeat; `cancel` is true when the task run should stop.
 * @param now a test's clock; default the database's (the watchdog judges the heartbeat against it).
 */
export async function heartbeatTaskRun(pool: pg.Pool, taskRunId: string, now?: Date): Promise<{ cancel: boolean; known: boolean }> {
  const r = await pool.query<{ state: string; ex_state: string }>(
    `UPDATE task_runs t SET last_heartbeat_at = COALESCE($2::timestamptz, now()) FROM executions e WHERE t.id = $1 AND e.id = t.execution_id RETURNING t.state, e.state AS ex_state`,
    [taskRunId, now ?? null],
  );
  const row = r.rows[0];
  if (!row) return { cancel: true, known: false };
  return { cancel: row.state !== 'RUNNING' || !['RUNNING'].includes(row.ex_state), known: true };
}

/** A runner event (runnerPostEvents): what the runner is doing, shown on the task run. */
export interface RunnerEvent {
  type: 'started' | 'progress' | 'heartbeat';
  message?: string;
  /** 0 to 100. */
  percent?: number;
}

/**
 * Records a runner event: a heartbeat counts as one; `started` and `progress`
 * become the task run's `progress` and wake the execution's event streams.
 * Returns false when the run is not RUNNING (the event is dropped).
 */
export async function recordRunnerEvent(pool: pg.Pool, taskRunId: string, e: RunnerEvent, masterKeys: readonly MasterKey[]): Promise<boolean> {
  if (e.type === 'heartbeat') return (await heartbeatTaskRun(pool, taskRunId)).known;
  let message = e.message?.slice(0, 1000);
  if (message) {
    // The message comes from the task's side: masked against the secrets its run resolved, as its completion is.
    const rec = (await pool.query<{ secrets: RecordedSecrets | null }>(`SELECT spec->'secrets' AS secrets FROM task_runs WHERE id = $1`, [taskRunId])).rows[0]?.secrets;
    if (rec) {
      const values = await recordedValues(pool, taskRunId, rec, masterKeys);
      message = values ? new SecretMasker(values).text(message) : '(withheld: the secrets of this run cannot be read to mask it)';
    }
  }
  const progress = { type: e.type, ...(message !== undefined ? { message } : {}), ...(e.percent !== undefined ? { percent: e.percent } : {}) };
  const r = await pool.query<{ execution_id: string }>(
    `WITH u AS (UPDATE task_runs SET progress = $2::jsonb || jsonb_build_object('at', now()), last_heartbeat_at = now()
                WHERE id = $1 AND state = 'RUNNING' RETURNING execution_id)
     SELECT execution_id, pg_notify($3, execution_id) FROM u`,
    [taskRunId, JSON.stringify(progress), CHANNELS.changed],
  );
  return r.rowCount === 1;
}

export { CHANNELS };
