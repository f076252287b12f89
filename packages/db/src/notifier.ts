// One LISTEN connection per service process, shared by everything in it that
// waits for a NOTIFY. A notification is only a wake-up hint: every subscriber
// also polls, so a lost notification delays work by at most its poll interval.
// What the notifier adds is that the hint comes back after the connection is
// lost (PostgreSQL restarted, the backend terminated, the network cut), and
// that subscribers are told when hints may have been missed, so they poll at
// once instead of waiting for their next poll.
//
// Modes of the connection:
//   idle        no connection: before the first subscriber, or after the last
//               one left `idleCloseMs` ago (only when that option is set)
//   connecting  a new connection is opening and LISTENing on every channel
//               that has a handler; a failure leads to backoff
//   listening   notifications are delivered; a channel subscribed now is
//               LISTENed on this connection at once
//   backoff     the connection failed or ended; the next attempt comes after
//               a delay that doubles from `minDelayMs` to `maxDelayMs`
//   closed      `close()` ran: nothing opens again
//
// Each time a connection starts listening (the first one included: the
// subscribers subscribed before it listened) the `onReconnect` hooks run,
// since anything notified while no connection listened was missed.
//
// A channel stays LISTENed on its connection after its last handler left: a
// later subscriber then needs no round trip, and the channels of this service
// are few and fixed. A new connection LISTENs only the channels with handlers.
import pg from 'pg';
import { assertNever } from '@svc/assert';
import { backoffDelay } from '@svc/timing/backoff';

/** The logger the notifier writes to (a winston Logger fits). The connection string is never logged. */
export interface NotifierLog {
  warn(msg: string, meta?: Record<string, unknown>): unknown;
  info(msg: string, meta?: Record<string, unknown>): unknown;
  debug?(msg: string, meta?: Record<string, unknown>): unknown;
}

export interface NotifierOptions {
  /** PostgreSQL URL of the LISTEN connection. */
  url: string;
  log: NotifierLog;
  /** `application_name` of the connection (how operators and tests find it in pg_stat_activity). Default `svc-notifier`. */
  applicationName?: string;
  /** Delay before the first reconnection attempt after a loss; doubles on each failed attempt. Default 500 ms. */
  minDelayMs?: number;
  /** Longest delay between two reconnection attempts. Default 10000 ms. */
  maxDelayMs?: number;
  /**
   * Close the connection once no channel has had a handler for this long
   * (the next subscriber opens a new one). Default: undefined, the connection
   * stays open until `close()`.
   */
  idleCloseMs?: number;
  /** How long one connection attempt, or one LISTEN, may take. Default 10000 ms. */
  connectTimeoutMs?: number;
}

export type NotificationHandler = (payload: string) => void;

type Mode = 'idle' | 'connecting' | 'listening' | 'backoff' | 'closed';

