// The writing side of one `text/event-stream` response (spec "Events"):
// the stream headers, events, the `: keep-alive` comment after a quiet
// period, back-pressure, and noticing at once that the client went away.
import type { Response } from 'express';

export interface SseOptions {
  /** Quiet time after which `: keep-alive` is sent. Default 15000 ms (spec: about 15 s). */
  keepAliveMs?: number;
  /** Ends the stream when aborted (the gateway is stopping). */
  signal?: AbortSignal;
}

/** Formats one event; multi-line data gets one `data:` line per line, as the format requires. */
export function sseEvent(event: string, data: string, id?: string): string {
  const body = data.includes('\n')
    ? data
        .split('\n')
        .map((l) => `data: ${l}`)
        .join('\n')
    : `data: ${data}`;
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\n${body}\n\n`;
}

/** The streams this process has open, for the instance's stream gauges (liveStreamFigures). */
const openWriters = new Set<SseWriter>();

/**
 * This instance's open event streams: how many, how many wait for their
 * socket to drain (a client that stopped reading), and the bytes written to
 * them that the kernel has not taken yet. With back-pressure each stream
 * holds at most about one write beyond its socket's high-water mark, however
 * far behind its client is.
 */
export function liveStreamFigures(): { open: number; waitingForDrain: number; bufferedBytes: number } {
  let waitingForDrain = 0;
  let bufferedBytes = 0;
  for (const w of openWriters) {
    if (w.waiting) waitingForDrain++;
    bufferedBytes += w.bufferedBytes;
  }
  return { open: openWriters.size, waitingForDrain, bufferedBytes };
}

export class SseWriter {
  private readonly gone = new AbortController();
  private lastWrite = Date.now();
  private keepAlive: NodeJS.Timeout | undefined;
  private waitingForDrain = false;
  private readonly keepAliveMs: number;

  constructor(
    private readonly res: Response,
    opts: SseOptions = {},
  ) {
    this.keepAliveMs = opts.keepAliveMs ?? 15_000;
    openWriters.add(this);
    const onGone = () => this.finish();
    res.once('close', onGone);
    res.once('error', onGone);
    if (opts.signal) {
      const outer = opts.signal;
      const onStop = () => this.end();
      if (outer.aborted) this.finish();
      else {
        outer.addEventListener('abort', onStop, { once: true });
        // Every stream of the gateway listens on the same signal: drop the listener with the stream.
        this.gone.signal.addEventListener('abort', () => outer.removeEventListener('abort', onStop), { once: true });
      }
    }
  }

  /** Aborted once the client is gone or the stream ended: stop reading for it. */
  get signal(): AbortSignal {
    return this.gone.signal;
  }

  get closed(): boolean {
    return this.gone.signal.aborted;
  }

  /** Waiting for the socket to drain before writing more. */
  get waiting(): boolean {
    return this.waitingForDrain;
  }

  /** Bytes written to this response that the kernel has not taken yet. */
  get bufferedBytes(): number {
    return this.res.writableLength;
  }

  /** Sends status 200 and the stream headers at once, so the client sees the stream open. */
  open(): void {
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    this.res.flushHeaders();
    this.armKeepAlive(this.keepAliveMs);
  }

  /**
   * Writes `chunk`; when the socket buffer is full, resolves only once it
   * drained (or the client left), so a slow client slows its own stream
   * instead of growing the gateway's memory. False when the client is gone.
   */
  async write(chunk: string): Promise<boolean> {
    if (this.closed) return false;
    this.lastWrite = Date.now();
    if (this.res.write(chunk)) return true;
    this.waitingForDrain = true;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.signal.removeEventListener('abort', done);
        resolve();
      };
      this.res.once('drain', done);
      this.signal.addEventListener('abort', done, { once: true });
    });
    this.waitingForDrain = false;
    return !this.closed;
  }

  /** Ends the response normally. */
  end(): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.end();
    this.finish();
  }

  private finish(): void {
    openWriters.delete(this);
    clearTimeout(this.keepAlive);
    this.keepAlive = undefined;
    if (!this.gone.signal.aborted) this.gone.abort();
  }

  private armKeepAlive(ms: number): void {
    this.keepAlive = setTimeout(() => {
      if (this.closed) return;
      const quiet = Date.now() - this.lastWrite;
      if (quiet < this.keepAliveMs) return this.armKeepAlive(this.keepAliveMs - quiet);
      // A client that is not reading already has data waiting: a comment would only add to it.
      if (!this.waitingForDrain) {
        this.lastWrite = Date.now();
        this.res.write(': keep-alive\n\n');
      }
      this.armKeepAlive(this.keepAliveMs);
    }, ms);
  }
}
