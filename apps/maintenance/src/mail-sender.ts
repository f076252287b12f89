// The mail sender: delivers the emails of the organization email interface
// (rows of `emails`, queued by POST /api/v1/emails) through SVC_SMTP_URL.
// Every maintenance instance runs one, not only the lease holder: senders
// claim rows with FOR UPDATE SKIP LOCKED, so any number of them send each
// email once. A claim holds the row `sending` until `locked_until`; a sender
// that dies mid-send leaves it to be claimed again once that passes (so an
// email whose SMTP transaction completed just before the death may be sent a
// second time: at least once, never lost). Temporary failures (SMTP 4xx,
// connection errors) are retried with exponential backoff up to MAX_ATTEMPTS;
// a permanent refusal (5xx) or the last attempt ends the email `failed` with
// the server's answer in `error`. Woken by NOTIFY svc_email_queued, polling
// every POLL_MS as the backstop.
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { Notifier, type Db } from '@svc/db';
import type { Logger } from '@svc/logging';

export const EMAIL_QUEUED_CHANNEL = 'svc_email_queued';
export const POLL_MS = 2_000;
/** How long a claim holds a row: longer than any SMTP transaction (the transport's own timeouts are 60 s). */
export const CLAIM_MS = 3 * 60_000;
export const MAX_ATTEMPTS = 8;
/** First retry delay, doubled per attempt, at most an hour. */
export const FIRST_RETRY_MS = 5_000;
const BATCH = 10;

export interface MailSenderOptions {
  db: Db;
  smtpUrl: string;
  instanceId: string;
  log: Logger;
  pollMs?: number;
  firstRetryMs?: number;
  claimMs?: number;
}

interface Claimed {
  id: string;
  from_address: string;
  to_address: string;
  subject: string;
  text: string;
  attempts: number;
}

/** Whether an SMTP failure may pass on a later attempt: a 4xx answer, or no answer at all (connection, timeout). */
export function isTemporary(err: unknown): boolean {
  const code = (err as { responseCode?: number }).responseCode;
  return code === undefined || (code >= 400 && code < 500);
}

/** The SMTP URL without its password, for messages. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'SVC_SMTP_URL';
  }
}

export class MailSender {
  private readonly transport: Transporter<SMTPTransport.SentMessageInfo>;
  private readonly notifier: Notifier;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(private readonly o: MailSenderOptions) {
    this.transport = nodemailer.createTransport(o.smtpUrl);
    this.notifier = new Notifier({ url: o.db.url, log: o.log, applicationName: 'svc-maintenance-mail' });
  }

  async start(): Promise<void> {
    this.notifier.subscribe(EMAIL_QUEUED_CHANNEL, () => this.kick());
    this.notifier.onReconnect(() => this.kick());
    await this.notifier.ready().catch((err) => this.o.log.warn('cannot listen for queued emails; polling only', { err }));
    this.timer = setInterval(() => this.kick(), this.o.pollMs ?? POLL_MS);
    this.timer.unref();
    this.kick();
  }

  /** Runs a pass now, or right after the one running. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch((err: unknown) => void this.o.log.warn('mail pass failed', { err }))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Claims and sends due emails until none is left. */
  private async pass(): Promise<void> {
    for (;;) {
      const batch = await this.claim();
      if (!batch.length) return;
      await Promise.all(batch.map((e) => this.send(e)));
      if (this.stopped) return;
    }
  }

  private async claim(): Promise<Claimed[]> {
    const r = await this.o.db.pool.query<Claimed>(
      `UPDATE emails SET status = 'sending', locked_by = $1, locked_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1
       WHERE id IN (
         SELECT id FROM emails
         WHERE (status = 'queued' AND next_attempt_at <= now()) OR (status = 'sending' AND locked_until < now())
         ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING id, from_address, to_address, subject, text, attempts`,
      [this.o.instanceId, this.o.claimMs ?? CLAIM_MS, BATCH],
    );
    return r.rows;
  }

  private async send(e: Claimed): Promise<void> {
    try {
      const info = await this.transport.sendMail({ from: e.from_address, to: e.to_address, subject: e.subject, text: e.text });
      await this.o.db.pool.query(
        `UPDATE emails SET status = 'sent', sent_at = now(), message_id = $2, error = '', locked_by = NULL, locked_until = NULL WHERE id = $1 AND locked_by = $3`,
        [e.id, info.messageId ?? null, this.o.instanceId],
      );
    } catch (err) {
      const message = `${(err as Error).message ?? String(err)}`.replaceAll(this.o.smtpUrl, redact(this.o.smtpUrl)).slice(0, 2000);
      const last = !isTemporary(err) || e.attempts >= MAX_ATTEMPTS;
      const delay = Math.min(3600_000, (this.o.firstRetryMs ?? FIRST_RETRY_MS) * 2 ** (e.attempts - 1));
      await this.o.db.pool.query(
        `UPDATE emails SET status = $2, error = $3, next_attempt_at = now() + $4 * interval '1 millisecond', locked_by = NULL, locked_until = NULL
         WHERE id = $1 AND locked_by = $5`,
        [e.id, last ? 'failed' : 'queued', message, delay, this.o.instanceId],
      );
      this.o.log[last ? 'warn' : 'info'](last ? 'email failed' : 'email not sent; retrying', { email_id: e.id, attempt: e.attempts, error: message });
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    await this.notifier.close();
    this.transport.close();
  }
}
