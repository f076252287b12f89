// The loop behind streamExecutionLogs.
//
// Each round reads the lines after the stream's read position (and the
// execution's state, in the same snapshot), sends them, and then:
//   more waiting   a task run's read hit its limit: read again at once
//   caught up      wait for a notification of the execution or the poll timer
//   ended          the state read was an end state, no task run was still
//                  RUNNING (a flow timeout ends the execution first and
//                  stops its running tasks after, which may still print),
//                  and nothing was left after the position: send `end`
// Lines go out in the order they were stored (`seq`; each task run's lines in
// `n` order). The position only moves past a line once that line was handed
// to the socket, and every event's id is that line's `seq`, so a client that
// resumes from its last id gets the next line of every task run: no repeat,
// no gap, with an id of one number however many task runs there are. A
// stream keeps at most one read's lines in memory, and waits for the socket
// to drain before reading more. A read that keeps failing ends the stream
// (without `end`) after MAX_FAILED_READS tries, so the client reconnects
// rather than waiting on a stream that can no longer reach its end.
import { isExecutionEnded, isExecutionState } from '@svc/state-machine';
import type { LiveHub } from './hub.js';
import { Waker } from './hub.js';
import { rfc3339Formatter, toLogLine, type Position } from './lines.js';
import { sseEvent, type SseWriter } from './sse.js';
import { newLines } from '@svc/engine/read-models';

export interface LogStreamOptions {
  hub: LiveHub;
  sse: SseWriter;
  executionId: string;
  /** Only lines of this task key. */
  task?: string;
  /** Read position to start after (from Last-Event-ID); '0': from the first line. */
  start: Position;
  /** Backstop poll interval. */
  pollMs: number;
  /** Lines read per round; up to MAX_READ_GROWTH times more while the stream is behind (see runLogStream). */
  readLines: number;
  log: { warn(msg: string, meta?: Record<string, unknown>): unknown };
}

/** Bytes of events handed to the socket in one write. */
const CHUNK_BYTES = 16 * 1024;
/**
 * How many times `readLines` a round may read while the stream is behind: at
 * 100,000 lines a second, 250-line reads are 400
 * queries a second, whose planning and round trips cost more than the lines
 * (bench/RESULTS.md, logs).
 */
export const MAX_READ_GROWTH = 16;
/** Reads that fail in a row before the stream gives up (about a minute at the default poll). */
export const MAX_FAILED_READS = 60;

interface Round {
  /** Undefined when the execution no longer exists. */
  state: string | undefined;
  /** A task run of the stream is still RUNNING. */
  running: boolean;
  chunks: string[];
  position: Position;
  /** Every line waiting at read time was read. */
  complete: boolean;
}

export const isEnded = (state: string): boolean => isExecutionState(state) && isExecutionEnded(state);

async function readRound(o: LogStreamOptions, after: Position, limit: number): Promise<Round> {
  const read = await newLines(o.hub.pool, { executionId: o.executionId, after, task: o.task, limit });
  const fmt = rfc3339Formatter();
  const chunks: string[] = [];
  let chunk = '';
  for (const row of read.rows) {
    chunk += sseEvent('line', JSON.stringify(toLogLine(row, fmt)), row.seq);
    if (chunk.length >= CHUNK_BYTES) {
      chunks.push(chunk);
      chunk = '';
    }
  }
  if (chunk) chunks.push(chunk);
  return { state: read.state, running: read.running, chunks, position: read.rows.at(-1)?.seq ?? after, complete: !read.full };
}

export async function runLogStream(o: LogStreamOptions): Promise<void> {
  const waker = new Waker();
  const unsubscribe = [o.hub.subscribe('logs', o.executionId, waker.wake), o.hub.subscribe('changed', o.executionId, waker.wake)];
  o.sse.signal.addEventListener('abort', () => unsubscribe.forEach((u) => u()), { once: true });
  let position = o.start;
  let failed = 0;
  // Lines the next round reads: readLines, doubled after each full round (the stream is behind) within
  // MAX_READ_GROWTH and the stream's share of the hub's read budget, so what all streams hold at once stays
  // bounded (200 streams read readLines each, as before); back to readLines once caught up.
  let limit = o.readLines;
  try {
    while (!o.sse.closed) {
      let round: Round;
      try {
        // Streams at the same position after the same notification share one read and its rendering.
        const key = `logs\0${o.executionId}\0${o.task ?? ''}\0${o.hub.generation(o.executionId)}\0${position}\0${limit}`;
        const lines = limit;
        round = await o.hub.shared(key, () => readRound(o, position, lines));
        failed = 0;
      } catch (err) {
        if (++failed >= MAX_FAILED_READS) {
          o.log.warn('log stream reads keep failing; the stream ends for the client to reconnect', { err, execution_id: o.executionId });
          return;
        }
        o.log.warn('log stream read failed; retrying', { err, execution_id: o.executionId });
        await waker.wait(o.pollMs, o.sse.signal);
        continue;
      }
      for (const chunk of round.chunks) if (!(await o.sse.write(chunk))) return;
      position = round.position;
      if (!round.complete) {
        limit = Math.max(o.readLines, Math.min(limit * 2, o.readLines * MAX_READ_GROWTH, o.hub.readShare()));
        continue;
      }
      limit = o.readLines;
      if (round.state === undefined || (isEnded(round.state) && !round.running)) {
        await o.sse.write(sseEvent('end', '{}'));
        return;
      }
      await waker.wait(o.pollMs, o.sse.signal);
    }
  } finally {
    unsubscribe.forEach((u) => u());
    o.sse.end();
  }
}