/** A channel name is put in LISTEN as a quoted identifier: only plain names are accepted. */
const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export class Notifier {
  private mode: Mode = 'idle';
  private client: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  private readonly reconnectHooks = new Set<() => void>();
  /** Channels LISTENed on the current connection. */
  private readonly listened = new Set<string>();
  /** Set when a channel was subscribed while `sync` runs: it checks again before it ends. */
  private dirty = false;
  /** The connection whose LISTEN loop is running, if any. */
  private syncing: pg.Client | undefined;
  /** Failed attempts since the connection was last listening. */
  private attempts = 0;
  /** When the current outage began (ms since epoch), for the log line that ends it. */
  private downSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readyWaiters: ((listening: boolean) => void)[] = [];

  constructor(private readonly opts: NotifierOptions) {}

  /** True while a connection listens (notifications are being delivered). */
  get listening(): boolean {
    return this.mode === 'listening';
  }

  /**
   * Calls `handler` with the payload of each notification on `channel` until
   * the returned function is called. Opens the connection if none is open.
   */
  subscribe(channel: string, handler: NotificationHandler): () => void {
    if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid notification channel name: ${JSON.stringify(channel)}`);
    if (this.mode === 'closed') return () => undefined;
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    switch (this.mode) {
      case 'idle':
        void this.connect();
        break;
      case 'listening':
        clearTimeout(this.timer); // an idle close pending keeps the connection
        this.timer = undefined;
        void this.sync(this.client!).catch(() => undefined); // a failed LISTEN gives the connection up
        break;
      case 'connecting':
        this.dirty = true; // LISTENed before it listens
        break;
      case 'backoff': // the next attempt LISTENs it
        break;
      default:
        assertNever(this.mode);
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      set.delete(handler);
      if (set.size === 0 && this.handlers.get(channel) === set) this.handlers.delete(channel);
      if (this.handlers.size === 0) this.scheduleIdleClose();
    };
  }

  /**
   * Calls `hook` each time a connection starts listening, the first one
   * included: notifications sent while no connection listened were missed, so
   * a subscriber should poll now. Returns a function that removes the hook.
   */
  onReconnect(hook: () => void): () => void {
    this.reconnectHooks.add(hook);
    return () => void this.reconnectHooks.delete(hook);
  }

  /**
   * Resolves true once a connection listens, or false when the attempt under
   * way fails (attempts go on in the background; polling covers meanwhile).
   * Resolves false at once when idle or closed.
   */
  ready(): Promise<boolean> {
    if (this.mode === 'listening') return Promise.resolve(true);
    if (this.mode === 'idle' || this.mode === 'closed') return Promise.resolve(false);
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** Ends the connection; no handler or hook is called after this resolves. */
  async close(): Promise<void> {
    if (this.mode === 'closed') return;
    this.mode = 'closed';
    clearTimeout(this.timer);
    this.timer = undefined;
    this.handlers.clear();
    this.reconnectHooks.clear();
    this.settleReady(false);
    const client = this.client;
    this.client = undefined;
    if (client) await this.discard(client);
  }

  private async connect(): Promise<void> {
    if (this.mode !== 'idle' && this.mode !== 'backoff') throw new Error(`notifier: connect in mode ${this.mode}`);
    this.mode = 'connecting';
    this.timer = undefined;
    const client = new pg.Client({
      connectionString: this.opts.url,
      application_name: this.opts.applicationName ?? 'svc-notifier',
      connectionTimeoutMillis: this.opts.connectTimeoutMs ?? 10_000,
      // Only LISTENs run on this connection: one that hangs means the connection is gone.
      query_timeout: this.opts.connectTimeoutMs ?? 10_000,
      // A peer that vanished without a reset (a silent network cut) is found by
      // TCP keepalive, probing after 10 s idle (then the OS's probe interval and
      // count decide, minutes on Linux), rather than never.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    this.client = client;
    this.listened.clear();
    client.on('notification', (n) => this.deliver(n.channel, n.payload ?? ''));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('notification connection ended')));
    try {
      await client.connect();
      if (this.client !== client) return; // closed or lost meanwhile
      await this.sync(client);
      if (this.client !== client) return;
    } catch (err) {
      this.lost(client, err);
      return;
    }
    // this.mode may have changed during the await, which TypeScript's narrowing does not see.
    if (this.mode !== 'connecting') throw new Error(`notifier: listening from mode ${String(this.mode)}`);
    this.mode = 'listening';
    if (this.downSince !== undefined) {
      this.opts.log.info('notification connection re-established', { attempts: this.attempts, down_ms: Date.now() - this.downSince, channels: [...this.listened] });
    }
    this.attempts = 0;
    this.downSince = undefined;
    this.settleReady(true);
    for (const hook of [...this.reconnectHooks]) this.safely('reconnect hook', () => hook());
    if (this.handlers.size === 0) this.scheduleIdleClose();
  }

  /** LISTENs every channel that has handlers and is not LISTENed yet on `client`. Rejects when a LISTEN fails while connecting. */
  private async sync(client: pg.Client): Promise<void> {
    this.dirty = true;
    if (this.syncing === client) return; // the running loop sees `dirty`
    this.syncing = client;
    try {
      while (this.dirty && this.client === client) {
        this.dirty = false;
        for (const channel of [...this.handlers.keys()]) {
          if (this.listened.has(channel)) continue;
          await client.query(`LISTEN "${channel}"`);
          if (this.client !== client) return;
          this.listened.add(channel);
        }
      }
    } catch (err) {
      // While connecting, `connect` gives the connection up; once listening, this does.
      if (this.client === client && this.mode === 'connecting') throw err;
      this.lost(client, err);
    } finally {
      if (this.syncing === client) this.syncing = undefined;
    }
  }

  private deliver(channel: string, payload: string): void {
    const set = this.handlers.get(channel);
    if (!set) return;
    for (const handler of [...set]) this.safely('notification handler', () => handler(payload));
  }

  /** The connection `client` failed or ended: drop it and, while anyone subscribes, reconnect after a delay. */
  private lost(client: pg.Client, err: unknown): void {
    if (this.client !== client) return; // an old connection's late events
    this.client = undefined;
    this.listened.clear();
    void this.discard(client);
    if (this.mode === 'closed') return;
    const wasListening = this.mode === 'listening';
    if (this.downSince === undefined) {
      this.downSince = Date.now();
      this.opts.log.warn(
        wasListening ? 'notification connection lost; polling continues until it is back' : 'cannot open the notification connection; polling continues meanwhile',
        {
          err,
          channels: [...this.handlers.keys()],
          application_name: this.opts.applicationName ?? 'svc-notifier',
        },
      );
    } else {
      this.opts.log.debug?.('notification connection attempt failed', { err, attempts: this.attempts + 1 });
    }
    this.settleReady(false);
    clearTimeout(this.timer);
    if (this.handlers.size === 0 && this.opts.idleCloseMs !== undefined) {
      // Nobody listens: the next subscriber opens a connection.
      this.mode = 'idle';
      this.timer = undefined;
      this.downSince = undefined;
      this.attempts = 0;
      return;
    }
    this.mode = 'backoff';
    const delay = this.backoff(this.attempts++);
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref();
  }

  /**
   * Delay before attempt `n` (0-based): @svc/timing's backoff, its ceiling doubling from minDelayMs up to
   * maxDelayMs, drawn in the ceiling's upper half so many instances do not reconnect in step while a
   * notification lost meanwhile is still found soon (the poll backstop covers the gap).
   */
  private backoff(n: number): number {
    return backoffDelay(n + 1, { firstMs: this.opts.minDelayMs ?? 500, maxMs: this.opts.maxDelayMs ?? 10_000, jitter: 0.5 });
  }

  private scheduleIdleClose(): void {
    const ms = this.opts.idleCloseMs;
    if (ms === undefined || this.mode === 'closed') return;
    if (this.mode === 'backoff') {
      // No one waits for a reconnection any more.
      clearTimeout(this.timer);
      this.timer = undefined;
      this.mode = 'idle';
      this.downSince = undefined;
      this.attempts = 0;
      return;
    }
    if (this.mode !== 'listening' || this.timer) return; // connecting: checked again once it listens
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.handlers.size > 0 || this.mode !== 'listening') return;
      const client = this.client;
      this.client = undefined;
      this.listened.clear();
      this.mode = 'idle';
      if (client) void this.discard(client);
    }, ms);
    this.timer.unref();
  }

  private async discard(client: pg.Client): Promise<void> {
    client.removeAllListeners('notification');
    client.removeAllListeners('end');
    client.removeAllListeners('error');
    client.on('error', () => undefined); // a late socket error must not crash the process
    await client.end().catch(() => undefined);
  }

  private settleReady(listening: boolean): void {
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w(listening);
  }

  private safely(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.opts.log.warn(`${what} failed`, { err });
    }
  }
}
