// Alert rules as the scanner and the deliverer read them (rows of
// alert_rules, written by the gateway's /api/v1/alerts), and which events of
// an ended execution a rule raises. Pure: no I/O.
import { assertNever } from '@svc/assert';
import type { AlertEvent } from '@svc/vocabulary';

/** failed: FAILED; timed_out: TIMED_OUT; recovered: the first SUCCESS after a failure; late: running too long, or a schedule overdue. */
export { ALERT_EVENTS, type AlertEvent } from '@svc/vocabulary';

/** A channel as stored: secret values never, only references to secrets (their names). */
export type AlertChannel =
  { type: 'email'; organization: string; from: string; to: string } | { type: 'webhook'; url: string; signing_secret: string } | { type: 'slack'; url_secret: string };

export interface AlertRuleRow {
  id: string;
  name: string;
  namespace: string;
  flow_id: string | null;
  events: string[];
  late_after_seconds: number | null;
  schedule_grace_seconds: number | null;
  channels: AlertChannel[];
  rate_limit_per_hour: number;
  created_at: Date;
}

/** Whether an execution of `namespace`/`flowId` is in the rule's scope: its namespace or a child, or its one flow. */
export function inScope(rule: Pick<AlertRuleRow, 'namespace' | 'flow_id'>, namespace: string, flowId: string | null): boolean {
  if (rule.flow_id !== null) return namespace === rule.namespace && flowId === rule.flow_id;
  return namespace === rule.namespace || namespace.startsWith(`${rule.namespace}.`);
}

/**
 * The event an ended execution raises for a rule, before `recovered` is
 * checked against the flow's previous execution: failed or timed_out for
 * those states, `recovered?` for a success of a flow when the rule asks for
 * recoveries, else none.
 */
export function endEvent(rule: Pick<AlertRuleRow, 'events'>, state: string, flowId: string | null): AlertEvent | 'recovered?' | null {
  if (state === 'FAILED' && rule.events.includes('failed')) return 'failed';
  if (state === 'TIMED_OUT' && rule.events.includes('timed_out')) return 'timed_out';
  if (state === 'SUCCESS' && flowId !== null && rule.events.includes('recovered')) return 'recovered?';
  return null;
}

/** Where a channel sends, without any secret: an address, a URL's origin and path, or a secret's name. */
export function channelTarget(c: AlertChannel): string {
  switch (c.type) {
    case 'email':
      return c.to;
    case 'webhook': {
      try {
        const u = new URL(c.url);
        return `${u.origin}${u.pathname}`;
      } catch {
        return 'webhook';
      }
    }
    case 'slack':
      return `secret ${c.url_secret}`;
    default:
      return assertNever(c);
  }
}
