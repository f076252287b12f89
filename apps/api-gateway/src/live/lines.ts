// Pure pieces of log delivery: the Log line object of the spec, its
// nanosecond timestamp and the read position of a log stream (the `seq` of
// the last line sent). No I/O here; the SQL and the streams build on it.
import type { components } from '@svc/api-spec';
import type { LogRow } from '@svc/engine/read-models';
import { isInt8Text } from '@svc/http';

/** A stored log line as the engine's read model returns it (`ts` is int8 as text, nanoseconds since the epoch). */
export type { LogRow };

/** The spec's Log line object (`ts` RFC 3339 UTC with nine fraction digits), as generated from the document. */
export type LogLine = components['schemas']['LogLine'];

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

/**
 * The read position of a log stream: the `seq` of the last line sent ('0'
 * before the first), decimal text (int8). Every line's `seq` is its place in
 * the order its execution's lines were stored, so this one number tells the
 * position of every task run at once, however many there are.
 */
export type Position = string;

export class BadPositionError extends Error {
  constructor(readonly value: string) {
    super('is not a read position this server sent');
    this.name = 'BadPositionError';
  }
}

/** A Last-Event-ID this server sent (a line's `seq`); anything else throws `BadPositionError`. */
export function decodePosition(value: string): Position {
  if (!/^\d+$/.test(value) || !isInt8Text(value)) throw new BadPositionError(value);
  return BigInt(value).toString();
}
