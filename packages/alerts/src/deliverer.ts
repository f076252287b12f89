// The alert deliverer: sends alert_deliveries, the jobs of the alert outbox
// (delivery-queue.ts, on @svc/jobs). Every maintenance instance runs one;
// deliveries are claimed with FOR UPDATE SKIP LOCKED (a claim holds a row
// `sending` until locked_until), so two instances never send one at the same
// time; one that dies mid-send leaves it to be claimed again once the claim
// passes (at least once; a webhook receiver tells repeats apart by the
// X-Svc-Alert-Delivery header). Each try is an alert_delivery_attempts row,
// written with the outcome. Temporary failures are retried with exponential
// backoff up to MAX_ATTEMPTS (the queue's retry policy, ALERT_RETRY).
//
// Channels:
// - email: queued through the organization email interface (@svc/identity
//   queueEmail: the organization's verified senders and daily quota), then
//   sent over SMTP by the mail senders, only while the organization lists
//   the rule's namespace (an admin may have taken it off since the rule was
//   saved: the delivery then fails for good, with that reason);
// - webhook: POST of the JSON message, signed: X-Svc-Alert-Signature is
//   `sha256=` and the hex HMAC-SHA256, keyed by the secret the channel names,
//   of `<timestamp>.<body>`, with the Unix seconds in X-Svc-Alert-Timestamp
//   (a receiver refuses old timestamps against replay);
// - slack: POST of `{"text": ...}` to the incoming-webhook URL stored in the
//   secret the channel names.
// Secrets resolve in the rule's namespace (then its parents, then global).
// Unless SVC_ALERT_ALLOW_PRIVATE_TARGETS, a webhook or Slack URL whose host is
// or resolves to a loopback, private, link-local or other non-public address
// is refused for good (@svc/net-guard: against server-side request forgery);
// redirects are never followed.
import { createHmac } from 'node:crypto';
import type { MasterKey } from '@svc/config';
import type { Db, Notifier } from '@svc/db';
import { organizationAllows, organizationForAlerts, parseMailbox, queueEmail, senderAllowed, sendersOfOrganization } from '@svc/identity';
import type { Logger } from '@svc/logging';
import { SecretStore } from '@svc/secrets';
import { saveMessage } from './sql.js';
import { ALERT_QUEUED_CHANNEL, ALERT_RETRY, claimDeliveries, finishAttempt, type AttemptOutcome, type ClaimedDelivery } from './delivery-queue.js';
import { buildMessage, type AlertMessage } from './message.js';
import { maskText } from '@svc/masking';
import { assertNever } from '@svc/assert';
import type { AlertChannel } from './rules.js';
import { JobWorker } from '@svc/jobs';
import { checkedAddress, postTo, RefusedTarget, systemResolve, type Resolve } from '@svc/net-guard';

export const POLL_MS = 2_000;
export const CLAIM_MS = 2 * 60_000;
export const MAX_ATTEMPTS = ALERT_RETRY.maxAttempts;
/** First retry delay, doubled per attempt, at most an hour. */
export const FIRST_RETRY_MS = ALERT_RETRY.initialMs;
export const HTTP_TIMEOUT_MS = 10_000;
const BATCH = 10;

export interface AlertDelivererOptions {
  db: Db;
  /** The process's shared notifier (ServiceContext.notifier): wakes the deliverer on svc_alert_queued. */
  notifier: Notifier;
  log: Logger;
  instanceId: string;
  /** SVC_PUBLIC_URL: the executions' URLs in messages. */
  publicUrl: string;
  masterKeys: readonly MasterKey[];
  /** SVC_ORG_DAILY_QUOTA: the quota of an organization without its own. */
  orgDailyQuota: number;
  /** SVC_ALERT_ALLOW_PRIVATE_TARGETS: webhooks may reach loopback, private and other non-public addresses. */
  allowPrivateTargets: boolean;
  /** How host names are resolved; default the system resolver (a test maps its own names). */
  resolve?: Resolve;
  /** Also runs the scanner before each delivery pass (every instance may: the cursor is taken SKIP LOCKED). */
  scan?: () => Promise<number>;
  pollMs?: number;
  firstRetryMs?: number;
  claimMs?: number;
  /** Told the outcome of each attempt (maintenance counts them: svc_alert_deliveries_total). */
  onAttempt?: (channel: AlertChannel['type'] | 'unknown', outcome: DeliveryOutcome) => void;
}

