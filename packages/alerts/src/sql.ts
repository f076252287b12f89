// The statements of alert scanning and delivery (scanner.ts, deliverer.ts),
// one function per statement: the alert tables' writes, by their owner, besides
// the outbox's claims and outcomes, which run through the job queue declared
// in delivery-queue.ts. What they read of executions comes from the engine's
// read model.
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

export async function saveMessage(c: Q, id: string, message: unknown): Promise<void> {
  await c.query(`UPDATE alert_deliveries SET message = $2 WHERE id = $1 AND message IS NULL`, [id, JSON.stringify(message)]);
}

/** Appends one try of a delivery to its log (in the transaction that records the outcome: delivery-queue.ts). */
export async function insertAttempt(
  c: Q,
  a: { deliveryId: string; number: number; ok: boolean; httpStatus: number | null; detail: string; durationMs: number; instanceId: string },
): Promise<void> {
  await c.query(
    `INSERT INTO alert_delivery_attempts (id, delivery_id, number, ok, http_status, detail, duration_ms, instance_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (delivery_id, number) DO NOTHING`,
    [newId(), a.deliveryId, a.number, a.ok, a.httpStatus, a.detail.slice(0, 2000), Math.round(a.durationMs), a.instanceId],
  );
}
