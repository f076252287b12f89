// The pieces of reading a streamed answer that do not depend on the client:
// the chunks of a response body, and the pause before a dropped event stream
// is opened again. Browser-safe: nothing here needs Node.
import { backoffDelay } from '@svc/timing/backoff';

/**
 * How a client follows a text/event-stream: when it reconnects and when it
 * gives up. The CLI keeps the defaults (it gives up after about a minute
 * and says so); the web UI never gives up, as an EventSource would not, with
 * pauses that grow to `maxPauseMs` while the service stays away.
 */
export interface StreamPolicy {
  /** Reconnects in a row without receiving an event before giving up; `Infinity` never gives up. Default 30 (about a minute). */
  maxRetries?: number;
  /** The ceiling of the pause before the first reconnect; each further one doubles it. Default 200 ms. */
  firstPauseMs?: number;
  /** The largest ceiling of a pause between two reconnects. Default 2000 ms. */
  maxPauseMs?: number;
  /**
   * The error thrown when the stream is lost: `maxRetries` reconnects failed,
   * or a stream that is never reconnected (a POST's answer) was cut off.
   * Default an Error naming the path.
   */
  lostStream?: (path: string, cause: unknown) => Error;
}

/**
 * The pause before reconnect number `attempt` (from 1): @svc/timing's backoff,
 * its ceiling `firstPauseMs` doubled per attempt up to `maxPauseMs`, the pause
 * drawn anywhere below it (full jitter), so the clients of a gateway that
 * restarted do not all come back in the same instant.
 * @param random a number in [0, 1); default Math.random.
 */
export function reconnectPause(attempt: number, policy: Pick<StreamPolicy, 'firstPauseMs' | 'maxPauseMs'> = {}, random: () => number = Math.random): number {
  return backoffDelay(attempt, { firstMs: policy.firstPauseMs ?? 200, maxMs: policy.maxPauseMs ?? 2000 }, undefined, random);
}

/**
 * The chunks of a response body as they arrive, read with `getReader()`:
 * a ReadableStream is not async-iterable in every browser (Safari's is
 * not), a reader is. Leaving the loop early cancels the body, so the
 * connection is let go.
 */
export async function* bodyChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array, void, undefined> {
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) {
        done = true;
        return;
      }
      yield r.value;
    }
  } finally {
    // A body that failed (the connection dropped) rejects the cancel too: nothing more to let go.
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
