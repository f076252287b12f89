// Numbers, stamps and posts log lines. Lines are posted in order, one postLogs
// call at a time, in batches at most `batchMs` old or `batchLines` long. When the
// service is slower than the task's output, the backlog grows past `highWater`
// and the runner pauses reading the task's pipes (`onPressure(true)`), so the
// task blocks on a full pipe instead of the runner's memory growing.
import type { LogLine } from './types.js';

export interface LogBatcherOptions {
  post: (lines: LogLine[]) => Promise<void>;
  /** A line waits at most this long before it is posted. Default 50 ms. */
  batchMs?: number;
  /** Lines per postLogs call at most; a full batch is posted at once. Default 500. */
  batchLines?: number;
  /** Backlog (lines not yet posted) above which `onPressure(true)` is called. Default 20 × batchLines. */
  highWater?: number;
  /** Called with true when the backlog passes highWater, false once it is below half of it. */
  onPressure?: (paused: boolean) => void;
  /** Called when a batch could not be posted (after the transport's own retries); the batch is dropped. */
  onPostError?: (err: unknown, lines: LogLine[]) => void;
  /** Nanosecond clock for `ts`. Default: `nanoClock()`. */
  clock?: () => bigint;
}

/** Nanoseconds since the epoch, from the wall clock once and hrtime after, so it never goes back. */
export function nanoClock(): () => bigint {
  const base = BigInt(Date.now()) * 1_000_000n;
  const hr0 = process.hrtime.bigint();
  return () => base + (process.hrtime.bigint() - hr0);
}

export class LogBatcher {
  private readonly queue: LogLine[] = [];
  private n = 0;
  private lastTs = 0n;
  private timer: NodeJS.Timeout | null = null;
  private posting: Promise<void> | null = null;
  private paused = false;
  private readonly batchMs: number;
  private readonly batchLines: number;
  private readonly highWater: number;
  private readonly clock: () => bigint;

  constructor(private readonly opts: LogBatcherOptions) {
    this.batchMs = opts.batchMs ?? 50;
    this.batchLines = Math.max(1, opts.batchLines ?? 500);
    this.highWater = opts.highWater ?? this.batchLines * 20;
    this.clock = opts.clock ?? nanoClock();
  }

  /** Lines numbered so far. */
  get count(): number {
    return this.n;
  }

  add(stream: LogLine['stream'], text: string): void {
    let ts = this.clock();
    if (ts <= this.lastTs) ts = this.lastTs + 1n;
    this.lastTs = ts;
    this.queue.push({ n: ++this.n, ts: ts.toString(), stream, text });
    if (!this.paused && this.queue.length > this.highWater) {
      this.paused = true;
      this.opts.onPressure?.(true);
    }
    this.schedule();
  }

  /** Posts everything added so far; resolves when the service has it (or dropped it). */
  async flush(): Promise<void> {
    this.clearTimer();
    while (this.queue.length || this.posting) {
      if (!this.posting) this.startPost();
      await this.posting;
    }
  }

  private schedule(): void {
    if (this.posting) return; // the running post starts the next batch when it ends
    if (this.queue.length >= this.batchLines) {
      this.clearTimer();
      this.startPost();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        if (!this.posting && this.queue.length) this.startPost();
      }, this.batchMs);
    }
  }

  private startPost(): void {
    const batch = this.queue.splice(0, this.batchLines);
    this.posting = this.opts
      .post(batch)
      .catch((err: unknown) => this.opts.onPostError?.(err, batch))
      .finally(() => {
        this.posting = null;
        if (this.paused && this.queue.length <= this.highWater / 2) {
          this.paused = false;
          this.opts.onPressure?.(false);
        }
        // Lines that arrived during the post have waited long enough already.
        if (this.queue.length) {
          this.clearTimer();
          this.startPost();
        }
      });
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
