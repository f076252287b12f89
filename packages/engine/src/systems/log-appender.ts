// Log lines a runner sends while a task runs, stored idempotently by
// sequence number (a retried batch is stored once), the batches of one
// execution that arrive together committed by one statement
// (sql/append-log-lines.ts).
import type pg from 'pg';
import { appendLogLines } from '../sql/append-log-lines.js';
import { logIdentity } from '../sql/runner-io.js';
import type { AppendBatch, IncomingLogLine, TaskRunIdentity } from '../types.js';

export { appendStatement } from '../sql/append-log-lines.js';
export { LOG_CHANNEL } from '../channels.js';
export type { AppendBatch, IncomingLogLine, TaskRunIdentity } from '../types.js';

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
    let total = q.waiting[0].lines.length;
    let take = 1;
    while (take < q.waiting.length && total + q.waiting[take].lines.length <= this.maxLines) total += q.waiting[take++].lines.length;
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
      group.forEach((b, i) => b.resolve(stored[i]));
    } catch (err) {
      if (group.length === 1) group[0].reject(err);
      else
        for (const b of group)
          await this.store(executionId, [b]).then(
            ([n]) => b.resolve(n),
            (e: unknown) => b.reject(e),
          );
    }
  }

  private async identity(taskRunId: string): Promise<TaskRunIdentity | undefined> {
    const known = this.identities.get(taskRunId);
    if (known) return known;
    const tr = await logIdentity(this.pool, { taskRunId });
    if (tr) remember(this.identities, taskRunId, tr, this.cacheSize);
    return tr;
  }

  /** One statement for batches of one execution, `plain` when the hints allow it (see the class comment). */
  private async store(executionId: string, batches: PendingBatch[]): Promise<number[]> {
    const plain = plainIsSafe(batches, this.highest);
    let stored: number[];
    try {
      stored = await appendLogLines(this.pool, { executionId, batches, mode: plain ? 'plain' : 'safe' });
    } catch (err) {
      if (!plain || (err as { code?: string }).code !== '23505') throw err;
      stored = await appendLogLines(this.pool, { executionId, batches, mode: 'safe' });
    }
    for (const b of batches) remember(this.highest, b.taskRunId, Math.max(this.highest.get(b.taskRunId) ?? 0, b.lines.at(-1)!.n), this.cacheSize);
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
    if (floor === undefined || b.lines[0].n <= floor) return false;
    for (let i = 1; i < b.lines.length; i++) if (b.lines[i].n === b.lines[i - 1].n) return false;
    above.set(b.taskRunId, b.lines.at(-1)!.n);
  }
  return true;
}

function inOrder(lines: IncomingLogLine[]): IncomingLogLine[] {
  for (let i = 1; i < lines.length; i++) if (lines[i].n < lines[i - 1].n) return [...lines].sort((a, b) => a.n - b.n);
  return lines;
}
