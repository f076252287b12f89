/**
 * What an alert rule may watch: `failed`, `timed_out` (an execution ended so),
 * `recovered` (the first success of a flow after a failure), `late` (an
 * execution still running, or a schedule past its fire time, too long),
 * `approval_requested` (a task of an execution waits for a person's approval).
 */
export const ALERT_EVENTS = ['failed', 'timed_out', 'recovered', 'late', 'approval_requested'] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

export function isAlertEvent(x: unknown): x is AlertEvent {
  return typeof x === 'string' && (ALERT_EVENTS as readonly string[]).includes(x);
}
