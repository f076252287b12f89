// Live delivery for the event streams of one gateway process.
//
// One LISTEN connection per gateway, whatever the number of streams: the
// process's shared notifier (ServiceContext.notifier, which anything else in
// the gateway that waits for a NOTIFY shares too) listens on the log channel
// and the execution-changed channel, and the hub fans each notification out,
// in process, to the streams subscribed to that execution id. A notification is only a wake-up hint: the stream then re-reads the
// database, and every stream also polls on its own (see the streams), so a
// lost notification or a lost LISTEN connection delays a line by at most the
// poll interval and never loses it.
//
// The notifier opens its connection lazily: the hub subscribes to a channel
// when its first stream of that channel arrives and unsubscribes when the
// last one leaves; the gateway's notifier closes the connection
// `idleCloseMs` after no channel has a subscriber (GATEWAY_NOTIFIER: a
// gateway nobody watches holds nothing), re-opens it with backoff after a
// loss while streams remain, and each time a connection starts listening the
// hub wakes every stream (it may have missed notifications meanwhile). After
// `close()` streams are told to end and the hub unsubscribes.
//
// Streams read through `pool`, a small pool of its own, so that any number of
// watchers can never take the connections the API and the runner protocol
// need; a stream holds a connection only while one query runs. Identical reads
// that are in flight at the same time (streams that follow the same execution
// from the same position) are made once and shared (`shared`).
import { setMaxListeners } from 'node:events';
import pg from 'pg';
import { survivesConnectionLoss, type Notifier, type NotifierOptions } from '@svc/db';
import { CHANNELS, LOG_CHANNEL } from '@svc/engine';

export type LiveChannel = 'logs' | 'changed';

const CHANNEL_NAMES: Record<LiveChannel, string> = { logs: LOG_CHANNEL, changed: CHANNELS.changed };

/** The gateway process's notifier options (runService's `notifier`): reconnect from 1 s, close 10 s after the last stream left. */
export const GATEWAY_NOTIFIER: Pick<NotifierOptions, 'minDelayMs' | 'idleCloseMs'> = { minDelayMs: 1000, idleCloseMs: 10_000 };

export interface LiveHubOptions {
  /** PostgreSQL URL of the stream pool. */
  databaseUrl: string;
  /** The process's shared notifier (ServiceContext.notifier), with GATEWAY_NOTIFIER's options. */
  notifier: Notifier;
  log: {
    warn(msg: string, meta?: Record<string, unknown>): unknown;
    info(msg: string, meta?: Record<string, unknown>): unknown;
    debug?(msg: string, meta?: Record<string, unknown>): unknown;
  };
  /** Connections the streams of this gateway may use at once for their reads. Default 4. */
  queryPoolSize?: number;
  /** `application_name` of the stream pool's connections. Default `svc-api-gateway-live`. */
  applicationName?: string;
  /**
   * Lines the log streams of this gateway may read at once in all, shared
   * among them: a stream that is behind and whose client keeps up reads more
   * lines a round (fewer queries per line), within its share. Default 20000.
   */
  readBudgetLines?: number;
}

export interface LiveHubStats {
  /** Subscriptions (a log stream holds two: logs and changed). */
  subscriptions: number;
  /** Executions with at least one subscription. */
  executions: number;
  listening: boolean;
  /** Reads in flight. */
  sharedInFlight: number;
  /** Reads made since start, and reads answered by one already in flight (joined). */
  reads: number;
  joined: number;
}

type Wake = () => void;

export class LiveHub {
  /** The streams' read pool (lazy: opens connections on first use). */
  readonly pool: pg.Pool;
  private readonly subs: Record<LiveChannel, Map<string, Set<Wake>>> = { logs: new Map(), changed: new Map() };
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /** Notifications seen per watched execution; part of the key of shared reads. */
  private readonly generations = new Map<string, number>();
  private readonly closing = new AbortController();
  private readonly notifier: Notifier;
  private readonly unhookReconnect: () => void;
  /** Unsubscribes from the notifier, per channel with at least one subscriber. */
  private readonly listeningOn: Partial<Record<LiveChannel, () => void>> = {};
  private count = 0;
  /** Subscriptions to the log channel: one per log stream. */
  private logStreams = 0;
  private reads = 0;
  private joined = 0;

