// The alert scanner: turns execution ends and lateness into alert deliveries.
//
// How events reach it: by a cursor over ended executions, (ended_at, id),
// stored in alert_scan_cursors. The engine writes nothing for alerts, so its
// hot path has no extra statement whether rules exist or not. A pass takes
// the cursor row FOR UPDATE SKIP LOCKED (one instance scans at a time; the
// others skip), reads executions that ended after it and at least
// `settleMs` before the database's now (an end committed a little after its
// ended_at is still seen), writes deliveries with ON CONFLICT DO NOTHING on
// (rule, subject, event, channel) (they are jobs of the alert outbox,
// delivery-queue.ts: each one written wakes the deliverers once the
// transaction commits), and moves the cursor in the same transaction. A
// crash rolls back both, and a re-scan writes nothing twice.
// Without an enabled rule a pass only moves the cursor to the settled bound.
//
// Approval requests too: task runs of a rule's scope that reached their
// approval gate in the last hour and after the rule was made, decided since
// or not, one delivery per task run (subject `approval:<task run id>`).
//
// Lateness is checked in the same pass: executions of a rule's scope still
// RUNNING late_after_seconds after their start, and schedules whose
// next_fire_at passed schedule_grace_seconds ago. Their deliveries have the
// same unique key, so one alert per execution (or per due fire time).
//
// Rate limit: a rule past rate_limit_per_hour alerts in the last hour gets
// further ones recorded `suppressed` (visible, never sent).
import type { Db } from '@svc/db';
import type { Logger } from '@svc/logging';
import { approvalRequests, endedAfter, previousEndState, runningLongerThan, type EndedExecution } from '@svc/engine/read-models';
import { alertsLastHour, enabledRules, lockCursor, moveCursor, schedulesLate, settledBound } from './sql.js';
import { enqueueDelivery } from './delivery-queue.js';
import { channelTarget, endEvent, inScope, type AlertEvent, type AlertRuleRow } from './rules.js';

/** How long after its ended_at an execution is read (commit delay and clock skew between instances). */
export const SETTLE_MS = 5_000;
const BATCH = 500;
const LATE_LIMIT = 100;
/** Approval requests are looked for this far back (deliveries are unique per task run, so a re-scan sends nothing twice). */
const APPROVAL_LOOKBACK_MS = 3_600_000;
const APPROVAL_LIMIT = 500;

export interface AlertScannerOptions {
  db: Db;
  log: Logger;
  settleMs?: number;
}

export class AlertScanner {
  constructor(private readonly o: AlertScannerOptions) {}

  /** One pass; the number of deliveries written (0 as well when another instance holds the cursor). */
  async pass(): Promise<number> {
    const c = await this.o.db.pool.connect();
    let written = 0;
    try {
      await c.query('BEGIN');
      const cursor = await lockCursor(c);
      if (!cursor) {
        await c.query('ROLLBACK');
        return 0;
      }
      const bound = await settledBound(c, this.o.settleMs ?? SETTLE_MS);
      const rules = await enabledRules(c);
      if (!rules.length) {
        if (bound > cursor.ended_at) await moveCursor(c, bound, '');
        await c.query('COMMIT');
        return 0;
      }
      const budget = new Map<string, number>();
      const write = async (rule: AlertRuleRow, event: AlertEvent, subject: string, where: { executionId: string | null; namespace: string; flowId: string | null }) => {
        let used = budget.get(rule.id);
        if (used === undefined) used = await alertsLastHour(c, rule.id);
        const suppressed = used >= rule.rate_limit_per_hour;
        let any = false;
        for (const [i, ch] of rule.channels.entries()) {
          const ok = await enqueueDelivery(c, { ruleId: rule.id, event, subject, ...where, channel: i, channelType: ch.type, target: channelTarget(ch), suppressed });
          if (ok) any = true;
        }
        if (any) {
          written++;
          if (!suppressed) used++;
        }
        budget.set(rule.id, used);
      };

      let after = cursor;
      for (;;) {
        const ended = await endedAfter(c, after, bound, BATCH);
        for (const e of ended) await this.ended(c, rules, e, write);
        if (ended.length < BATCH) {
          after = { ended_at: bound, execution_id: '' };
          break;
        }
        const last = ended[ended.length - 1];
        after = { ended_at: last.ended_at, execution_id: last.id };
      }
      await moveCursor(c, after.ended_at, after.execution_id);

      for (const rule of rules) {
        // A task run that reached its approval gate: one alert per gate reached (its task run), after the rule was made and within the last hour.
        if (rule.events.includes('approval_requested')) {
          const since = new Date(Math.max(rule.created_at.getTime(), Date.now() - APPROVAL_LOOKBACK_MS));
          for (const a of await approvalRequests(c, { namespace: rule.namespace, flowId: rule.flow_id }, since, APPROVAL_LIMIT)) {
            await write(rule, 'approval_requested', `approval:${a.task_run_id}`, { executionId: a.execution_id, namespace: a.namespace, flowId: a.flow_id });
          }
        }
        if (!rule.events.includes('late')) continue;
        if (rule.late_after_seconds !== null) {
          for (const e of await runningLongerThan(c, { namespace: rule.namespace, flowId: rule.flow_id }, rule.late_after_seconds, LATE_LIMIT)) {
            await write(rule, 'late', e.id, { executionId: e.id, namespace: e.namespace, flowId: e.flow_id });
          }
        }
        if (rule.schedule_grace_seconds !== null) {
          for (const s of await schedulesLate(c, rule, rule.schedule_grace_seconds, LATE_LIMIT)) {
            const subject = `schedule:${s.namespace}/${s.flow_id}/${s.trigger_id}@${s.next_fire_at.toISOString()}`;
            await write(rule, 'late', subject, { executionId: null, namespace: s.namespace, flowId: s.flow_id });
          }
        }
      }
      await c.query('COMMIT');
      return written;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  private async ended(
    c: import('pg').PoolClient,
    rules: AlertRuleRow[],
    e: EndedExecution,
    write: (rule: AlertRuleRow, event: AlertEvent, subject: string, where: { executionId: string | null; namespace: string; flowId: string | null }) => Promise<void>,
  ): Promise<void> {
    let previous: string | undefined | null = null;
    for (const rule of rules) {
      // A rule sees executions that ended after it was made, not the past.
      if (e.ended_at < rule.created_at || !inScope(rule, e.namespace, e.flow_id)) continue;
      const ev = endEvent(rule, e.state, e.flow_id);
      if (ev === null) continue;
      let event: AlertEvent;
      if (ev === 'recovered?') {
        if (previous === null) previous = await previousEndState(c, e);
        if (previous !== 'FAILED' && previous !== 'TIMED_OUT') continue;
        event = 'recovered';
      } else {
        event = ev;
      }
      await write(rule, event, e.id, { executionId: e.id, namespace: e.namespace, flowId: e.flow_id });
    }
  }
}
