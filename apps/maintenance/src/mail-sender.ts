// The mail sender: delivers the emails of the organization email interface
// (rows of `emails`, queued by POST /api/v1/emails) through SVC_SMTP_URL.
// Every maintenance instance runs one, not only the lease holder. The rows
// are jobs of @svc/jobs's queue, declared by @svc/identity, which owns them:
// senders claim them with FOR UPDATE SKIP LOCKED, so any number of them send
// each email once. A claim holds the row `sending` until `locked_until`; a sender
// that dies mid-send leaves it to be claimed again once that passes (so an
// email whose SMTP transaction completed just before the death may be sent a
// second time: at least once, never lost). Temporary failures (SMTP 4xx,
// connection errors) are retried with exponential backoff up to MAX_ATTEMPTS
// (the queue's retry policy, EMAIL_RETRY); a permanent refusal (5xx) or the
// last attempt ends the email `failed` with the server's answer in `error`.
// Woken by NOTIFY svc_email_queued through the process's shared notifier,
// polling every POLL_MS as the backstop.
//
// With requireTls (SVC_SMTP_REQUIRE_TLS, on unless the relay is loopback) an
// smtp:// server must offer STARTTLS: nodemailer's requireTLS upgrades before
// AUTH and MAIL, and a server without it fails the email at once with that
// reason in `error` (never the password). Each sender also marks itself in
// `mail_sender_instances` while it runs, which is how the gateway's /readyz
// and an organization's status know whether email sending is configured.
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { smtpRequiresTlsByDefault } from '@svc/config';
import type { Db, Notifier } from '@svc/db';
import type { Logger } from '@svc/logging';
import {
  claimEmails,
  EMAIL_QUEUED_CHANNEL,
  EMAIL_RETRY,
  emailsWaiting,
  forgetMailSender,
  mailSendersRunning,
  markEmailNotSent,
  markEmailSent,
  markMailSenderPresent,
  type ClaimedEmail,
} from '@svc/identity';
import { JobWorker } from '@svc/jobs';

export { EMAIL_QUEUED_CHANNEL };
export const POLL_MS = 2_000;
/** How long a claim holds a row: longer than any SMTP transaction (the transport's own timeouts are 60 s). */
export const CLAIM_MS = 3 * 60_000;
export const MAX_ATTEMPTS = EMAIL_RETRY.maxAttempts;
/** First retry delay, doubled per attempt, at most an hour. */
export const FIRST_RETRY_MS = EMAIL_RETRY.initialMs;
const BATCH = 10;
/** How often a running sender refreshes its row in mail_sender_instances (the gateway trusts rows up to 60 s old). */
export const PRESENCE_MS = 15_000;

export interface MailSenderOptions {
  db: Db;
  /** The process's shared notifier (ServiceContext.notifier): wakes the sender on svc_email_queued. */
  notifier: Notifier;
  smtpUrl: string;
  /** Refuse plain SMTP: an smtp:// server must offer STARTTLS. Default: smtpRequiresTlsByDefault(smtpUrl) (on unless loopback). */
  requireTls?: boolean;
  instanceId: string;
  log: Logger;
  pollMs?: number;
  firstRetryMs?: number;
  claimMs?: number;
  /** Told the outcome of each attempt (svc_emails_total): sent, failed for good, or to be retried. */
  onAttempt?: (outcome: 'sent' | 'retrying' | 'failed') => void;
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

function passwordOf(url: string): string {
  try {
    const u = new URL(url);
    return u.password ? decodeURIComponent(u.password) : '';
  } catch {
    return '';
  }
}

/** Query parameters of SVC_SMTP_URL that would let nodemailer fall back to plain SMTP. */
const TLS_OVERRIDES = ['requireTLS', 'ignoreTLS', 'opportunisticTLS'];

/**
 * The nodemailer options of SVC_SMTP_URL. With `requireTls`, requireTLS is
 * set and the URL loses any query parameter that would override it (nodemailer
 * lets the URL's query win over the options).
 */
export function smtpTransportOptions(smtpUrl: string, requireTls: boolean): SMTPTransport.Options {
  if (!requireTls) return { url: smtpUrl };
  const u = new URL(smtpUrl);
  const overridden = TLS_OVERRIDES.filter((k) => u.searchParams.has(k));
  for (const k of overridden) u.searchParams.delete(k);
  const url = overridden.length ? u.toString() : smtpUrl;
  // Implicit TLS (smtps://) is TLS from the first byte; requireTLS only concerns STARTTLS.
  return u.protocol === 'smtps:' ? { url } : { url, requireTLS: true };
}

/** How often an instance without SVC_SMTP_URL refreshes its /readyz detail (the number of emails waiting). */
export const UNCONFIGURED_DETAIL_MS = 10_000;

/** The /readyz detail of a maintenance instance without SVC_SMTP_URL: nothing is sent, and how much waits. */
export async function mailNotConfiguredDetail(db: Db): Promise<string> {
  // The same counts as the gateway's /readyz and the organization status (@svc/identity).
  const [waiting, senders] = await Promise.all([emailsWaiting(db.pool), mailSendersRunning(db.pool)]);
  return senders > 0
    ? `SVC_SMTP_URL is unset, so this instance sends no email; ${senders} other maintenance instance(s) send them; ${waiting} email(s) queued and waiting`
    : `not configured: SVC_SMTP_URL is unset, so this instance sends no email, and no maintenance instance sends them; ${waiting} email(s) queued and waiting`;
}

export class MailSender {
  private readonly transport: Transporter<SMTPTransport.SentMessageInfo>;
  private readonly passes: JobWorker;
  private readonly requireTls: boolean;
  private presenceAt = 0;

