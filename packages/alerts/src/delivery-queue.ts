// The alert outbox: rows of `alert_deliveries` are jobs of @svc/jobs's queue,
// on this table's own columns: status pending -> sending -> delivered |
// failed (and `suppressed`, written by the scanner past a rule's rate limit,
// which the queue never claims), attempts, next_attempt_at, the claim in
// locked_by / locked_until. The scanner enqueues (one job per rule, subject,
// event and channel: a re-scan writes nothing twice); deliverers claim due
// deliveries with FOR UPDATE SKIP LOCKED, so two maintenance processes never
// send one at the same time, and record each outcome together with its row
// of `alert_delivery_attempts`, in one transaction, only while the claim is
// theirs.
import type pg from 'pg';
import { newId } from '@svc/db';
import { JobQueue, NOW, type Job, type JobDb, type RetryPolicy } from '@svc/jobs';
import { insertAttempt } from './sql.js';

/** The channel whose NOTIFY (payload: the delivery id) wakes the deliverers when deliveries were written. */
export const ALERT_QUEUED_CHANNEL = 'svc_alert_queued';

/** What a deliverer needs of a claimed delivery. */
export interface DeliveryJob extends Record<string, unknown> {
  rule_id: string;
  event: string;
  subject: string;
  execution_id: string | null;
  namespace: string;
  flow_id: string | null;
  channel: number;
  message: unknown;
}

/** A delivery a deliverer claimed: `key` is its id, `attempt` counts from 1. */
export type ClaimedDelivery = Job<DeliveryJob>;

/** Retries of a delivery: 8 attempts in all, the first retry after 5 s, doubling up to an hour. */
export const ALERT_RETRY: RetryPolicy = { maxAttempts: 8, backoff: 'exponential', initialMs: 5_000, maxMs: 3_600_000 };

/** The alert outbox, with ALERT_RETRY or parts of it replaced (a test's short first retry). */
export function deliveryQueue(retry: Partial<RetryPolicy> = {}): JobQueue<DeliveryJob> {
  return new JobQueue<DeliveryJob>(
    {
      table: 'alert_deliveries',
      unique: ['rule_id', 'subject', 'event', 'channel'],
      states: { queued: 'pending', running: 'sending', succeeded: 'delivered', failed: 'failed' },
      returning: ['rule_id', 'event', 'subject', 'execution_id', 'namespace', 'flow_id', 'channel', 'message'],
      channel: ALERT_QUEUED_CHANNEL,
    },
    { ...ALERT_RETRY, ...retry },
  );
}

const DELIVERIES = deliveryQueue();

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
  /** Past the rule's rate limit: written `suppressed` (visible, never sent). */
  suppressed: boolean;
}

/**
 * Writes a delivery unless one exists for (rule, subject, event, channel),
 * and wakes the deliverers when the caller's transaction commits. True when
 * written.
 */
export function enqueueDelivery(db: JobDb, d: NewDelivery): Promise<boolean> {
  return DELIVERIES.enqueue(db, {
    id: newId(),
    rule_id: d.ruleId,
    event: d.event,
    subject: d.subject,
    execution_id: d.executionId,
    namespace: d.namespace,
    flow_id: d.flowId,
    channel: d.channel,
    channel_type: d.channelType,
    target: d.target,
    status: d.suppressed ? 'suppressed' : 'pending',
    error: d.suppressed ? "the rule's rate limit was reached" : '',
  });
}

/** Claims up to `limit` due deliveries (pending and due, or `sending` with a lapsed claim) for `instanceId`, holding each `claimMs`. */
export function claimDeliveries(db: JobDb, instanceId: string, claimMs: number, limit: number): Promise<ClaimedDelivery[]> {
  return DELIVERIES.claim(db, instanceId, { leaseMs: claimMs, limit });
}

/** How one attempt went. */
export interface AttemptOutcome {
  ok: boolean;
  /** A failure no later attempt can mend (a refused target, a deleted rule). */
  permanent: boolean;
  httpStatus?: number;
  detail: string;
  durationMs: number;
}

/**
 * Records an attempt: the delivery `delivered`, or pending again as the retry
 * policy says, or `failed` for good (permanent, or its last attempt), and its
 * row of alert_delivery_attempts, in one transaction and only while
 * `instanceId` still holds the claim. Whether it was final (nothing more will
 * be tried) and held (written).
 */
export async function finishAttempt(
  pool: pg.Pool,
  d: ClaimedDelivery,
  instanceId: string,
  o: AttemptOutcome,
  retry?: Partial<RetryPolicy>,
): Promise<{ final: boolean; held: boolean }> {
  const queue = retry ? deliveryQueue(retry) : DELIVERIES;
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const out = o.ok
      ? { final: true, held: await queue.succeed(c, d, instanceId, { delivered_at: NOW }) }
      : await queue.fail(c, d, instanceId, { error: o.detail, permanent: o.permanent });
    if (out.held) {
      await insertAttempt(c, { deliveryId: d.key, number: d.attempt, ok: o.ok, httpStatus: o.httpStatus ?? null, detail: o.detail, durationMs: o.durationMs, instanceId });
    }
    await c.query('COMMIT');
    return { final: out.final, held: out.held };
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}
