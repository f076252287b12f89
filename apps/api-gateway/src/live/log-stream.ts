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
// The position only moves past a line once that line was handed to the
// socket, and every event carries the position after it, so a client that
// resumes from its last id gets the next line of every task run: no repeat,
// no gap. A stream keeps at most one read's lines in memory, and waits for
// the socket to drain before reading more.
import { isExecutionEnded, isExecutionState } from '@svc/state-machine';
import type { LiveHub } from './hub.js';
import { Waker } from './hub.js';
import { encodePositions, mergeRuns, PositionTracker, rfc3339Formatter, toLogLine, type Positions } from './lines.js';
import { sseEvent, type SseWriter } from './sse.js';
import { newLines } from './sql.js';

export interface LogStreamOptions {
  hub: LiveHub;
  sse: SseWriter;
  executionId: string;
  /** Only lines of this task key. */
  task?: string;
  /** Read position to start after (from Last-Event-ID); empty: from the first line. */
  start: Positions;
  /** Backstop poll interval. */
  pollMs: number;
  /** Lines read per task run per round. */
  perRun: number;
  log: { warn(msg: string, meta?: Record<string, unknown>): unknown };
}

/** Bytes of events handed to the socket in one write. */
const CHUNK_BYTES = 16 * 1024;

interface Round {
  /** Undefined when the execution no longer exists. */
  state: string | undefined;
  /** A task run of the stream is still RUNNING. */
  running: boolean;
  chunks: string[];
  positions: Positions;
  complete: boolean;
}

export const isEnded = (state: string): boolean => isExecutionState(state) && isExecutionEnded(state);

async function readRound(o: LogStreamOptions, positions: Positions): Promise<Round> {
  const read = await newLines(o.hub.pool, { executionId: o.executionId, positions, task: o.task, perRun: o.perRun });
  const merged = mergeRuns(read.runs);
  const tracker = new PositionTracker(positions);
  const fmt = rfc3339Formatter();
  const chunks: string[] = [];
  let chunk = '';
  for (const row of merged.lines) {
    chunk += sseEvent('line', JSON.stringify(toLogLine(row, fmt)), tracker.advance(row.task_run_id, row.n));
    if (chunk.length >= CHUNK_BYTES) {
      chunks.push(chunk);
      chunk = '';
    }
  }
  if (chunk) chunks.push(chunk);
  return { state: read.state, running: read.running, chunks, positions: merged.lines.length ? tracker.positions() : positions, complete: merged.complete };
}

export async function runLogStream(o: LogStreamOptions): Promise<void> {
  const waker = new Waker();
  const unsubscribe = [o.hub.subscribe('logs', o.executionId, waker.wake), o.hub.subscribe('changed', o.executionId, waker.wake)];
  o.sse.signal.addEventListener('abort', () => unsubscribe.forEach((u) => u()), { once: true });
  let positions = o.start;
  try {
    while (!o.sse.closed) {
      let round: Round;
      try {
        // Streams at the same position after the same notification share one read and its rendering.
        const key = `logs\0${o.executionId}\0${o.task ?? ''}\0${o.hub.generation(o.executionId)}\0${encodePositions(positions)}`;
        round = await o.hub.shared(key, () => readRound(o, positions));
      } catch (err) {
        o.log.warn('log stream read failed; retrying', { err, execution_id: o.executionId });
        await waker.wait(o.pollMs, o.sse.signal);
        continue;
      }
      for (const chunk of round.chunks) if (!(await o.sse.write(chunk))) return;
      positions = round.positions;
      if (!round.complete) continue;
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
