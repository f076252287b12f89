// The template values of an execution's time: `trigger.date`, the fire time
// a schedule-triggered or backfilled execution is for, and
// `execution.start_date`. The scheduler (and a backfill) records the fire time
// in UTC with the schedule's time zone in `trigger_payload`
// ({ fire_time, schedule, cron, timezone[, backfill] }); a rerun or restart
// carries the two fields over (rerun.ts), so it renders the same date.

/** A formatter per time zone: they are costly to build. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    if (formatters.size > 500) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * `t` as RFC 3339 local time of `timeZone` with its UTC offset then
 * (`2026-03-29T03:00:00+02:00`; `+00:00` in UTC), milliseconds only when not
 * zero. Throws RangeError for a time zone the runtime does not know.
 */
export function rfc3339InZone(t: Date, timeZone: string): string {
  const ms = t.getTime();
  const p: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const wholeSeconds = Math.floor(ms / 1000) * 1000;
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  const offsetMinutes = Math.round((wall - wholeSeconds) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const frac = ms - wholeSeconds;
  return (
    `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}` +
    `${frac ? `.${pad(frac, 3)}` : ''}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** `trigger.date` of an execution from its trigger payload, or undefined when it has no fire time. */
export function triggerDateOf(payload: Record<string, unknown> | null | undefined): string | undefined {
  const fire = payload?.fire_time;
  if (typeof fire !== 'string') return undefined;
  const t = new Date(fire);
  if (Number.isNaN(t.getTime())) return undefined;
  const zone = typeof payload!.timezone === 'string' && payload!.timezone ? payload!.timezone : 'UTC';
  try {
    return rfc3339InZone(t, zone);
  } catch {
    // A zone this runtime no longer knows: the instant in UTC, still the right time.
    return rfc3339InZone(t, 'UTC');
  }
}

/**
 * The trigger payload key of the recipes of trigger inputs that read
 * secret() (templates/defer-secrets.ts of @svc/flow-schema): input id →
 * a template of literal text and secret() calls only, no value in it.
 */
export const SECRET_INPUTS_KEY = 'secret_inputs';

/** The recipes of an execution's secret-reading inputs (SECRET_INPUTS_KEY), by input id. */
export function secretInputsOf(payload: Record<string, unknown> | null | undefined): Record<string, string> {
  const r = payload?.[SECRET_INPUTS_KEY];
  if (!r || typeof r !== 'object' || Array.isArray(r)) return {};
  return Object.fromEntries(Object.entries(r).filter(([, v]) => typeof v === 'string'));
}

/**
 * The trigger payload fields a rerun or restart carries over, since it
 * copies the inputs: the fire time (the same `trigger.date`) and the recipes
 * of secret-reading inputs (whose stored values are masked).
 */
export function carriedPayloadFields(payload: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const secretInputs = secretInputsOf(payload);
  return {
    ...(typeof payload?.fire_time === 'string' ? { fire_time: payload.fire_time, ...(typeof payload.timezone === 'string' ? { timezone: payload.timezone } : {}) } : {}),
    ...(Object.keys(secretInputs).length ? { [SECRET_INPUTS_KEY]: secretInputs } : {}),
  };
}

/** `execution.start_date`: when the execution started (else, not started yet, when it was created), RFC 3339 in UTC. */
export function startDateOf(startedAt: Date | string | null | undefined, createdAt: Date | string): string {
  return new Date(startedAt ?? createdAt).toISOString();
}
