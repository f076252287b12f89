// A cron expression evaluated on wall-clock time: naive local dates read as
// UTC, a clock with no daylight-saving transitions. For callers that map
// wall-clock times to instants in a zone themselves (the scheduler applies
// the spec's rules for skipped and repeated times, which cron-parser's own
// time-zone mode does not). Parsed once, so walking many sequences is cheap.
import { CronExpressionParser } from 'cron-parser';
import { parseCron } from './cron.js';

export interface WallClockCron {
  /** The five fields it stands for (macros expanded). */
  readonly fields: string;
  /**
   * Wall-clock fire times strictly after `after`, in order, lazily. The
   * sequences share one parsed expression: consume one before starting another.
   */
  after(after: Date): Generator<Date, never>;
}

/** @throws CronError for an expression that is not a cron expression of the spec. */
export function wallClockCron(expression: string): WallClockCron {
  const { fields } = parseCron(expression);
  const expr = CronExpressionParser.parse(fields, { tz: 'UTC' });
  return {
    fields,
    *after(after: Date): Generator<Date, never> {
      expr.reset(after);
      for (;;) yield expr.next().toDate();
    },
  };
}
