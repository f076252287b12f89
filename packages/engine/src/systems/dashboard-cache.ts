// The rolled-up hours' figures a process keeps between dashboard requests,
// per filter (a namespace, all of them, or a caller's readable ones), so that a request fetches only the hours it has not
// seen: on the benchmark, ~400,000 durations (3 MB) for a 30-day window at
// the first request, one hour's at the next ones.
//
// Nothing here is trusted on its own: every request reads the versions of
// the marks in the statement that reads the open hour (one snapshot), and
// takes an hour from here only when its version is the one read. A mark
// deleted or rolled up again, by any instance, is a new version or no mark.
import type { Figures } from '../sql/dashboard-hours.js';

export interface KeptHour extends Figures {
  version: string;
}

/** Default bound on the durations kept, all filters together: 4,000,000 (32 MB). */
const MAX_VALUES = 4_000_000;

export class DashboardHoursCache {
  /** Per filter (namespace, '' for all, or another key the caller chose), per hour (ms): in least recently used order of the filters. */
  private readonly filters = new Map<string, Map<number, KeptHour>>();

  /** @param maxValues Durations kept at most, all filters together; the least recently used filters go first. Default 4,000,000. */
  constructor(private readonly maxValues = MAX_VALUES) {}

  /** The hours of [from, to) kept for `filter` (a copy: requests run concurrently). */
  kept(filter: string | null, from: Date, to: Date): Map<number, KeptHour> {
    const out = new Map<number, KeptHour>();
    for (const [h, e] of this.filters.get(filter ?? '') ?? []) if (h >= from.getTime() && h < to.getTime()) out.set(h, e);
    return out;
  }

  /**
   * After a request over [from, to): its marked hours are exactly `marked`
   * (any other kept hour of that window lost its mark); hours before
   * `forgetBefore` are dropped.
   */
  update(filter: string | null, from: Date, to: Date, marked: ReadonlyMap<number, KeptHour>, forgetBefore: Date): void {
    const key = filter ?? '';
    const hours = this.filters.get(key) ?? new Map<number, KeptHour>();
    for (const h of hours.keys()) if (h < forgetBefore.getTime() || (h >= from.getTime() && h < to.getTime() && !marked.has(h))) hours.delete(h);
    for (const [h, e] of marked) hours.set(h, e);
    // Most recently used last.
    this.filters.delete(key);
    this.filters.set(key, hours);
    let values = 0;
    for (const f of this.filters.values()) for (const e of f.values()) values += e.durations.length;
    for (const [k, f] of this.filters) {
      if (values <= this.maxValues || k === key) break;
      for (const e of f.values()) values -= e.durations.length;
      this.filters.delete(k);
    }
  }
}
