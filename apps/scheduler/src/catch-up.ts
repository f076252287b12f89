// What a due schedule fires, per its `catch_up` (spec, Trigger): pure, the
// clock comes in as `now`.
//   - `last`: the latest fire time at or before now, however late it is (all
//     earlier missed times are dropped).
//   - `none`: no missed time. The latest time counts as on time (and fires)
//     only when it is at most `onTimeMs` old: a scheduler ticking every
//     second is always a little late, and a restart within the window loses
//     nothing.
// Either way the schedule then waits for the first fire time after now.
import { assertNever } from '@svc/assert';
import type { FireTimes } from './fire-times.js';

export type CatchUp = 'none' | 'last';

/** How late a fire time may be and still count as on time under `catch_up: none`. Default 60 s. */
export const ON_TIME_MS = 60_000;

export interface FireDecision {
  /** The time to fire now, or null when nothing fires. */
  fireTime: Date | null;
  /** Whether earlier fire times than the one fired (or any, when none fires) were dropped. */
  dropped: boolean;
  /** The next fire time to store (strictly after now). */
  next: Date;
}

export function decideFire(times: FireTimes, due: Date, now: Date, catchUp: CatchUp, onTimeMs = ON_TIME_MS): FireDecision {
  if (due.getTime() > now.getTime()) throw new Error(`decideFire on a schedule not due: ${due.toISOString()} > ${now.toISOString()}`);
  // `due` is itself a fire time (next() stored it). Walk on from it: on time
  // that is one step; after a long outage, jump to the latest time directly.
  let latest = due;
  let next = times.next(due);
  for (let steps = 0; next.getTime() <= now.getTime() && steps < 64; steps++) {
    latest = next;
    next = times.next(next);
  }
  if (next.getTime() <= now.getTime()) {
    latest = times.latestAtOrBefore(now) ?? latest;
    next = times.next(now);
  }
  const skippedEarlier = latest.getTime() > due.getTime();
  switch (catchUp) {
    case 'last':
      return { fireTime: latest, dropped: skippedEarlier, next };
    case 'none': {
      const onTime = now.getTime() - latest.getTime() <= onTimeMs;
      return { fireTime: onTime ? latest : null, dropped: skippedEarlier || !onTime, next };
    }
    default:
      return assertNever(catchUp, 'catch_up');
  }
}
