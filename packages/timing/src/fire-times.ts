// Fire times of a schedule trigger in its IANA time zone (the scheduler's
// fires and the backfills' fire times both come from here), with the
// daylight-saving rules of the spec: a wall time the clock skips fires once at
// the next valid minute, and a wall time the clock repeats fires once (at its
// first occurrence).
//
// Why not cron-parser's own time-zone mode: measured on 2026 dates (see
// fire-times.test.ts), it moves a skipped time by the size of the gap
// (Europe/Berlin 02:30 on 29 March fires at 03:30, not 03:00) and fires the
// repeated hour twice for sub-daily crons (`*/30 * * * *` fires 02:00, 02:30,
// 02:00, 02:30 on 25 October), though a daily `30 2 * * *` fires once. So
// the cron is evaluated on wall-clock time (`wallClockCron` of @svc/timing:
// cron-parser in UTC, which has no transitions) and each wall time is mapped
// to an instant here:
//   - a wall time that exists once: that instant;
//   - a repeated wall time: its first occurrence;
//   - a skipped wall time: the first instant after the gap (the next valid
//     minute), so several skipped times and the first time after the gap
//     fall on one instant and fire once.
// The mapping is monotonic in wall time, so "the first instant strictly after
// t" never yields an instant already fired.
import { wallClockCron, type WallClockCron } from './wall-clock.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Look-back windows for the latest fire time, doubling up to 8 years (leap-day crons). */
const MAX_LOOKBACK_MS = 8 * 366 * DAY;

/** Wall-clock reading of instants in one zone; formatters are costly to build, so one per zone. */
export class ZoneClock {
  private readonly fmt: Intl.DateTimeFormat;
  /** UTC (the default zone of schedules) needs no formatting at all. */
  private readonly utc: boolean;

  constructor(readonly timeZone: string) {
    this.utc = timeZone === 'UTC' || timeZone === 'Etc/UTC';
    this.fmt = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** The local wall time of `t` as milliseconds of a naive (UTC-read) date. */
  wallOf(t: number): number {
    if (this.utc) return t;
    const p: Record<string, number> = {};
    for (const part of this.fmt.formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value);
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) + (((t % 1000) + 1000) % 1000);
  }

  /** UTC offset at instant `t`, in milliseconds. */
  offsetAt(t: number): number {
    return this.wallOf(t) - t;
  }

  /**
   * The instant of wall time `wall`: the first occurrence when the clock
   * repeats it, the end of the gap when the clock skips it.
   */
  instantOf(wall: number): number {
    const before = this.offsetAt(wall - DAY);
    const after = this.offsetAt(wall + DAY);
    // No transition within a day either side (nearly always): one offset.
    if (before === after && this.offsetAt(wall - before) === before) return wall - before;
    const offsets = new Set([before, this.offsetAt(wall), after]);
    let best: number | undefined;
    for (const o of offsets) {
      const t = wall - o;
      if (this.wallOf(t) === wall && (best === undefined || t < best)) best = t;
    }
    if (best !== undefined) return best;
    // In a gap: the transition lies between the instants the two offsets give.
    let lo = wall - Math.max(...offsets);
    let hi = wall - Math.min(...offsets);
    // Invariant: wallOf(lo) < wall < wallOf(hi); transitions fall on whole seconds.
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (this.wallOf(mid) > wall) hi = mid;
      else lo = mid;
    }
    return hi;
  }
}

/** The fire times of one cron expression in one time zone. */
export class FireTimes {
  private readonly cron: WallClockCron;
  private readonly clock: ZoneClock;

  /**
   * @param expression five cron fields or a macro (see @svc/timing).
   * @param clock the zone's wall clock (share one per zone: building it is the costly part).
   * @throws CronError for an expression the flow validator would refuse.
   */
  constructor(expression: string, clock: ZoneClock) {
    this.cron = wallClockCron(expression);
    this.clock = clock;
  }

  /** The first fire time strictly after `after`. */
  next(after: Date): Date {
    const t0 = after.getTime();
    // Wall times at or before wall(t0) all map to instants at or before t0 (see the header).
    for (const w of this.wallTimes(this.clock.wallOf(t0))) {
      const t = this.clock.instantOf(w);
      if (t > t0) return new Date(t);
    }
    throw new Error('unreachable: a cron sequence does not end');
  }

  /**
   * The fire times `t` with from <= t <= to, oldest first, at most `limit`
   * of them (backfills: exactly the instants `next` walks through).
   * Returns `limit + 1` items when there are more, so a caller can tell.
   */
  between(from: Date, to: Date, limit: number): Date[] {
    const out: Date[] = [];
    const end = to.getTime();
    let t = new Date(from.getTime() - 1);
    while (out.length <= limit) {
      t = this.next(t);
      if (t.getTime() > end) break;
      out.push(t);
    }
    return out;
  }

  /** Wall times strictly after `wall` (as naive milliseconds), lazily. */
  private *wallTimes(wall: number): Generator<number> {
    for (const w of this.cron.after(new Date(wall))) yield w.getTime();
  }

  /** The latest fire time at or before `at`, or null when there was none in the last 8 years. */
  latestAtOrBefore(at: Date): Date | null {
    const t0 = at.getTime();
    for (let window = 2 * MINUTE; window <= MAX_LOOKBACK_MS * 2; window *= 4) {
      // Walk forward from `window` before; in a repeated hour, wall times past
      // wall(t0) can still map to instants before t0, so walk by instants.
      let latest: number | null = null;
      for (const w of this.wallTimes(this.clock.wallOf(t0) - window - 1)) {
        const t = this.clock.instantOf(w);
        if (t > t0) break;
        latest = t;
      }
      if (latest !== null) return new Date(latest);
    }
    return null;
  }
}

/** FireTimes per expression and zone, with one ZoneClock per zone. Owned by one scheduler. */
export class FireTimesCache {
  private readonly clocks = new Map<string, ZoneClock>();
  private readonly schedules = new Map<string, FireTimes>();

  /** @throws CronError, RangeError (unknown zone) */
  get(expression: string, timeZone: string): FireTimes {
    const key = `${timeZone}\u0000${expression}`;
    let f = this.schedules.get(key);
    if (!f) {
      let clock = this.clocks.get(timeZone);
      if (!clock) this.clocks.set(timeZone, (clock = new ZoneClock(timeZone)));
      f = new FireTimes(expression, clock);
      // A bound: expressions come from flow files, but a long-lived process sees many edits.
      if (this.schedules.size > 50_000) this.schedules.clear();
      this.schedules.set(key, f);
    }
    return f;
  }
}
