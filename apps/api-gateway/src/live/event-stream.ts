// The loop behind streamExecutionEvents: on every notification that the
// execution or one of its task runs changed (and on the poll timer), load the
// execution detail; when the hash of the states differs from the last one
// sent (or from Last-Event-ID), send it as an `execution` event whose id is
// that hash. After an end state with no task run still RUNNING (a flow
// timeout ends the execution before its running tasks stop): `end` and close.
import crypto from 'node:crypto';
import type { Engine } from '@svc/engine';
import type { LiveHub } from './hub.js';
import { Waker } from './hub.js';
import { isEnded } from './log-stream.js';
import { sseEvent, type SseWriter } from './sse.js';

export interface EventStreamOptions {
  hub: LiveHub;
  /** Reads the execution detail (through the hub's own pool). */
  engine: Engine;
  sse: SseWriter;
  executionId: string;
  /** Last-Event-ID: the hash of the states the client already has. */
  lastId?: string;
  pollMs: number;
  log: { warn(msg: string, meta?: Record<string, unknown>): unknown };
}

interface Snapshot {
  hash: string;
  /** Ended, and no task run is still RUNNING: nothing about it will change any more. */
  settled: boolean;
  event: string;
}

/**
 * A hash of the execution's state and pause, and the id, state, approval
 * status and latest runner event of each of its task runs (a wait for
 * approval and a pause change no state, but are changes a watcher must see).
 */
export function statesHash(detail: Record<string, unknown>): string {
  const runs = ((detail.task_runs ?? []) as { id: string; state: string; progress?: { at?: string } | null; approval?: { status?: string } | null }[])
    .map((r) => `${r.id}:${r.state}${r.approval?.status ? `:${r.approval.status}` : ''}${r.progress?.at ? `:${r.progress.at}` : ''}`)
    .sort();
  return crypto
    .createHash('sha256')
    .update(`${String(detail.state)}${detail.paused ? ':paused' : ''}|${runs.join(',')}`)
    .digest('base64url')
    .slice(0, 22);
}

async function snapshot(o: EventStreamOptions): Promise<Snapshot | undefined> {
  const [detail] = await o.engine.executions.load([o.executionId], o.hub.pool);
  if (!detail) return undefined;
  const hash = statesHash(detail);
  const running = ((detail.task_runs ?? []) as { state: string }[]).some((r) => r.state === 'RUNNING');
  return { hash, settled: isEnded(String(detail.state)) && !running, event: sseEvent('execution', JSON.stringify(detail), hash) };
}

export async function runEventStream(o: EventStreamOptions): Promise<void> {
  const waker = new Waker();
  const unsubscribe = o.hub.subscribe('changed', o.executionId, waker.wake);
  o.sse.signal.addEventListener('abort', unsubscribe, { once: true });
  let last = o.lastId;
  try {
    while (!o.sse.closed) {
      let snap: Snapshot | undefined;
      try {
        snap = await o.hub.shared(`events\0${o.executionId}\0${o.hub.generation(o.executionId)}`, () => snapshot(o));
      } catch (err) {
        o.log.warn('event stream read failed; retrying', { err, execution_id: o.executionId });
        await waker.wait(o.pollMs, o.sse.signal);
        continue;
      }
      if (snap && snap.hash !== last) {
        if (!(await o.sse.write(snap.event))) return;
        last = snap.hash;
      }
      if (!snap || snap.settled) {
        await o.sse.write(sseEvent('end', '{}'));
        return;
      }
      await waker.wait(o.pollMs, o.sse.signal);
    }
  } finally {
    unsubscribe();
    o.sse.end();
  }
}
