// Pure pieces of log delivery: the Log line object of the spec, its
// nanosecond timestamp, the read position of a log stream (the last `n` sent
// of each task run) and the merge that orders lines of several task runs.
// No I/O here; the SQL and the streams build on it.

/** A stored log line as the queries return it (`ts` is int8 as text, nanoseconds since the epoch). */
export interface LogRow {
  task_run_id: string;
  n: number;
  task_key: string;
  attempt: number;
  ts: string;
  stream: string;
  text: string;
}

/** The spec's Log line object. */
export interface LogLine {
  task_run_id: string;
  task_key: string;
  attempt: number;
  n: number;
  /** RFC 3339 UTC with nine fraction digits. */
  ts: string;
  stream: string;
  text: string;
}

const NS_PER_S = 1_000_000_000n;

/** Formats a nanosecond stamp; see `rfc3339Formatter`. */
export type TsFormatter = (ns: string | bigint) => string;

/**
 * A formatter of nanosecond stamps: `1767225600123456789` →
 * `2026-01-01T00:00:00.123456789Z`. The common case, a stamp after 2001-09-09
 * (ten digits of seconds), is string slicing with no BigInt, and the date part
 * is reused while consecutive lines share a second, so a page of 5,000 lines
 * formats in well under a millisecond. One formatter per page or stream.
 */
export function rfc3339Formatter(): TsFormatter {
  let lastSecond = '';
  let lastPrefix = '';
  return (ns) => {
    const text = typeof ns === 'bigint' ? ns.toString() : ns;
    if (text.length === 19 && /^\d+$/.test(text)) {
      const seconds = text.slice(0, 10);
      if (seconds !== lastSecond) {
        lastPrefix = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
        lastSecond = seconds;
      }
      return `${lastPrefix}.${text.slice(10)}Z`;
    }
    const v = BigInt(text);
    // Floor division, so a (theoretical) negative stamp still gets a fraction in [0, 1 s).
    let s = v / NS_PER_S;
    let frac = v % NS_PER_S;
    if (frac < 0n) {
      frac += NS_PER_S;
      s -= 1n;
    }
    const iso = new Date(Number(s) * 1000).toISOString(); // …T00:00:00.000Z
    return `${iso.slice(0, 19)}.${frac.toString().padStart(9, '0')}Z`;
  };
}

/** `1767225600123456789` → `2026-01-01T00:00:00.123456789Z`. */
export const nsToRfc3339: TsFormatter = (ns) => rfc3339Formatter()(ns);

export function toLogLine(r: LogRow, fmt: TsFormatter = nsToRfc3339): LogLine {
  return { task_run_id: r.task_run_id, task_key: r.task_key, attempt: r.attempt, n: r.n, ts: fmt(r.ts), stream: r.stream, text: r.text };
}

/** One line of the plain-text download: `<ts> [<task_key>#<attempt> <stream>] <text>\n`. */
export function downloadLine(r: LogRow, fmt: TsFormatter = nsToRfc3339): string {
  return `${fmt(r.ts)} [${r.task_key}#${r.attempt} ${r.stream}] ${r.text}\n`;
}

// ---- read positions ---------------------------------------------------------

/** Task run id → last `n` sent. Treated as immutable: every change makes a new map. */
export type Positions = ReadonlyMap<string, number>;

export class BadPositionError extends Error {
  constructor(readonly value: string) {
    super('is not a read position this server sent');
    this.name = 'BadPositionError';
  }
}

const TASK_RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Longest Last-Event-ID accepted (about 2,000 task runs with lines). */
const MAX_POSITION_LENGTH = 100_000;

/** `trid1:n1,trid2:n2` (ids sorted), base64url. */
export function encodePositions(p: Positions): string {
  return Buffer.from(joinPositions([...p.entries()].sort(byKey)), 'utf8').toString('base64url');
}

function joinPositions(sorted: [string, number][]): string {
  let s = '';
  for (const [id, n] of sorted) s += s ? `,${id}:${n}` : `${id}:${n}`;
  return s;
}