/** An attempt's outcome: delivered, failed for good (permanent, or the last attempt), or to be retried. */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

class PermanentFailure extends Error {}

export class AlertDeliverer {
  private readonly passes: JobWorker;
  private readonly secrets: SecretStore;

  constructor(private readonly o: AlertDelivererOptions) {
    this.passes = new JobWorker({
      notifier: o.notifier,
      channel: ALERT_QUEUED_CHANNEL,
      pollMs: o.pollMs ?? POLL_MS,
      log: o.log,
      what: 'alerts',
      pass: () => this.pass(),
    });
    this.secrets = SecretStore.withProviders(o.db.pool, o.masterKeys);
  }

  start(): Promise<void> {
    return this.passes.start();
  }

  /** Runs a pass now, or right after the one running. */
  kick(): void {
    this.passes.kick();
  }

  private async pass(): Promise<void> {
    if (this.o.scan) await this.o.scan();
    for (;;) {
      const batch = await claimDeliveries(this.o.db.pool, this.o.instanceId, this.o.claimMs ?? CLAIM_MS, BATCH);
      if (!batch.length) return;
      await Promise.all(batch.map((d) => this.deliver(d)));
      if (this.passes.stopped) return;
    }
  }

  private async deliver(d: ClaimedDelivery): Promise<void> {
    const started = performance.now();
    let outcome: AttemptOutcome;
    let channelType: AlertChannel['type'] | 'unknown' = 'unknown';
    const masks: string[] = [];
    try {
      const rule = (
        await this.o.db.pool.query<{ id: string; name: string; namespace: string; channels: AlertChannel[] }>(
          `SELECT id, name, namespace, channels FROM alert_rules WHERE id = $1`,
          [d.data.rule_id],
        )
      ).rows[0];
      if (!rule) throw new PermanentFailure('the rule was deleted');
      const channel = rule.channels[d.data.channel];
      if (!channel) throw new PermanentFailure('the channel was removed from the rule');
      channelType = channel.type;
      let message = d.data.message as AlertMessage | null;
      if (!message) {
        message = await buildMessage(this.o.db.pool, d.data, rule, { publicUrl: this.o.publicUrl.replace(/\/+$/, ''), secrets: this.secrets });
        await saveMessage(this.o.db.pool, d.key, message);
      }
      const sent = await this.send(d, rule.namespace, channel, message, (v) => masks.push(v));
      outcome = {
        ok: true,
        permanent: false,
        detail: sent.detail,
        durationMs: performance.now() - started,
        ...(sent.httpStatus !== undefined ? { httpStatus: sent.httpStatus } : {}),
      };
    } catch (err) {
      const e = err as Error & { httpStatus?: number };
      outcome = {
        ok: false,
        permanent: err instanceof PermanentFailure,
        detail: maskText(e.message ?? String(err), masks),
        durationMs: performance.now() - started,
        ...(e.httpStatus !== undefined ? { httpStatus: e.httpStatus } : {}),
      };
    }
    const retry = this.o.firstRetryMs !== undefined ? { initialMs: this.o.firstRetryMs } : undefined;
    const { final, held } = await finishAttempt(this.o.db.pool, d, this.o.instanceId, outcome, retry);
    if (held) this.o.onAttempt?.(channelType, outcome.ok ? 'delivered' : final ? 'failed' : 'retrying');
    if (!outcome.ok && held) {
      this.o.log[final ? 'warn' : 'info'](final ? 'alert delivery failed' : 'alert not delivered; retrying', { delivery_id: d.key, attempt: d.attempt, error: outcome.detail });
    }
  }

  private async secret(namespace: string, reference: string, remember: (v: string) => void): Promise<string> {
    try {
      const v = (await this.secrets.resolve(namespace, reference)).value;
      remember(v);
      return v;
    } catch (err) {
      throw new PermanentFailure(`secret ${reference} cannot be read in namespace ${namespace}: ${(err as Error).name}`);
    }
  }

