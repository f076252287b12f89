// Planning after task runs end. Ending a task run is one statement that also
// inserts a planning request (a `plan_requests` row) and takes no lock on its
// execution, so many runs of one execution can end at once without queueing
// on its row. A planning pass then locks executions that have requests,
// reads their task runs, plans them all, writes the result in one statement
// and deletes the requests of the runs it read, in one transaction:
//
//   BEGIN; lock the executions; read their task runs; apply; COMMIT
//
// A run that ends while a pass holds its execution keeps its request (the
// pass read before it committed), so a later pass plans it: nothing is lost,
// and planning the same state twice writes nothing (every write is guarded
// by the state it expects). Passes over "whatever is requested" skip
// executions another pass holds (SKIP LOCKED) and come back for them; a pass
// for named executions (a completion that wants its follow-ups now) waits its
// turn.
//
// `Planner` runs passes for one process: `kick()` after a completion starts
// one, or marks that another is needed if one is running, so completions
// arriving during a pass are planned together in the next. A slow poll finds
// requests left behind by a process that died between a completion and its
// pass.
import type pg from 'pg';
import { advanceMany, type AdvanceOptions } from './advance.js';
import { inTx, type Conn } from '../db.js';
import { hasStaleRequests, lockRequested } from '../sql/plan-read.js';
import { lockExecutions } from '../sql/lock-executions.js';
import type { ExecutionRow } from '../rows.js';
import type { FollowUp } from '../types.js';

/** A pass that found every requested execution held by another process looks again after this long, */
const HELD_RETRY_MS = 20;
/** this many times at most; the poll takes over after that. */
const MAX_HELD_RETRIES = 25;

/** Pause before a pass that follows another at once (completions arrived meanwhile), so more of them join it. */
const COALESCE_MS = 3;

/** Executions planned in one pass at most. */
export const PLAN_BATCH = 100;

export interface PassResult {
  /** Executions locked and planned. */
  planned: number;
  /** Whether requested executions were left (held by another pass, or past the batch size). */
  more: boolean;
  followUps: FollowUp[];
}

/** Planning passes on one pool (or in a caller's transaction). */
export class Planning {
  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: AdvanceOptions = {},
  ) {}

  /**
   * One planning pass, in its own transaction (a savepoint of `db`'s when it
   * is a client). With `ids`, plans those executions (waiting for their
   * locks); without, up to PLAN_BATCH executions with planning requests that
   * no other pass holds.
   */
  async plan(now: () => Date, ids?: string[], db: Conn = this.pool): Promise<PassResult> {
    return inTx(db, async (c) => {
      let locked: ExecutionRow[];
      let more = false;
      if (ids) {
        locked = await lockExecutions(c, { ids });
      } else {
        // `requested` counts the executions with requests: more than were locked means some were
        // held by another pass (or past the batch), and the caller comes back for them.
        const r = await lockRequested(c, { limit: PLAN_BATCH });
        locked = r.locked;
        more = r.requested > locked.length;
      }
      // The clock is read once the locks are held, so a pass that waited never writes times earlier than the one before it.
      const followUps = await advanceMany(c, locked, now(), this.opts);
      return { planned: locked.length, more, followUps };
    });
  }

  /** Whether any planning request is older than `olderThan` (the poll's cheap check). */
  hasStaleRequests(olderThan: Date): Promise<boolean> {
    return hasStaleRequests(this.pool, { olderThan });
  }
}

export interface PlannerOptions {
  /** The passes it runs. */
  planning: Planning;
  now: () => Date;
  /** Runs the follow-ups of a pass (after its commit). */
  followUps: (f: FollowUp[]) => Promise<void>;
  /** Reports a failed pass; the poll retries it. */
  onError: (err: unknown) => void;
  /** How often to look for requests left behind; 0 turns the poll off. Default 2000 ms. */
  pollMs?: number;
  /** Also at each poll: runs the follow-ups left in the outbox (drainOutbox), so every dispatcher is a backstop. */
  outbox?: () => Promise<unknown>;
  /** A request counts as left behind once it is this old. Default 1000 ms. */
  staleMs?: number;
}

/** Coalescing planning passes for one process. */
export class Planner {
  private running: Promise<void> | null = null;
  private again = false;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly o: PlannerOptions) {}

  /** Starts the poll for requests left behind. */
  start(): void {
    const pollMs = this.o.pollMs ?? 2000;
    if (!pollMs) return;
    this.timer = setInterval(() => void this.poll(), pollMs);
    this.timer.unref();
  }

  /** Plans what is requested now, soon; resolves once a pass that started after this call has ended. */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve(); // the watchdog plans what is left
    if (this.running) {
      this.again = true;
      return this.running.then(() => this.running ?? undefined);
    }
    this.running = this.drain().finally(() => (this.running = null));
    return this.running;
  }

  /** Waits for the pass in progress, and stops the poll. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    for (let held = 0; ;) {
      this.again = false;
      let r: PassResult;
      try {
        r = await this.o.planning.plan(this.o.now);
        if (r.followUps.length) await this.o.followUps(r.followUps);
      } catch (err) {
        this.o.onError(err);
        return;
      }
      if (this.stopped || (!this.again && !r.more)) return;
      if (this.again) {
        // Completions arrived during the pass: the machine is busy. Waiting a moment
        // lets more of them join the next pass (fewer, larger passes); an idle
        // planner still plans the first completion at once.
        held = 0;
        await new Promise((resolve) => setTimeout(resolve, COALESCE_MS));
        continue;
      }
      if (r.planned > 0) {
        held = 0;
        continue;
      }
      // Everything requested is held by another process's pass: look again shortly, then leave it to the poll.
      if (++held > MAX_HELD_RETRIES) return;
      await new Promise((resolve) => setTimeout(resolve, HELD_RETRY_MS));
    }
  }

  private async poll(): Promise<void> {
    if (this.running || this.stopped) return;
    try {
      if (await this.o.planning.hasStaleRequests(new Date(this.o.now().getTime() - (this.o.staleMs ?? 1000)))) await this.kick();
      if (this.o.outbox && !this.stopped) await this.o.outbox();
    } catch (err) {
      this.o.onError(err);
    }
  }
}
