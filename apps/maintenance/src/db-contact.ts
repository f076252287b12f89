// Whether this process has been able to reach the database without a break
// for long enough to judge other instances by their heartbeats.
//
// An instance that cannot reach the database cannot heartbeat either. After
// an outage, every instance's last heartbeat is as old as the outage, and the
// `lost` rule would end every running task at once. So the rule waits until
// this process has itself been in contact for a whole online window: by then
// every live instance has had time to heartbeat again.
//
// Contact is fed by every database round trip the maintenance loops make (the
// lease keeper's ticks, the watchdog's passes). A failed one, or two
// successful ones further apart than `gapMs` (the process was paused, or not
// running its loops), breaks the contact. Durations are measured on this
// process's monotonic clock: they compare this process's own moments only.
import { performance } from 'node:perf_hooks';

/** Two contacts further apart than this break the contact (3 lease ticks at the default 5 s). */
export const DEFAULT_CONTACT_GAP_MS = 15_000;

export interface DbContactOptions {
  /** Two successful contacts further apart than this count as a break. Default {@link DEFAULT_CONTACT_GAP_MS}. */
  gapMs?: number;
  /** Monotonic milliseconds. Default performance.now (tests move their own). */
  monotonic?: () => number;
}

export class DbContact {
  private readonly gapMs: number;
  private readonly mono: () => number;
  /** Start of the current unbroken contact; -Infinity when no break was ever seen, null while broken. */
  private since: number | null = null;
  private last: number | null = null;
  private seen = false;

  constructor(opts: DbContactOptions = {}) {
    this.gapMs = opts.gapMs ?? DEFAULT_CONTACT_GAP_MS;
    this.mono = opts.monotonic ?? (() => performance.now());
  }

  /** A round trip to the database succeeded. */
  ok(): void {
    const t = this.mono();
    if (!this.seen) {
      // The first contact of the process: no break is known. (A process that
      // starts while the database is down fails its start-up and is restarted.)
      this.since = -Infinity;
    } else if (this.since === null || (this.last !== null && t - this.last > this.gapMs)) {
      this.since = t;
    }
    this.seen = true;
    this.last = t;
  }

  /** A round trip to the database failed. */
  failed(): void {
    this.seen = true;
    this.since = null;
  }

  /** Whether the contact has lasted, unbroken, at least `ms` (up to now). */
  steadyFor(ms: number): boolean {
    if (this.since === null || this.last === null) return false;
    const t = this.mono();
    if (t - this.last > this.gapMs) return false;
    return t - this.since >= ms;
  }
}