/** Inverse of `encodePositions`; anything else throws `BadPositionError`. */
export function decodePositions(value: string): Positions {
  if (value.length > MAX_POSITION_LENGTH || !/^[A-Za-z0-9_-]*$/.test(value)) throw new BadPositionError(value);
  const text = Buffer.from(value, 'base64url').toString('utf8');
  const out = new Map<string, number>();
  if (text === '') return out;
  for (const part of text.split(',')) {
    const i = part.lastIndexOf(':');
    const id = part.slice(0, i);
    const n = Number(part.slice(i + 1));
    if (i < 1 || !TASK_RUN_ID.test(id) || !Number.isSafeInteger(n) || n < 0 || out.has(id)) throw new BadPositionError(value);
    out.set(id, n);
  }
  return out;
}

const byKey = (a: [string, number], b: [string, number]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * Encodes the position after each of a sequence of lines, cheaply: the sorted
 * entries are kept and only the text of the changed one is rebuilt.
 */
export class PositionTracker {
  private readonly entries: [string, number][];
  private readonly index = new Map<string, number>();

  constructor(start: Positions) {
    this.entries = [...start.entries()].sort(byKey);
    this.entries.forEach(([id], i) => this.index.set(id, i));
  }

  /** Moves `taskRunId` to `n` and returns the encoded position. */
  advance(taskRunId: string, n: number): string {
    let i = this.index.get(taskRunId);
    if (i === undefined) {
      this.entries.push([taskRunId, n]);
      this.entries.sort(byKey);
      this.index.clear();
      this.entries.forEach(([id], j) => this.index.set(id, j));
      i = this.index.get(taskRunId)!;
    }
    this.entries[i]![1] = n;
    return Buffer.from(joinPositions(this.entries), 'utf8').toString('base64url');
  }

  positions(): Positions {
    return new Map(this.entries);
  }
}

// ---- merge ------------------------------------------------------------------

/** Lines of one task run after a position, ascending `n`; `full` when the read hit its limit (more may follow). */
export interface RunBatch {
  taskRunId: string;
  rows: LogRow[];
  full: boolean;
}

function compareKey(a: LogRow & { _ts: bigint }, b: LogRow & { _ts: bigint }): number {
  if (a._ts !== b._ts) return a._ts < b._ts ? -1 : 1;
  if (a.task_run_id !== b.task_run_id) return a.task_run_id < b.task_run_id ? -1 : 1;
  return a.n - b.n;
}

/**
 * Merges per-run batches into the order of an execution's log: (ts,
 * task_run_id, n), while each run keeps its own `n` order (n is authoritative
 * within a run, so a line is never sent before a lower-numbered one of its
 * run, whatever the clocks say). The merge stops as soon as a run whose read
 * was `full` runs dry: its next line is unknown and may sort before the heads
 * of the others. `complete` tells whether every fetched line was taken and no
 * run was full, i.e. nothing more was waiting at read time.
 */
export function mergeRuns(batches: RunBatch[]): { lines: LogRow[]; complete: boolean } {
  const queues = batches
    .filter((b) => b.rows.length > 0 || b.full)
    .map((b) => ({ full: b.full, i: 0, rows: b.rows.map((r) => Object.assign(r, { _ts: BigInt(r.ts) })) }));
  const out: LogRow[] = [];
  for (;;) {
    let best = -1;
    for (let q = 0; q < queues.length; q++) {
      const queue = queues[q]!;
      if (queue.i >= queue.rows.length) {
        if (queue.full) return { lines: out.map(strip), complete: false };
        continue;
      }
      if (best < 0 || compareKey(queue.rows[queue.i]!, queues[best]!.rows[queues[best]!.i]!) < 0) best = q;
    }
    if (best < 0) return { lines: out.map(strip), complete: true };
    const q = queues[best]!;
    out.push(q.rows[q.i++]!);
  }
}

function strip(r: LogRow & { _ts?: bigint }): LogRow {
  const { _ts, ...rest } = r;
  return rest;
}
