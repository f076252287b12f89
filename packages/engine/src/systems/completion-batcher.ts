// Group commit for completions: the task runs that end while a batch is being
// written are ended together in the next one, in one transaction with one
// flush (endAndPlan), and each caller is answered once the commit that holds
// its run is done. Up to MAX_WRITERS batches are written at a time per
// process, so under load the batches grow by themselves, a lone completion
// goes out at once, and completions (a fan-out's) do not all queue behind one
// transaction.
//
// A batch that fails is written again one completion at a time, so one bad
// completion cannot hold the others back; a completion that still fails is
// ended without planning (the run's planning request leaves it to a pass), and
// only when that fails too is the caller told (it retries).
import type { EndResult, FollowUp, PendingCompletion } from '../types.js';

/** Batches written at once (each its own transaction and connection). */
export const MAX_WRITERS = 2;

/** Completions written in one transaction at most. */
export const MAX_BATCH = 64;

export interface CompletionBatcherOptions {
  /** Ends and plans completions in one transaction. */
  write(items: PendingCompletion[]): Promise<{ results: EndResult[]; followUps: FollowUp[] }>;
  /** Ends one completion without planning it (the last resort). */
  endOnly(item: PendingCompletion): Promise<EndResult>;
  /** Runs a batch's follow-ups after its commit, before its callers are answered. */
  follow(f: FollowUp[]): Promise<void>;
  /** Reports a batch written again one by one. */
  onSplit?(err: unknown, size: number): void;
}

interface Waiting {
  item: PendingCompletion;
  resolve(r: EndResult): void;
  reject(err: unknown): void;
}

export class CompletionBatcher {
  private readonly queue: Waiting[] = [];
  private writers = 0;

  constructor(private readonly o: CompletionBatcherOptions) {}

  /** Ends (and plans) this completion with those that arrive meanwhile; resolves after their commit. */
  submit(item: PendingCompletion): Promise<EndResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.writers < MAX_WRITERS) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writers++;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          const { results, followUps } = await this.o.write(batch.map((w) => w.item));
          await this.o.follow(followUps);
          batch.forEach((w, i) => w.resolve(results[i]));
        } catch (err) {
          if (batch.length > 1) this.o.onSplit?.(err, batch.length);
          for (const w of batch) await this.one(w, batch.length > 1);
        }
      }
    } finally {
      this.writers--;
    }
  }

  private async one(w: Waiting, again: boolean): Promise<void> {
    try {
      if (again) {
        const { results, followUps } = await this.o.write([w.item]);
        await this.o.follow(followUps);
        return w.resolve(results[0]);
      }
    } catch {
      // Fall through to ending it alone.
    }
    try {
      w.resolve(await this.o.endOnly(w.item));
    } catch (err) {
      w.reject(err);
    }
  }
}