  private async send(d: ClaimedDelivery, namespace: string, c: AlertChannel, m: AlertMessage, remember: (v: string) => void): Promise<{ detail: string; httpStatus?: number }> {
    switch (c.type) {
      case 'email':
        return this.email(d, namespace, c, m);
      case 'webhook': {
        const key = await this.secret(namespace, c.signing_secret, remember);
        const body = JSON.stringify({ delivery_id: d.key, ...m });
        const ts = String(Math.floor(Date.now() / 1000));
        const signature = createHmac('sha256', key).update(`${ts}.${body}`).digest('hex');
        return this.post(c.url, body, {
          'X-Svc-Alert-Delivery': d.key,
          'X-Svc-Alert-Timestamp': ts,
          'X-Svc-Alert-Signature': `sha256=${signature}`,
          'X-Svc-Alert-Event': d.data.event,
        });
      }
      case 'slack': {
        const url = await this.secret(namespace, c.url_secret, remember);
        return this.post(url, JSON.stringify({ text: m.text }), {}, `secret ${c.url_secret}`);
      }
      default:
        return assertNever(c);
    }
  }

  private async email(d: ClaimedDelivery, namespace: string, c: Extract<AlertChannel, { type: 'email' }>, m: AlertMessage): Promise<{ detail: string }> {
    const org = await organizationForAlerts(this.o.db.pool, c.organization);
    if (!org) throw new PermanentFailure(`no organization ${c.organization}`);
    if (!organizationAllows(org.namespaces, namespace)) {
      throw new PermanentFailure(`organization ${c.organization} does not allow namespace ${namespace} (any more): not sent; an admin lists the namespaces that may send as it`);
    }
    const from = parseMailbox(c.from);
    if (!from || !senderAllowed(from, await sendersOfOrganization(this.o.db.pool, org.id))) {
      throw new PermanentFailure(`from ${c.from} is not a verified sender of organization ${c.organization}`);
    }
    // The email's id is the delivery's: a retry after a crash between queueing and recording finds it queued already.
    const exists = await this.o.db.pool.query(`SELECT 1 FROM emails WHERE id = $1`, [d.key]);
    if (exists.rowCount) return { detail: `queued as email ${d.key}` };
    const take = await queueEmail(
      this.o.db.pool,
      { id: d.key, organizationId: org.id, keyId: null, from: c.from, to: c.to, subject: m.subject, text: m.text },
      org.daily_quota ?? this.o.orgDailyQuota,
    );
    if (!take.taken) throw new Error(`organization ${c.organization} used its daily email quota (${take.used}); retried later`);
    return { detail: `queued as email ${d.key}` };
  }

  private async post(url: string, body: string, headers: Record<string, string>, shownAs = url): Promise<{ detail: string; httpStatus: number }> {
    let res: { status: number; location: string | undefined; text: string };
    try {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        throw new RefusedTarget('not a URL');
      }
      const at = await checkedAddress(target, { allowPrivate: this.o.allowPrivateTargets, resolve: this.o.resolve ?? systemResolve });
      res = await postTo(target, at, body, { 'Content-Type': 'application/json', 'User-Agent': 'svc-alerts', ...headers }, HTTP_TIMEOUT_MS);
    } catch (err) {
      const text = `POST ${shownAs}: ${(err as Error).message}`;
      throw err instanceof RefusedTarget ? new PermanentFailure(text) : new Error(text);
    }
    if (res.status >= 200 && res.status < 300) return { detail: `HTTP ${res.status}`, httpStatus: res.status };
    if (res.status >= 300 && res.status < 400) {
      throw Object.assign(new PermanentFailure(`HTTP ${res.status}: redirects are not followed${res.location ? ` (Location ${res.location.slice(0, 200)})` : ''}`), {
        httpStatus: res.status,
      });
    }
    const temporary = res.status >= 500 || res.status === 408 || res.status === 429;
    const e = temporary ? new Error(`HTTP ${res.status}: ${res.text}`) : new PermanentFailure(`HTTP ${res.status}: ${res.text}`);
    throw Object.assign(e, { httpStatus: res.status });
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }
}
