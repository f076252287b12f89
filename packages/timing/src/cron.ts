// The one cron parser of the service: five fields (minute hour day-of-month
// month day-of-week) or @hourly, @daily, @weekly, @monthly, evaluated in an
// IANA time zone. Field ranges and names are checked by cron-parser; the
// shape (exactly five fields, the four macros) is ours, because cron-parser
// also accepts seconds fields and other macros the spec does not.
import { CronExpressionParser } from 'cron-parser';
import { isValidTimeZone } from './timezone.js';

export const CRON_MACROS: Readonly<Record<string, string>> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
};

/** A text is not a cron expression of the spec, or a time zone is unknown. */
export class CronError extends Error {
  override readonly name = 'CronError';
  constructor(
    readonly expression: string,
    readonly reason: string,
  ) {
    super(`invalid cron expression ${JSON.stringify(expression)}: ${reason}`);
  }
}

export interface CronSchedule {
  /** The expression as written. */
  readonly expression: string;
  /** The five fields it stands for (macros expanded). */
  readonly fields: string;
  /** Fire times strictly after `after`, in order, in time zone `timeZone` (default UTC). */
  nextTimes(after: Date, count: number, timeZone?: string): Date[];
  /** The first fire time strictly after `after`. */
  next(after: Date, timeZone?: string): Date;
}

const FIELD_NAMES = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'];

/** Parses a cron expression of the spec. @throws CronError with a reason a person can act on. */
export function parseCron(expression: string): CronSchedule {
  const text = expression.trim();
  let fields: string;
  if (text.startsWith('@')) {
    const f = CRON_MACROS[text];
    if (!f) throw new CronError(expression, `unknown macro ${text} (use ${Object.keys(CRON_MACROS).join(', ')})`);
    fields = f;
  } else {
    const parts = text.split(/\s+/).filter(Boolean);
    if (parts.length !== 5) {
      throw new CronError(expression, `expected five fields (${FIELD_NAMES.join(' ')}), got ${parts.length}`);
    }
    fields = parts.join(' ');
  }
  try {
    CronExpressionParser.parse(fields, { tz: 'UTC' });
  } catch (err) {
    throw new CronError(expression, humanize((err as Error).message));
  }
  const nextTimes = (after: Date, count: number, timeZone = 'UTC'): Date[] => {
    if (!isValidTimeZone(timeZone)) throw new CronError(expression, `unknown time zone ${JSON.stringify(timeZone)}`);
    const it = CronExpressionParser.parse(fields, { tz: timeZone, currentDate: after });
    return it.take(count).map((d) => d.toDate());
  };
  return {
    expression,
    fields,
    nextTimes,
    next: (after, timeZone) => nextTimes(after, 1, timeZone)[0],
  };
}

/** The reason a text is not a valid cron expression, or null when it is. */
export function cronProblem(expression: string): string | null {
  try {
    parseCron(expression);
    return null;
  } catch (err) {
    return err instanceof CronError ? err.reason : String(err);
  }
}

function humanize(message: string): string {
  // cron-parser says e.g. "Constraint error, got value 61 expected range 0-59".
  return message.replace(/^Constraint error, got value (\S+) expected range (\S+)$/, 'value $1 is outside the range $2').replace(/\.$/, '');
}
