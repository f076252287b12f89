// A worker woken by its queue's NOTIFY channel and by a poll, whose passes
// run one at a time: a wake-up during a pass becomes one more pass right
// after it. The poll finds what a lost notification announced (the
// listening connection was down), and each pass claims its jobs with
// FOR UPDATE SKIP LOCKED, so any number of instances run side by side.
//
// It listens through the process's one Notifier (@svc/db), handed to it,
// never a connection of its own: a process holds one LISTEN connection
// however many workers it runs.
import type { Notifier, NotifierLog } from '@svc/db';

export interface JobWorkerOptions {
  /** The process's shared notifier. */
  notifier: Notifier;
  /** The channel that announces new jobs (JobQueue.channel). */
  channel: string;
  /** Backstop poll, in ms. */
  pollMs: number;
  log: NotifierLog;
  /** What the passes handle, for the log ("queued emails", "alerts"). */
  what: string;
  /** One pass: claims and handles jobs until none is due (check `stopped` between batches). */
  pass: () => Promise<void>;
}

export class JobWorker {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private halted = false;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(private readonly o: JobWorkerOptions) {}

  /** Set once stop() was called: a long pass checks it between batches. */
  get stopped(): boolean {
    return this.halted;
  }

  /** Subscribes (polling only while the notifier cannot listen), starts the poll and runs a first pass. */
  async start(): Promise<void> {
    this.unsubscribe.push(this.o.notifier.subscribe(this.o.channel, () => this.kick()));
    this.unsubscribe.push(this.o.notifier.onReconnect(() => this.kick()));
    if (!(await this.o.notifier.ready())) this.o.log.warn(`cannot listen for ${this.o.what} yet; polling meanwhile`, { channel: this.o.channel });
    this.timer = setInterval(() => this.kick(), this.o.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Runs a pass now, or right after the one running. */
  kick(): void {
    if (this.halted) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.o
      .pass()
      .catch((err: unknown) => void this.o.log.warn(`a pass over ${this.o.what} failed`, { err }))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** No more passes; resolves once the running one ended. The notifier stays open (it is the process's). */
  async stop(): Promise<void> {
    this.halted = true;
    clearInterval(this.timer);
    for (const u of this.unsubscribe.splice(0)) u();
    await this.running;
  }
}