  constructor(private readonly o: MailSenderOptions) {
    this.requireTls = o.requireTls ?? smtpRequiresTlsByDefault(o.smtpUrl);
    this.transport = nodemailer.createTransport(smtpTransportOptions(o.smtpUrl, this.requireTls));
    this.passes = new JobWorker({
      notifier: o.notifier,
      channel: EMAIL_QUEUED_CHANNEL,
      pollMs: o.pollMs ?? POLL_MS,
      log: o.log,
      what: 'queued emails',
      pass: () => this.pass(),
    });
  }

  async start(): Promise<void> {
    await this.markPresent();
    await this.passes.start();
  }

  /** Runs a pass now, or right after the one running. */
  kick(): void {
    this.passes.kick();
  }

  /** Keeps this sender's row in mail_sender_instances fresh (at most every PRESENCE_MS). */
  private async markPresent(): Promise<void> {
    if (Date.now() - this.presenceAt < PRESENCE_MS) return;
    await markMailSenderPresent(this.o.db.pool, this.o.instanceId);
    this.presenceAt = Date.now();
  }

  /** Claims and sends due emails until none is left. */
  private async pass(): Promise<void> {
    await this.markPresent();
    for (;;) {
      const batch = await this.claim();
      if (!batch.length) return;
      await Promise.all(batch.map((e) => this.send(e)));
      if (this.passes.stopped) return;
    }
  }

  /** Claims due emails (the queue's statements are @svc/identity's: email-queue.ts). */
  private claim(): Promise<ClaimedEmail[]> {
    return claimEmails(this.o.db.pool, this.o.instanceId, this.o.claimMs ?? CLAIM_MS, BATCH);
  }

  private async send(e: ClaimedEmail): Promise<void> {
    try {
      const info = await this.transport.sendMail({ from: e.data.from_address, to: e.data.to_address, subject: e.data.subject, text: e.data.text });
      await markEmailSent(this.o.db.pool, e, info.messageId ?? null, this.o.instanceId);
      this.o.onAttempt?.('sent');
    } catch (err) {
      const message = this.describe(err);
      const { final } = await markEmailNotSent(this.o.db.pool, e, {
        error: message,
        permanent: !isTemporary(err),
        senderId: this.o.instanceId,
        ...(this.o.firstRetryMs !== undefined ? { retry: { initialMs: this.o.firstRetryMs } } : {}),
      });
      this.o.onAttempt?.(final ? 'failed' : 'retrying');
      this.o.log[final ? 'warn' : 'info'](final ? 'email failed' : 'email not sent; retrying', { email_id: e.key, attempt: e.attempt, error: message });
    }
  }

  /** The error recorded on the email: the server's answer, without the SMTP password. */
  private describe(err: unknown): string {
    const e = err as { message?: string; code?: string; command?: string; response?: string };
    let text = `${e.message ?? String(err)}`;
    if (e.code === 'ETLS' && this.requireTls) {
      text = `the SMTP server did not upgrade to TLS (STARTTLS) and SVC_SMTP_REQUIRE_TLS is on, so nothing was sent: ${text}${e.response ? ` (${e.response})` : ''}`;
    }
    let out = text.replaceAll(this.o.smtpUrl, redact(this.o.smtpUrl));
    const password = passwordOf(this.o.smtpUrl);
    if (password) out = out.replaceAll(password, '***');
    return out.slice(0, 2000);
  }

  async stop(): Promise<void> {
    await this.passes.stop();
    await forgetMailSender(this.o.db.pool, this.o.instanceId).catch(() => undefined);
    this.transport.close();
  }
}
