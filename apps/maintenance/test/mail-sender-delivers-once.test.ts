// The mail sender against a real SMTP server on loopback (smtp-server) and a
// real database: queued emails are delivered, with the SMTP password never in
// a log line or an error; a temporary refusal (451) is retried with backoff
// until it passes; a permanent one (550) ends the email `failed` with the
// server's answer; two senders deliver 60 emails exactly once between them;
// an email claimed by a sender that died mid-send is sent by another once
// the claim expires.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { createOrganization, createOrganizationKey } from '@svc/identity';
import { newId } from '@svc/db';
import { MailSender } from '../src/index.js';
import { setupEnv, type TestEnv } from './support.js';

const PASSWORD = 'smtp-p4ss-never-logged';
let env: TestEnv;
let server: SMTPServer;
let url: string;
const received: { to: string; subject: string; raw: string }[] = [];
/** Answers the next RCPT TO of these recipients with this error (consumed in order). */
const refusals = new Map<string, { code: number; message: string }[]>();
let orgId = '';

before(async () => {
  env = await setupEnv();
  server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === 'mailer' && auth.password === PASSWORD) cb(null, { user: 'mailer' });
      else cb(new Error('bad credentials'));
    },
    onRcptTo(address, _session, cb) {
      const next = refusals.get(address.address)?.shift();
      if (next) return cb(Object.assign(new Error(next.message), { responseCode: next.code }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({ to: session.envelope.rcptTo[0]!.address, subject: /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '', raw });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `smtp://mailer:${PASSWORD}@127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  orgId = (await createOrganization(env.db.pool, 'acme')).id;
  await createOrganizationKey(env.db.pool, 'acme');
});
after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await env?.close();
});

async function queue(to: string, subject: string): Promise<string> {
  const id = newId();
  await env.db.pool.query(`INSERT INTO emails (id, organization_id, from_address, to_address, subject, text) VALUES ($1, $2, 'app@acme.test', $3, $4, 'hello')`, [
    id,
    orgId,
    to,
    subject,
  ]);
  return id;
}
const row = async (id: string) => (await env.db.pool.query(`SELECT status, attempts, error, message_id FROM emails WHERE id = $1`, [id])).rows[0];
async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const sender = (instanceId: string, extra: Partial<ConstructorParameters<typeof MailSender>[0]> = {}) =>
  new MailSender({ db: env.db, notifier: env.notifier, smtpUrl: url, instanceId, log: env.log, pollMs: 200, firstRetryMs: 100, ...extra });

test('a queued email is delivered and marked sent; the SMTP password appears in no log line', async () => {
  const s = sender('s1');
  await s.start();
  try {
    const id = await queue('bob@example.test', 'first');
    await until('delivery', async () => (await row(id)).status === 'sent');
    const r = await row(id);
    assert.equal(r.attempts, 1);
    assert.ok(r.message_id);
    const got = received.find((m) => m.subject === 'first')!;
    assert.equal(got.to, 'bob@example.test');
    assert.match(got.raw, /hello/);
  } finally {
    await s.stop();
  }
  assert.ok(!JSON.stringify(env.logs()).includes(PASSWORD));
});

test('a temporary refusal is retried until it passes; a permanent one ends the email failed with the answer', async () => {
  refusals.set('later@example.test', [
    { code: 451, message: 'try again later' },
    { code: 451, message: 'still busy' },
  ]);
  refusals.set('nobody@example.test', [{ code: 550, message: 'no such user here' }]);
  const s = sender('s2');
  await s.start();
  try {
    const later = await queue('later@example.test', 'retried');
    const nobody = await queue('nobody@example.test', 'refused');
    await until('the retried email', async () => (await row(later)).status === 'sent');
    assert.equal((await row(later)).attempts, 3, 'two refusals, then sent');
    await until('the refused email', async () => (await row(nobody)).status === 'failed');
    const r = await row(nobody);
    assert.equal(r.attempts, 1, 'a permanent refusal is not retried');
    assert.match(r.error, /550/);
    assert.ok(!r.error.includes(PASSWORD));
    assert.equal(received.filter((m) => m.subject === 'retried').length, 1);
    assert.equal(received.filter((m) => m.subject === 'refused').length, 0);
  } finally {
    await s.stop();
  }
});

test('two senders deliver 60 emails exactly once between them', async () => {
  const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => queue(`many${i}@example.test`, `bulk ${i}`)));
  const a = sender('a');
  const b = sender('b');
  await Promise.all([a.start(), b.start()]);
  try {
    await until('all sent', async () => (await env.db.pool.query(`SELECT count(*)::int AS n FROM emails WHERE id = ANY($1) AND status = 'sent'`, [ids])).rows[0].n === 60, 60_000);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  for (let i = 0; i < 60; i++) assert.equal(received.filter((m) => m.subject === `bulk ${i}`).length, 1, `bulk ${i} once`);
});

test('an email claimed by a sender that died mid-send is sent by another once the claim expires', async () => {
  const id = await queue('orphan@example.test', 'orphaned');
  // A sender that claimed it and died before sending: the row is `sending`, held until its claim expires.
  await env.db.pool.query(`UPDATE emails SET status = 'sending', locked_by = 'dead', locked_until = now() + interval '1 second', attempts = 1 WHERE id = $1`, [id]);
  const s = sender('s3');
  await s.start();
  try {
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await row(id)).status, 'sending', 'not taken while the claim holds');
    await until('the orphan to be sent', async () => (await row(id)).status === 'sent');
    assert.equal(received.filter((m) => m.subject === 'orphaned').length, 1);
  } finally {
    await s.stop();
  }
});
