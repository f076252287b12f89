// SVC_SMTP_REQUIRE_TLS: the option mapping (requireTLS for smtp://, a URL
// query cannot turn it off, on by default unless the relay is loopback), and
// one real send against an SMTP server without STARTTLS: with TLS required
// the email fails at once with a clear reason on its row, the password never
// reaches the server nor the row nor a log line, and nothing is delivered;
// with it off the same server receives the email. A running sender is listed
// in mail_sender_instances (what "sending configured" reads) until it stops.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { smtpRequiresTlsByDefault } from '@svc/config';
import { newId } from '@svc/db';
import { createOrganization } from '@svc/identity';
import { MailSender, smtpTransportOptions } from '../src/index.js';
import { setupEnv, type TestEnv } from './support.js';

const PASSWORD = 'plain-text-p4ss-must-not-leak';
let env: TestEnv;
let server: SMTPServer;
let url: string;
const received: string[] = [];
const authAttempts: string[] = [];
let orgId = '';

before(async () => {
  env = await setupEnv();
  server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      authAttempts.push(String(auth.password));
      cb(null, { user: auth.username });
    },
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `smtp://mailer:${PASSWORD}@127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  orgId = (await createOrganization(env.db.pool, 'acme')).id;
});
after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await env?.close();
});

async function queue(subject: string): Promise<string> {
  const id = newId();
  await env.db.pool.query(`INSERT INTO emails (id, organization_id, from_address, to_address, subject, text) VALUES ($1, $2, 'app@acme.test', 'bob@example.test', $3, 'hello')`, [
    id,
    orgId,
    subject,
  ]);
  return id;
}
const row = async (id: string) => (await env.db.pool.query(`SELECT status, attempts, error FROM emails WHERE id = $1`, [id])).rows[0];
async function until(what: string, fn: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the option mapping: requireTLS for smtp:// unless turned off, never undone by the URL, default on unless loopback', () => {
  assert.deepEqual(smtpTransportOptions('smtp://u:p@mail.example.test:587', true), { url: 'smtp://u:p@mail.example.test:587', requireTLS: true });
  assert.deepEqual(smtpTransportOptions('smtp://u:p@mail.example.test:587', false), { url: 'smtp://u:p@mail.example.test:587' });
  const stripped = smtpTransportOptions('smtp://u:p@mail.example.test:587?ignoreTLS=true&requireTLS=false&name=x', true);
  assert.equal(stripped.requireTLS, true);
  assert.doesNotMatch(String(stripped.url), /TLS/);
  assert.match(String(stripped.url), /name=x/);
  assert.deepEqual(smtpTransportOptions('smtps://u:p@mail.example.test:465', true), { url: 'smtps://u:p@mail.example.test:465' }, 'implicit TLS');
  assert.equal(smtpRequiresTlsByDefault('smtp://mail.example.test:25'), true);
  assert.equal(smtpRequiresTlsByDefault('smtp://10.0.0.5:25'), true);
  assert.equal(smtpRequiresTlsByDefault('smtp://127.0.0.1:25'), false);
  assert.equal(smtpRequiresTlsByDefault('smtp://localhost:25'), false);
});

test('with TLS required, a server without STARTTLS fails the email with the reason, and no password is sent or recorded', async () => {
  const s = new MailSender({ db: env.db, notifier: env.notifier, smtpUrl: url, requireTls: true, instanceId: 'tls-on', log: env.log, pollMs: 200, firstRetryMs: 100 });
  await s.start();
  try {
    assert.equal((await env.db.pool.query(`SELECT 1 FROM mail_sender_instances WHERE instance_id = 'tls-on'`)).rowCount, 1, 'a running sender is listed');
    const id = await queue('needs tls');
    await until('the email to fail', async () => (await row(id)).status === 'failed');
    const r = await row(id);
    assert.equal(r.attempts, 1, 'a refused STARTTLS is not retried');
    assert.match(r.error, /STARTTLS/);
    assert.match(r.error, /SVC_SMTP_REQUIRE_TLS/);
    assert.ok(!r.error.includes(PASSWORD));
  } finally {
    await s.stop();
  }
  assert.equal((await env.db.pool.query(`SELECT 1 FROM mail_sender_instances WHERE instance_id = 'tls-on'`)).rowCount, 0, 'a stopped sender is not');
  assert.deepEqual(authAttempts, [], 'the password never went over plain text');
  assert.equal(received.length, 0);
  assert.ok(!JSON.stringify(env.logs()).includes(PASSWORD));
});

test('with TLS not required, the same server receives the email', async () => {
  const s = new MailSender({ db: env.db, notifier: env.notifier, smtpUrl: url, requireTls: false, instanceId: 'tls-off', log: env.log, pollMs: 200, firstRetryMs: 100 });
  await s.start();
  try {
    const id = await queue('plain ok');
    await until('delivery', async () => (await row(id)).status === 'sent');
  } finally {
    await s.stop();
  }
  assert.equal(received.length, 1);
});
