// The organization email interface end to end: real api-gateway (two
// instances), maintenance (the mail sender) and a real SMTP server on
// loopback. A queued email is delivered; every key of an organization draws
// from one rate pool across both gateways (429 rate_limit_exceeded with
// Retry-After past it); a revoked key is refused on the next request on both
// gateways; bad input gets 401, 415 and 422 with one detail per field.
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { addOrganizationSender, createOrganization, createOrganizationKey, revokeOrganizationKey } from '@svc/identity';
import { startStack, type Stack } from './stack.js';

let s: Stack;
let server: SMTPServer;
let second = '';
const received: string[] = [];
let keyA = { id: '', key: '' };
let keyB = { id: '', key: '' };

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

before(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
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
  const smtp = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  s = await startStack({ env: { SVC_SMTP_URL: smtp, SVC_ORG_RATE_LIMIT: '2' } });
  // A second gateway on the same database.
  const port = await freePort();
  s.startApp('api-gateway', { SVC_PORT: String(port) });
  second = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${second}/healthz`)).ok) break;
    } catch {}
    if (i > 1800) throw new Error('the second gateway did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  await createOrganization(s.db, 'acme');
  // The `from` must be a verified sender (emails-senders-quota-and-status.test.ts).
  await addOrganizationSender(s.db, 'acme', 'acme.test');
  keyA = await createOrganizationKey(s.db, 'acme', 'a');
  keyB = await createOrganizationKey(s.db, 'acme', 'b');
});
after(async () => {
  await s?.stop();
  await new Promise<void>((r) => server.close(() => r()));
});

const email = { from: 'app@acme.test', to: 'bob@example.test', subject: 'Hello', text: 'Body text' };
const post = (base: string, key: string | null, body: unknown, contentType = 'application/json') =>
  fetch(`${base}/api/v1/emails`, {
    method: 'POST',
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('an accepted email answers 202 queued and is delivered through SVC_SMTP_URL', async () => {
  await sleep(1100); // a full bucket
  const r = await post(s.url, keyA.key, { ...email, subject: 'Delivered one' });
  assert.equal(r.status, 202);
  const body = (await r.json()) as { id: string; status: string };
  assert.equal(body.status, 'queued');
  assert.match(body.id, /^[0-9a-z]+$/);
  for (let i = 0; i < 400 && !received.some((m) => m.includes('Subject: Delivered one')); i++) await sleep(50);
  assert.ok(received.some((m) => m.includes('Subject: Delivered one') && m.includes('Body text')));
  // The server's 250 reaches the sender before it records the email sent:
  // the row turns 'sent' just after the message arrives.
  const read = async () => (await s.db.query(`SELECT status, to_address FROM emails WHERE id = $1`, [body.id])).rows[0];
  let row = await read();
  for (let i = 0; i < 200 && row.status !== 'sent'; i++) row = (await sleep(50), await read());
  assert.deepEqual(row, { status: 'sent', to_address: 'bob@example.test' });
});

test('bad input: 401 without a live key, 415 for a body that is not JSON, 422 with one detail per field', async () => {
  for (const key of [null, 'svc_live_short', `svc_live_${'x'.repeat(43)}`, 'svc_notakey']) {
    const r = await post(s.url, key, email);
    assert.equal(r.status, 401, String(key));
    assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'unauthorized');
  }
  await sleep(1100);
  const r415 = await post(s.url, keyA.key, 'from=a', 'text/plain');
  assert.equal(r415.status, 415);
  assert.equal(((await r415.json()) as { error: { code: string } }).error.code, 'unsupported_media_type');
  await sleep(600);
  const r422 = await post(second, keyB.key, { from: 'not an address', to: 'a@b', subject: 'x\ny' });
  assert.equal(r422.status, 422);
  const e = ((await r422.json()) as { error: { code: string; details: { field: string }[] } }).error;
  assert.equal(e.code, 'validation_failed');
  const fields = e.details.map((d) => d.field).sort();
  for (const f of ['from', 'to', 'subject', 'text'])
    assert.ok(
      fields.some((x) => x.endsWith(f)),
      `a detail for ${f}: ${JSON.stringify(e.details)}`,
    );
});

test('the keys of one organization share one rate pool across both gateways', async () => {
  await sleep(1100); // a full bucket: 2 tokens, 2 per second
  const targets = [
    [s.url, keyA.key],
    [second, keyB.key],
    [s.url, keyB.key],
    [second, keyA.key],
    [s.url, keyA.key],
    [second, keyB.key],
  ] as const;
  const t0 = Date.now();
  const results = await Promise.all(targets.map(([base, key]) => post(base, key, { ...email, subject: 'pooled' })));
  const elapsed = (Date.now() - t0) / 1000;
  const accepted = results.filter((r) => r.status === 202).length;
  const limited = results.filter((r) => r.status === 429);
  assert.ok(accepted >= 2, `the bucket's two tokens are taken (${accepted})`);
  assert.ok(accepted <= 2 + Math.ceil(elapsed * 2), `at most 2 + 2/s were accepted in ${elapsed}s (${accepted})`);
  assert.ok(limited.length >= 1);
  for (const r of limited) {
    assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'rate_limit_exceeded');
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
  }
});

test('a revoked key is refused on its next request, on every gateway; the other key still works', async () => {
  await sleep(1100);
  assert.equal((await post(second, keyA.key, email)).status, 202);
  assert.ok(await revokeOrganizationKey(s.db, keyA.id));
  assert.equal((await post(second, keyA.key, email)).status, 401);
  assert.equal((await post(s.url, keyA.key, email)).status, 401);
  assert.equal((await post(s.url, keyB.key, email)).status, 202);
});