  constructor(private readonly opts: LiveHubOptions) {
    this.pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.queryPoolSize ?? 4,
      idleTimeoutMillis: 10_000,
      application_name: opts.applicationName ?? 'svc-api-gateway-live',
      connectionTimeoutMillis: 10_000,
    });
    // A client losing its connection (database restart) must not crash the process.
    survivesConnectionLoss(this.pool);
    // One listener per open stream, removed when the stream ends: no fixed bound applies.
    setMaxListeners(0, this.closing.signal);
    this.notifier = opts.notifier;
    // Anything that happened while no connection listened is only seen by polls: wake everyone now.
    this.unhookReconnect = this.notifier.onReconnect(() => this.wakeAll());
  }

  /** Aborted when the hub closes: every stream ends then. */
  get signal(): AbortSignal {
    return this.closing.signal;
  }

  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  stats(): LiveHubStats {
    const executions = new Set([...this.subs.logs.keys(), ...this.subs.changed.keys()]);
    return {
      subscriptions: this.count,
      executions: executions.size,
      listening: this.notifier.listening,
      sharedInFlight: this.inFlight.size,
      reads: this.reads,
      joined: this.joined,
    };
  }

  /**
   * Calls `wake` on each notification of `channel` for `executionId` until the
   * returned function is called (at once when a client goes away).
   */
  subscribe(channel: LiveChannel, executionId: string, wake: Wake): () => void {
    if (this.closed) return () => undefined;
    const byExecution = this.subs[channel];
    let set = byExecution.get(executionId);
    if (!set) byExecution.set(executionId, (set = new Set()));
    set.add(wake);
    this.count++;
    if (channel === 'logs') this.logStreams++;
    this.listeningOn[channel] ??= this.notifier.subscribe(CHANNEL_NAMES[channel], (executionId) => this.dispatch(channel, executionId));
    let done = false;
    return () => {
      if (done) return;
      done = true;
      set.delete(wake);
      if (set.size === 0) {
        byExecution.delete(executionId);
        if (!this.subs.logs.has(executionId) && !this.subs.changed.has(executionId)) this.generations.delete(executionId);
      }
      this.count--;
      if (channel === 'logs') this.logStreams--;
      if (byExecution.size === 0) {
        // The notifier closes its connection once no channel has a subscriber for idleCloseMs.
        this.listeningOn[channel]?.();
        delete this.listeningOn[channel];
      }
    };
  }

  /**
   * How many notifications of `executionId` this hub has fanned out. A stream
   * puts it in the key of its shared read, so that a stream woken by a newer
   * notification never gets the result of a read that started before it.
   */
  generation(executionId: string): number {
    return this.generations.get(executionId) ?? 0;
  }

  /** Lines one log stream may read in a round: its share of the read budget (at least 1). */
  readShare(): number {
    return Math.max(1, Math.floor((this.opts.readBudgetLines ?? 20_000) / Math.max(1, this.logStreams)));
  }

  /** Runs `fn` once for all callers asking for the same `key` while it is in flight. */
  shared<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key);
    if (running) {
      this.joined++;
      return running as Promise<T>;
    }
    this.reads++;
    const p = fn().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  /** Ends every stream and the read pool, and unsubscribes from the notifier (the process closes it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closing.abort();
    this.unhookReconnect();
    for (const channel of Object.keys(this.listeningOn) as LiveChannel[]) {
      this.listeningOn[channel]?.();
      delete this.listeningOn[channel];
    }
    await this.pool.end().catch(() => undefined);
  }

  private dispatch(channel: LiveChannel, executionId: string): void {
    if (this.subs.logs.has(executionId) || this.subs.changed.has(executionId)) this.generations.set(executionId, this.generation(executionId) + 1);
    const set = this.subs[channel].get(executionId);
    if (set) for (const wake of set) wake();
  }

  private wakeAll(): void {
    for (const id of new Set([...this.subs.logs.keys(), ...this.subs.changed.keys()])) this.generations.set(id, this.generation(id) + 1);
    for (const kind of ['logs', 'changed'] as const) for (const set of this.subs[kind].values()) for (const wake of set) wake();
  }
}

/**
 * A wake-up flag a stream waits on: woken by notifications, by its poll
 * timer or by its client leaving. A wake that comes while the stream is busy
 * is remembered, so the next wait returns at once (no notification is lost
 * between a read and the wait that follows it).
 */
export class Waker {
  private pending = false;
  private resolve: (() => void) | undefined;

  readonly wake = (): void => {
    if (this.resolve) {
      const r = this.resolve;
      this.resolve = undefined;
      r();
    } else {
      this.pending = true;
    }
  };

  /** Resolves on a wake, after `ms`, or when `signal` aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.pending || signal.aborted) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.resolve = undefined;
        this.pending = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.resolve = done;
    });
  }
}
