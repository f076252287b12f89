// The rules of the organization email interface end to end:
// - `from` must be a verified sender of the organization: 422
//   validation_failed, field `from`, naming the rule; a domain covers itself
//   in any case and not its subdomains; an address rule matches exactly; a
//   display name is parsed, not compared;
// - a daily quota per organization: past it 429 rate_limit_exceeded with
//   Retry-After until the next UTC midnight, and a refused email uses none;
// - GET /api/v1/emails/status shows the key's organization: senders, quota and
//   today's use, rate limit, whether sending is configured;
// - with no maintenance instance holding SVC_SMTP_URL, the gateway's and
//   maintenance's /readyz stay 200 and say so under `details.email` with the
//   number of emails waiting; once a sender runs the queue drains.
// No org key and no SMTP password in any response or log line.
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import type { components } from '@svc/api-spec';
import { addOrganizationSender, createOrganization, createOrganizationKey, setOrganizationDailyQuota } from '@svc/identity';
import { startStack, type Proc, type Stack } from './stack.js';

const PASSWORD = 'smtp-s3cret-never-shown';
let s: Stack;
let server: SMTPServer;
let smtp = '';
const received: string[] = [];
let key = '';
let otherKey = '';
let maintenanceHealth = '';
let plainMaintenance: Proc;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === 'mailer' && auth.password === PASSWORD) cb(null, { user: 'mailer' });
      else cb(new Error('bad credentials'));
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
  // Loopback: SVC_SMTP_REQUIRE_TLS defaults to false for it.
  smtp = `smtp://mailer:${PASSWORD}@127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  // No SVC_SMTP_URL anywhere at first, and no maintenance instance yet.
  s = await startStack({ env: { SVC_ORG_RATE_LIMIT: '50' }, dispatchers: 0, maintenance: false });
  await createOrganization(s.db, 'acme');
  key = (await createOrganizationKey(s.db, 'acme', 'app')).key;
  await addOrganizationSender(s.db, 'acme', 'Acme.test');
  await addOrganizationSender(s.db, 'acme', 'Billing@partner.test');
  await createOrganization(s.db, 'other');
  otherKey = (await createOrganizationKey(s.db, 'other')).key;
  await setOrganizationDailyQuota(s.db, 'other', 2);
  await addOrganizationSender(s.db, 'other', 'other.test');
});
after(async () => {
  await s?.stop();
  await new Promise<void>((r) => server.close(() => r()));
});

const email = { from: 'app@acme.test', to: 'bob@example.test', subject: 'Hello', text: 'Body text' };
const post = (k: string, body: unknown) =>
  fetch(`${s.url}/api/v1/emails`, { method: 'POST', headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const status = async (k: string) => {
  const r = await fetch(`${s.url}/api/v1/emails/status`, { headers: { authorization: `Bearer ${k}` } });
  const text = await r.text();
  assert.ok(!text.includes(k) && !text.includes(PASSWORD), 'no key, no SMTP password in the status');
  return { status: r.status, body: JSON.parse(text) };
};
type ErrorBody = components['schemas']['ErrorEnvelope'];

test('a from outside the verified senders is 422 validation_failed on field from, naming the rule', async () => {
  for (const from of ['app@evil.test', 'app@mail.acme.test', 'app@acme.test.evil.test', 'billing@partner.test', 'sales@partner.test', 'Acme <app@evil.test>', 'app@other.test']) {
    const r = await post(key, { ...email, from });
    const text = await r.text();
    assert.equal(r.status, 422, from);
    const e = (JSON.parse(text) as ErrorBody).error;
    assert.equal(e.code, 'validation_failed');
    assert.deepEqual(
      e.details!.map((d) => d.field),
      ['from'],
      from,
    );
    assert.match(e.details![0]!.message, /not a verified sender/);
    assert.match(e.details![0]!.message, /not its subdomains/);
    assert.ok(!text.includes(key));
  }
  // A display name and an address, the domain in any case; the exact address of an address rule.
  for (const from of ['Acme Team <app@ACME.test>', '"Acme, Inc." <news@acme.test>', 'app@acme.test', 'Billing <Billing@PARTNER.test>']) {
    const r = await post(key, { ...email, from, subject: `from ${from}` });
    assert.equal(r.status, 202, `${from}: ${await r.clone().text()}`);
  }
  // Nothing refused was queued.
  const rows = (await s.db.query(`SELECT from_address FROM emails ORDER BY created_at`)).rows.map((r) => r.from_address);
  assert.deepEqual(rows.sort(), ['"Acme, Inc." <news@acme.test>', 'Acme Team <app@ACME.test>', 'Billing <Billing@PARTNER.test>', 'app@acme.test'].sort());
});

test('past the daily quota: 429 rate_limit_exceeded with Retry-After until the next UTC midnight', async () => {
  const ok1 = await post(otherKey, { ...email, from: 'a@other.test' });
  assert.equal(ok1.status, 202);
  // A refused sender uses none of the quota.
  assert.equal((await post(otherKey, { ...email, from: 'a@acme.test' })).status, 422);
  assert.equal((await post(otherKey, { ...email, from: 'a@other.test' })).status, 202);
  const r = await post(otherKey, { ...email, from: 'a@other.test' });
  assert.equal(r.status, 429);
  const e = ((await r.json()) as ErrorBody).error;
  assert.equal(e.code, 'rate_limit_exceeded');
  assert.match(e.message, /daily quota of 2/);
  const now = new Date();
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const expected = (midnight - now.getTime()) / 1000;
  const retry = Number(r.headers.get('retry-after'));
  assert.ok(Math.abs(retry - expected) < 30, `Retry-After ${retry}, seconds to the next UTC midnight ${expected}`);
  assert.equal((await s.db.query(`SELECT count(*)::int AS n FROM emails e JOIN organizations o ON o.id = e.organization_id WHERE o.name = 'other'`)).rows[0].n, 2);
  // The other organization's quota is its own.
  assert.equal((await post(key, { ...email, subject: 'still fine' })).status, 202);
});

test('GET /api/v1/emails/status shows senders, quota and use, rate limit, and that sending is not configured', async () => {
  const o = await status(otherKey);
  assert.equal(o.status, 200);
  assert.equal(o.body.organization.name, 'other');
  assert.deepEqual(o.body.senders, [{ kind: 'domain', value: 'other.test' }]);
  assert.equal(o.body.daily_quota.limit, 2);
  assert.equal(o.body.daily_quota.used_today, 2);
  assert.equal(o.body.daily_quota.remaining, 0);
  assert.match(o.body.daily_quota.resets_at, /T00:00:00\.000Z$/);
  assert.equal(o.body.rate_limit.per_second, 50);
  assert.equal(o.body.sending.configured, false);
  assert.equal(o.body.sending.waiting, 2);
  assert.match(o.body.sending.detail, /not configured/);
  const a = await status(key);
  assert.deepEqual(a.body.senders, [
    { kind: 'address', value: 'Billing@partner.test' },
    { kind: 'domain', value: 'acme.test' },
  ]);
  assert.equal(a.body.daily_quota.limit, 10000);
  assert.equal(a.body.daily_quota.used_today, 5);
  // Reading the status takes no token of the rate pool, and needs a live key.
  assert.equal((await fetch(`${s.url}/api/v1/emails/status`)).status, 401);
  assert.equal((await fetch(`${s.url}/api/v1/emails/status`, { headers: { authorization: `Bearer svc_live_${'x'.repeat(43)}` } })).status, 401);
});

test("without SVC_SMTP_URL the gateway's and maintenance's /readyz stay 200 and say that emails wait", async () => {
  const g = await fetch(`${s.url}/readyz`);
  assert.equal(g.status, 200);
  const gb = (await g.json()) as { status: string; details?: Record<string, string> };
  assert.equal(gb.status, 'ok');
  assert.match(gb.details?.email ?? '', /not configured/);
  assert.match(gb.details!.email!, /\b7 email\(s\) queued/);

  const port = await freePort();
  plainMaintenance = s.startApp('maintenance', { SVC_HEALTH_PORT: String(port) });
  maintenanceHealth = `http://127.0.0.1:${port}`;
  let body: { status: string; details?: Record<string, string> } | undefined;
  for (let i = 0; i < 1200; i++) {
    try {
      const r = await fetch(`${maintenanceHealth}/readyz`);
      if (r.status === 200) {
        body = (await r.json()) as typeof body;
        break;
      }
    } catch {}
    await sleep(50);
  }
  assert.ok(body, `maintenance did not become ready:\n${plainMaintenance.output()}`);
  assert.equal(body.status, 'ok');
  assert.match(body.details?.email ?? '', /^not configured: SVC_SMTP_URL is unset/);
  assert.match(body.details!.email!, /\b7 email\(s\) queued/);
});

