// A worker woken by a NOTIFY channel and by a poll, whose passes run one at a
// time: a wake-up during a pass becomes one more pass right after it. The mail
// sender and the alert deliverer run so. The poll finds what a lost
// notification announced (the listening connection was down), and each pass
// claims its rows with FOR UPDATE SKIP LOCKED, so any number of instances run
// side by side.
import { Notifier, type NotifierLog } from './notifier.js';

export interface WokenPassesOptions {
  /** PostgreSQL URL of the LISTEN connection. */
  dbUrl: string;
  channel: string;
  /** `application_name` of the LISTEN connection. */
  applicationName: string;
  pollMs: number;
  log: NotifierLog;
  /** What the passes handle, for the log ("queued emails", "alerts"). */
  what: string;
  pass: () => Promise<void>;
}

export class WokenPasses {
  private readonly notifier: Notifier;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private halted = false;

  constructor(private readonly o: WokenPassesOptions) {
    this.notifier = new Notifier({ url: o.dbUrl, log: o.log, applicationName: o.applicationName });
  }

  /** Set once stop() was called: a long pass checks it between items. */
  get stopped(): boolean {
    return this.halted;
  }

  /** Listens (polling only when it cannot), starts the poll and runs a first pass. */
  async start(): Promise<void> {
    this.notifier.subscribe(this.o.channel, () => this.kick());
    this.notifier.onReconnect(() => this.kick());
    await this.notifier.ready().catch((err) => this.o.log.warn(`cannot listen for ${this.o.what}; polling only`, { err }));
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

  /** No more passes; resolves once the running one ended and the LISTEN connection is closed. */
  async stop(): Promise<void> {
    this.halted = true;
    clearInterval(this.timer);
    await this.running;
    await this.notifier.close();
  }
}
