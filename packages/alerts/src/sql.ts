// The statements of alert scanning and delivery (scanner.ts, deliverer.ts),
// one function per statement: the alert tables' writes, by their owner. What
// they read of executions comes from the engine's read model.
import type pg from 'pg';
import { newId } from '@svc/db';
import type { AlertRuleRow } from './rules.js';

type Q = pg.Pool | pg.PoolClient;

/** The scanner's cursor, locked for this transaction; undefined while another instance scans. */
export async function lockCursor(c: pg.PoolClient): Promise<{ ended_at: Date; execution_id: string } | undefined> {
  const r = await c.query<{ ended_at: Date; execution_id: string }>(`SELECT ended_at, execution_id FROM alert_scan_cursors WHERE name = 'executions' FOR UPDATE SKIP LOCKED`);
  return r.rows[0];
}

export async function moveCursor(c: pg.PoolClient, endedAt: Date, executionId: string): Promise<void> {
  await c.query(`UPDATE alert_scan_cursors SET ended_at = $1, execution_id = $2 WHERE name = 'executions'`, [endedAt, executionId]);
}

/** The database's clock minus `settleMs`: the scanner reads executions that ended up to then. */
export async function settledBound(c: Q, settleMs: number): Promise<Date> {
  const r = await c.query<{ t: Date }>(`SELECT now() - $1 * interval '1 millisecond' AS t`, [settleMs]);
  return r.rows[0].t;
}

export async function enabledRules(c: Q): Promise<AlertRuleRow[]> {
  const r = await c.query<AlertRuleRow>(
    `SELECT id, name, namespace, flow_id, events, late_after_seconds, schedule_grace_seconds, channels, rate_limit_per_hour, created_at
     FROM alert_rules WHERE enabled ORDER BY id`,
  );
  return r.rows;
}

const SCOPE = `(namespace = $1 OR namespace LIKE replace(replace($1, '_', '\\_'), '%', '\\%') || '.%') AND ($2::text IS NULL OR (namespace = $1 AND flow_id = $2))`;

/** Schedules of the rule's scope whose next fire time passed `seconds` ago without firing. */
export async function schedulesLate(
  c: Q,
  rule: AlertRuleRow,
  seconds: number,
  limit: number,
): Promise<{ namespace: string; flow_id: string; trigger_id: string; next_fire_at: Date }[]> {
  const r = await c.query<{ namespace: string; flow_id: string; trigger_id: string; next_fire_at: Date }>(
    `SELECT namespace, flow_id, trigger_id, next_fire_at FROM schedules
     WHERE next_fire_at < now() - $3 * interval '1 second' AND ${SCOPE}
     ORDER BY next_fire_at LIMIT $4`,
    [rule.namespace, rule.flow_id, seconds, limit],
  );
  return r.rows;
}

/** Alerts of a rule (distinct subject and event) written in the last hour and not suppressed. */
export async function alertsLastHour(c: Q, ruleId: string): Promise<number> {
  const r = await c.query<{ n: number }>(
    `SELECT count(DISTINCT (subject, event))::int AS n FROM alert_deliveries WHERE rule_id = $1 AND created_at > now() - interval '1 hour' AND status <> 'suppressed'`,
    [ruleId],
  );
  return r.rows[0].n;
}

export interface NewDelivery {
  ruleId: string;
  event: string;
  subject: string;
  executionId: string | null;
  namespace: string;
  flowId: string | null;
  channel: number;
  channelType: string;
  target: string;
  suppressed: boolean;
}

/** Writes a delivery unless one exists for (rule, subject, event, channel): true when written. */
export async function insertDelivery(c: Q, d: NewDelivery): Promise<boolean> {
  const r = await c.query(
    `INSERT INTO alert_deliveries (id, rule_id, event, subject, execution_id, namespace, flow_id, channel, channel_type, target, status, error)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (rule_id, subject, event, channel) DO NOTHING`,
    [
      newId(),
      d.ruleId,
      d.event,
      d.subject,
      d.executionId,
      d.namespace,
      d.flowId,
      d.channel,
      d.channelType,
      d.target,
      d.suppressed ? 'suppressed' : 'pending',
      d.suppressed ? "the rule's rate limit was reached" : '',
    ],
  );
  return (r.rowCount ?? 0) > 0;
}

export interface ClaimedDelivery {
  id: string;
  rule_id: string;
  event: string;
  subject: string;
  execution_id: string | null;
  namespace: string;
  flow_id: string | null;
  channel: number;
  attempts: number;
  message: unknown;
}

/** Claims due deliveries (pending and due, or sending with an expired claim) for this instance. */
export async function claimDeliveries(c: Q, instanceId: string, claimMs: number, limit: number): Promise<ClaimedDelivery[]> {
  const r = await c.query<ClaimedDelivery>(
    `UPDATE alert_deliveries SET status = 'sending', locked_by = $1, locked_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM alert_deliveries
       WHERE (status = 'pending' AND next_attempt_at <= now()) OR (status = 'sending' AND locked_until < now())
       ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
     RETURNING id, rule_id, event, subject, execution_id, namespace, flow_id, channel, attempts, message`,
    [instanceId, claimMs, limit],
  );
  return r.rows;
}

export async function saveMessage(c: Q, id: string, message: unknown): Promise<void> {
  await c.query(`UPDATE alert_deliveries SET message = $2 WHERE id = $1 AND message IS NULL`, [id, JSON.stringify(message)]);
}

export interface AttemptOutcome {
  ok: boolean;
  /** No further attempt: delivered, or failed for good. */
  final: boolean;
  httpStatus?: number;
  detail: string;
  durationMs: number;
  retryInMs: number;
}

/** Records an attempt and its delivery's new status, if this instance still holds the claim. */
export async function finishAttempt(pool: pg.Pool, d: ClaimedDelivery, instanceId: string, o: AttemptOutcome): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const status = o.ok ? 'delivered' : o.final ? 'failed' : 'pending';
    const r = await c.query(
      `UPDATE alert_deliveries SET status = $2, error = $3, next_attempt_at = now() + $4 * interval '1 millisecond',
         delivered_at = CASE WHEN $5 THEN now() ELSE delivered_at END, locked_by = NULL, locked_until = NULL
       WHERE id = $1 AND locked_by = $6`,
      [d.id, status, o.ok ? '' : o.detail, o.retryInMs, o.ok, instanceId],
    );
    if (r.rowCount) {
      await c.query(
        `INSERT INTO alert_delivery_attempts (id, delivery_id, number, ok, http_status, detail, duration_ms, instance_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (delivery_id, number) DO NOTHING`,
        [newId(), d.id, d.attempts, o.ok, o.httpStatus ?? null, o.detail.slice(0, 2000), Math.round(o.durationMs), instanceId],
      );
    }
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}