test('once a maintenance instance sends mail, the queue drains and the reports say configured', async () => {
  const mailer = s.startApp('maintenance', { SVC_SMTP_URL: smtp });
  for (let i = 0; i < 1200 && received.length < 7; i++) await sleep(50);
  assert.equal(received.length, 7, mailer.output());
  assert.ok(
    received.some((m) => /From: "Acme, Inc." <news@acme.test>/.test(m)),
    received.join('\n---\n'),
  );
  for (let i = 0; i < 200 && (await status(key)).body.sending.waiting > 0; i++) await sleep(50);
  const a = await status(key);
  assert.equal(a.body.sending.configured, true);
  assert.equal(a.body.sending.detail, undefined);
  const g = (await (await fetch(`${s.url}/readyz`)).json()) as { details?: Record<string, string> };
  assert.equal(g.details, undefined, 'no detail once a sender runs');
  // The instance without SVC_SMTP_URL still says so, and counts another sender. Its detail is refreshed every 10 s:
  // one refreshed while the sender was still sending says so with the emails then waiting, so wait for the next.
  const want = /1 other maintenance instance\(s\) send them; 0 email\(s\) queued/;
  let text = '';
  for (const until = Date.now() + 45_000; Date.now() < until && !want.test(text); await sleep(100)) {
    text = ((await (await fetch(`${maintenanceHealth}/readyz`)).json()) as { details: Record<string, string> }).details.email!;
  }
  assert.match(text, want);
  for (const p of s.procs) assert.ok(!p.output().includes(PASSWORD) && !p.output().includes(key), 'no secret in a log line');
});
