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
