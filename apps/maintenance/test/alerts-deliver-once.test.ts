// Alert rules end to end in maintenance, against a real database, a real SMTP
// server on loopback (smtp-server) and a real HTTP webhook receiver: failed
// executions of a rule's scope become one email (through the organization
// email interface and the mail sender) and one signed webhook each, exactly
// once across two maintenance instances; the messages carry the execution's
// URL, the failing task and its last log lines, and never the value of a
// secret the execution used (put unmasked into the stored error, task error
// and log lines here, so the alert's own masking is what is tested); a
// webhook refused with 500 is retried with backoff and its attempts are
// recorded; recovered and late events; the rate limit suppresses past it.
// Against server-side request forgery (SVC_ALERT_ALLOW_PRIVATE_TARGETS off):
// literal private, metadata and unique-local addresses and host names that
// resolve to loopback are refused for good without a connection; allowed, a
// name is connected to at the address checked (Host kept) and a redirect is
// not followed. The other tests deliver to loopback receivers, so allow it.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { newId } from '@svc/db';
import { addOrganizationSender, createOrganization, setOrganizationNamespaces } from '@svc/identity';
import { generateMasterKey, SecretStore } from '@svc/secrets';
import { AlertDeliverer, AlertScanner, MailSender, type AlertDelivererOptions } from '../src/index.js';
import { seedSnapshot, setupEnv, type TestEnv } from './support.js';

const SECRET = 'pg-Pa55-leaks-nowhere-7731';
const SIGNING_KEY = 'whsec-signing-key-4410';
const masterKeys = [generateMasterKey('k1')];
let env: TestEnv;
let smtp: SMTPServer;
let smtpUrl: string;
const mails: { to: string; subject: string; raw: string }[] = [];
let hook: http.Server;
let hookUrl: string;
const hooks: { headers: http.IncomingHttpHeaders; body: string }[] = [];
/** Every request the receiver got, whatever its answer. */
const hookRequests: { url: string; host: string | undefined }[] = [];
/** Answers the next webhook requests with these statuses (consumed in order), then 200; `?answer=N` in the URL answers N. */
const hookStatuses: number[] = [];
let snapshotId = '';

before(async () => {
  env = await setupEnv();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        // Quoted-printable decoded, so a value split by a soft line break is still found.
        const raw = Buffer.concat(chunks)
          .toString('utf8')
          .replace(/=\r\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        mails.push({ to: session.envelope.rcptTo[0]!.address, subject: /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '', raw });
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  hook = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hookRequests.push({ url: req.url ?? '', host: req.headers.host });
      const asked = /answer=(\d+)/.exec(req.url ?? '')?.[1];
      const status = asked ? Number(asked) : (hookStatuses.shift() ?? 200);
      if (status === 200) hooks.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status).end(status === 200 ? 'ok' : 'busy');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alerts`;

  await createOrganization(env.db.pool, 'acme');
  await addOrganizationSender(env.db.pool, 'acme', 'acme.test');
  await setOrganizationNamespaces(env.db.pool, 'acme', ['team', 'busy', 'sched']);
  const secrets = new SecretStore({ db: env.db.pool, keys: masterKeys });
  await secrets.put('team', 'DB_PASSWORD', SECRET);
  await secrets.put('', 'ALERT_SIGNING_KEY', SIGNING_KEY);
  snapshotId = await seedSnapshot(env.db, { namespace: 'team', createdAt: new Date() });
});
after(async () => {
  await new Promise<void>((r) => smtp.close(() => r()));
  await new Promise<void>((r) => hook.close(() => r()));
  await env?.close();
});

async function rule(o: { name: string; namespace?: string; flowId?: string | null; events: string[]; channels: unknown[]; rate?: number; lateAfter?: number }): Promise<string> {
  const id = newId();
  await env.db.pool.query(
    `INSERT INTO alert_rules (id, name, namespace, flow_id, events, late_after_seconds, channels, rate_limit_per_hour, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'test', now() - interval '1 second')`,
    [id, o.name, o.namespace ?? 'team', o.flowId ?? null, o.events, o.lateAfter ?? null, JSON.stringify(o.channels), o.rate ?? 1000],
  );
  return id;
}

/** An ended (or RUNNING) execution of team.<sub>/<flow> whose task `load` failed with the secret in its error and log. */
async function execution(o: { namespace?: string; flowId: string; state: string; secretInside?: boolean }): Promise<string> {
  const id = newId();
  const ended = o.state !== 'RUNNING';
  await env.db.pool.query(
    `INSERT INTO executions (id, state, error, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, started_at, ended_at, secret_keys_used)
     VALUES ($1, $2, $3, $4, $5, $6, '{"id":"f","tasks":[]}', 'test', 'manual', now() - interval '1 hour', $7, $8)`,
    [
      id,
      o.state,
      o.state === 'FAILED' ? `task load failed: password ${SECRET} refused` : '',
      o.namespace ?? 'team',
      o.flowId,
      snapshotId,
      ended ? new Date() : null,
      ['DB_PASSWORD'],
    ],
  );
  if (o.state === 'FAILED' || o.state === 'TIMED_OUT') {
    const tr = newId();
    await env.db.pool.query(
      `INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, state, error, created_at, started_at, ended_at) VALUES ($1, $2, 'load', 'command', 'process', $3, $4, now(), now(), now())`,
      [tr, id, o.state, `exit 1: connect with ${SECRET} failed`],
    );
    await env.db.pool.query(
      `INSERT INTO log_lines (task_run_id, n, execution_id, task_key, attempt, ts, stream, text, seq)
       SELECT $1, n, $2, 'load', 1, n, 'stdout', CASE WHEN n = 25 THEN 'using ' || $3 ELSE 'line ' || n END, n FROM generate_series(1, 25) AS n`,
      [tr, id, SECRET],
    );
  }
  return id;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One maintenance instance's alert work: scanner, deliverer and mail sender. */
function instance(id: string, o: { allowPrivateTargets?: boolean; resolve?: AlertDelivererOptions['resolve'] } = {}) {
  // Executions are read a second after their end (rows here get their ended_at from this process's clock
  // before they commit, as the engine's do): with no settle time a scan could pass an end not yet committed.
  const scanner = new AlertScanner({ db: env.db, log: env.log, settleMs: 1000 });
  const alerts = new AlertDeliverer({
    db: env.db,
    notifier: env.notifier,
    log: env.log,
    instanceId: id,
    publicUrl: 'https://svc.example.test',
    masterKeys,
    orgDailyQuota: 1000,
    allowPrivateTargets: o.allowPrivateTargets ?? true,
    ...(o.resolve ? { resolve: o.resolve } : {}),
    scan: () => scanner.pass(),
    pollMs: 100,
    firstRetryMs: 100,
  });
  const mail = new MailSender({ db: env.db, notifier: env.notifier, smtpUrl, requireTls: false, instanceId: id, log: env.log, pollMs: 100 });
  return {
    async start() {
      await Promise.all([alerts.start(), mail.start()]);
    },
    async stop() {
      await Promise.all([alerts.stop(), mail.stop()]);
    },
  };
}

const deliveries = async (ruleId: string) =>
  (
    await env.db.pool.query(
      `SELECT id, event, execution_id, channel_type, status, attempts, error, target, message FROM alert_deliveries WHERE rule_id = $1 ORDER BY created_at, id`,
      [ruleId],
    )
  ).rows;

test('failed executions alert once by email and by signed webhook across two instances, masked, with the task and its last log lines', async () => {
  const ruleId = await rule({
    name: 'team failures',
    events: ['failed', 'timed_out'],
    channels: [
      { type: 'email', organization: 'acme', from: 'alerts@acme.test', to: 'oncall@example.test' },
      { type: 'webhook', url: hookUrl, signing_secret: 'ALERT_SIGNING_KEY' },
    ],
  });
  const a = instance('m1');
  const b = instance('m2');
  hookStatuses.push(500, 500);
  await Promise.all([a.start(), b.start()]);
  const ids: string[] = [];
  try {
    for (let i = 0; i < 12; i++) ids.push(await execution({ namespace: i % 2 ? 'team' : 'team.etl', flowId: `f${i}`, state: i === 11 ? 'TIMED_OUT' : 'FAILED' }));
    // Outside the scope and not an alert event: nothing.
    await execution({ namespace: 'other', flowId: 'x', state: 'FAILED' });
    await execution({ namespace: 'team', flowId: 'ok', state: 'SUCCESS' });
    await until('12 emails and 12 webhooks', async () => mails.length >= 12 && hooks.length >= 12);
    // Give a second delivery every chance to happen before counting.
    await new Promise((r) => setTimeout(r, 1500));
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  const rows = await deliveries(ruleId);
  assert.equal(rows.length, 24, 'one delivery per execution and channel');
  assert.ok(
    rows.every((r) => r.status === 'delivered'),
    JSON.stringify(rows.filter((r) => r.status !== 'delivered')),
  );
  for (const id of ids) {
    assert.equal(mails.filter((m) => m.raw.includes(id)).length, 1, `one email for ${id}`);
    assert.equal(hooks.filter((h) => JSON.parse(h.body).execution.id === id).length, 1, `one webhook for ${id}`);
  }
  assert.equal(mails.length, 12);
  assert.equal(hooks.length, 12);

  const mail = mails.find((m) => m.raw.includes(ids[0]!))!;
  assert.equal(mail.to, 'oncall@example.test');
  assert.match(mail.subject, /team\.etl\/f0 failed/);
  assert.match(mail.raw, new RegExp(`https://svc.example.test/executions/${ids[0]}`));
  assert.match(mail.raw, /Task load \(FAILED\)/);
  assert.match(mail.raw, /line 24/);
  assert.doesNotMatch(mail.raw, /line 5\b/, 'only the last 20 lines');

  const h = hooks.find((x) => JSON.parse(x.body).execution.id === ids[0])!;
  const ts = h.headers['x-svc-alert-timestamp'] as string;
  assert.ok(Math.abs(Number(ts) - Date.now() / 1000) < 120, 'a current timestamp');
  const expected = createHmac('sha256', SIGNING_KEY).update(`${ts}.${h.body}`).digest('hex');
  assert.equal(h.headers['x-svc-alert-signature'], `sha256=${expected}`);
  const body = JSON.parse(h.body);
  assert.equal(body.event, 'failed');
  assert.equal(body.task.key, 'load');
  assert.equal(body.task.last_log_lines.length, 20);
  assert.equal(body.execution.url, `https://svc.example.test/executions/${ids[0]}`);
  assert.ok(body.task.last_log_lines.includes('using ***'));
  assert.equal(JSON.parse(hooks.find((x) => JSON.parse(x.body).execution.id === ids[11])!.body).event, 'timed_out');

  // The secret appears nowhere: not in an email, a webhook body, a stored message or a log line; nor the signing key.
  for (const text of [...mails.map((m) => m.raw), ...hooks.map((x) => x.body), JSON.stringify(rows), JSON.stringify(env.logs())]) {
    assert.ok(!text.includes(SECRET), 'the secret value is masked');
    assert.ok(!text.includes(SIGNING_KEY), 'the signing key is never shown');
  }
  // The two 500s were retried: one webhook delivery (or two) took more attempts, all recorded.
  const attempts = (
    await env.db.pool.query(`SELECT a.ok, a.http_status, a.number FROM alert_delivery_attempts a JOIN alert_deliveries d ON d.id = a.delivery_id WHERE d.rule_id = $1`, [ruleId])
  ).rows;
  assert.equal(attempts.filter((x) => !x.ok).length, 2);
  assert.ok(attempts.filter((x) => !x.ok).every((x) => x.http_status === 500));
  assert.equal(attempts.filter((x) => x.ok).length, 24);
  await env.db.pool.query(`UPDATE alert_rules SET enabled = false WHERE id = $1`, [ruleId]);
});

test('recovered is the first success after a failure; late is an execution still running past the duration; the rate limit suppresses', async () => {
  const recovered = await rule({
    name: 'recoveries',
    flowId: 'nightly',
    events: ['recovered'],
    channels: [{ type: 'webhook', url: hookUrl, signing_secret: 'ALERT_SIGNING_KEY' }],
  });
  const late = await rule({ name: 'late', events: ['late'], lateAfter: 60, channels: [{ type: 'webhook', url: hookUrl, signing_secret: 'ALERT_SIGNING_KEY' }] });
  const limited = await rule({
    name: 'limited',
    namespace: 'busy',
    events: ['failed'],
    rate: 2,
    channels: [{ type: 'webhook', url: hookUrl, signing_secret: 'ALERT_SIGNING_KEY' }],
  });
  hooks.length = 0;
  const a = instance('m3');
  await a.start();
  try {
    await execution({ flowId: 'nightly', state: 'SUCCESS' });
    await execution({ flowId: 'nightly', state: 'FAILED' });
    const first = await execution({ flowId: 'nightly', state: 'SUCCESS' });
    await execution({ flowId: 'nightly', state: 'SUCCESS' });
    const running = await execution({ flowId: 'slow', state: 'RUNNING' });
    for (let i = 0; i < 4; i++) await execution({ namespace: 'busy', flowId: `b${i}`, state: 'FAILED' });
    await until('the alerts', async () => (await deliveries(recovered)).length >= 1 && (await deliveries(late)).length >= 1 && (await deliveries(limited)).length >= 4);
    await new Promise((r) => setTimeout(r, 1000));
    const rec = await deliveries(recovered);
    assert.deepEqual(
      rec.map((r) => [r.event, r.execution_id]),
      [['recovered', first]],
    );
    const l = await deliveries(late);
    assert.deepEqual(
      l.map((r) => [r.event, r.execution_id]),
      [['late', running]],
    );
    const lim = await deliveries(limited);
    assert.deepEqual(lim.map((r) => r.status).sort(), ['delivered', 'delivered', 'suppressed', 'suppressed']);
    await until('delivered', async () => (await deliveries(late))[0].status === 'delivered');
  } finally {
    await a.stop();
  }
});

test('a schedule past its grace raises late once; Slack gets the text at the URL its secret holds; a 4xx answer fails the delivery without retries', async () => {
  const slackPath = '/slack/T000/B000/xoxb-url-token-9911';
  const secrets = new SecretStore({ db: env.db.pool, keys: masterKeys });
  await secrets.put('sched', 'SLACK_URL', `${hookUrl.replace('/alerts', '')}${slackPath}`);
  await env.db.pool.query(`INSERT INTO namespaces (name) VALUES ('sched')`);
  await env.db.pool.query(`INSERT INTO flows (namespace, flow_id, path) VALUES ('sched', 'daily', 'daily.flow.yaml')`);
  await env.db.pool.query(
    `INSERT INTO schedules (namespace, flow_id, trigger_id, cron, next_fire_at) VALUES ('sched', 'daily', 'every-day', '0 3 * * *', now() - interval '10 minutes')`,
  );
  const ruleId = await rule({
    name: 'schedules',
    namespace: 'sched',
    events: ['late'],
    channels: [
      { type: 'slack', url_secret: 'SLACK_URL' },
      { type: 'webhook', url: `${hookUrl}?answer=404`, signing_secret: 'ALERT_SIGNING_KEY' },
    ],
  });
  await env.db.pool.query(`UPDATE alert_rules SET schedule_grace_seconds = 60 WHERE id = $1`, [ruleId]);
  hooks.length = 0;
  const a = instance('m4');
  await a.start();
  try {
    await until('both deliveries end', async () => {
      const rows = await deliveries(ruleId);
      return rows.length === 2 && rows.every((r) => r.status === 'delivered' || r.status === 'failed') ? rows : undefined;
    });
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await a.stop();
  }
  const rows = await deliveries(ruleId);
  assert.deepEqual(
    rows.map((r) => [r.channel_type, r.status, r.attempts]).sort(),
    [
      ['slack', 'delivered', 1],
      ['webhook', 'failed', 1],
    ].sort(),
  );
  assert.ok(rows.every((r) => r.event === 'late' && r.execution_id === null));
  assert.equal(rows.find((r) => r.channel_type === 'slack').target, 'secret SLACK_URL', 'the Slack URL is named by its secret, never shown');
  assert.match(rows.find((r) => r.channel_type === 'webhook').error, /HTTP 404/);
  const slack = hooks.find((h) => h.headers['x-svc-alert-signature'] === undefined)!;
  const text = JSON.parse(slack.body).text as string;
  assert.match(text, /the schedule trigger every-day of flow sched\/daily was due at .* and has not fired/);
  for (const r of rows) assert.ok(!JSON.stringify(r).includes('xoxb-url-token-9911'));
});

/** Resolves alerts.example.test to the given addresses, other names with the system resolver. */
const mapped =
  (...addresses: string[]): NonNullable<AlertDelivererOptions['resolve']> =>
  async (host) =>
    host === 'alerts.example.test' ? addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })) : lookup(host, { all: true });

/** Runs one instance until every delivery of the rule has ended; returns them. */
async function deliverAll(ruleId: string, count: number, o: Parameters<typeof instance>[1]) {
  const a = instance(newId(), o);
  await a.start();
  try {
    await until('every delivery ends', async () => {
      const rows = await deliveries(ruleId);
      return rows.length === count && rows.every((r) => r.status === 'delivered' || r.status === 'failed');
    });
  } finally {
    await a.stop();
  }
  return (await env.db.pool.query(`SELECT channel, status, attempts, error FROM alert_deliveries WHERE rule_id = $1 ORDER BY channel`, [ruleId])).rows;
}

test('with SVC_ALERT_ALLOW_PRIVATE_TARGETS off, private, metadata and loopback targets are refused once, without a connection', async () => {
  const port = new URL(hookUrl).port;
  const secrets = new SecretStore({ db: env.db.pool, keys: masterKeys });
  await secrets.put('guard', 'SLACK_URL', `http://[::ffff:127.0.0.1]:${port}/slack/T1/B1/xoxb-guard-5521`);
  const ruleId = await rule({
    name: 'ssrf',
    namespace: 'guard',
    events: ['failed'],
    channels: [
      { type: 'webhook', url: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/', signing_secret: 'ALERT_SIGNING_KEY' },
      { type: 'webhook', url: 'http://10.0.0.5:9/hook', signing_secret: 'ALERT_SIGNING_KEY' },
      { type: 'webhook', url: `http://localhost:${port}/alerts?via=localhost`, signing_secret: 'ALERT_SIGNING_KEY' },
      { type: 'webhook', url: `http://alerts.example.test:${port}/alerts?via=mapped`, signing_secret: 'ALERT_SIGNING_KEY' },
      { type: 'slack', url_secret: 'SLACK_URL' },
      { type: 'webhook', url: 'http://[fd00::5]/hook', signing_secret: 'ALERT_SIGNING_KEY' },
    ],
  });
  hookRequests.length = 0;
  await execution({ namespace: 'guard', flowId: 'g', state: 'FAILED' });
  const rows = await deliverAll(ruleId, 6, { allowPrivateTargets: false, resolve: mapped('93.184.215.14', '127.0.0.1') });
  assert.deepEqual(
    rows.map((r) => [r.channel, r.status, r.attempts]),
    [0, 1, 2, 3, 4, 5].map((c) => [c, 'failed', 1]),
    'refused for good, not retried',
  );
  const errors = rows.map((r) => r.error as string);
  assert.match(errors[0]!, /address 169\.254\.169\.254 is link-local: refused \(SVC_ALERT_ALLOW_PRIVATE_TARGETS\)/);
  assert.match(errors[1]!, /address 10\.0\.0\.5 is private: refused \(SVC_ALERT_ALLOW_PRIVATE_TARGETS\)/);
  assert.match(errors[2]!, /address (127\.0\.0\.1|::1) \(of localhost\) is loopback: refused/);
  assert.match(errors[3]!, /address 127\.0\.0\.1 \(of alerts\.example\.test\) is loopback: refused/, 'one private address among public ones is enough');
  assert.match(errors[4]!, /^POST secret SLACK_URL: address \S+ is loopback: refused/);
  assert.ok(!errors[4]!.includes('xoxb-guard-5521'), 'the Slack URL stays secret');
  assert.match(errors[5]!, /address fd00::5 is unique-local: refused/);
  assert.deepEqual(hookRequests, [], 'no request reached the loopback receiver');
});

test('allowed, a name is connected to at its checked address with its Host kept, and a redirect is not followed', async () => {
  const port = new URL(hookUrl).port;
  const redirects: string[] = [];
  const redirector = http.createServer((req, res) => {
    redirects.push(req.url ?? '');
    req.resume();
    res.writeHead(302, { location: `${hookUrl}?via=redirect` }).end();
  });
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', () => r()));
  try {
    const ruleId = await rule({
      name: 'allowed',
      namespace: 'guard2',
      events: ['failed'],
      channels: [
        { type: 'webhook', url: `http://alerts.example.test:${port}/alerts?via=mapped`, signing_secret: 'ALERT_SIGNING_KEY' },
        { type: 'webhook', url: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/go`, signing_secret: 'ALERT_SIGNING_KEY' },
      ],
    });
    hookRequests.length = 0;
    await execution({ namespace: 'guard2', flowId: 'g', state: 'FAILED' });
    const rows = await deliverAll(ruleId, 2, { allowPrivateTargets: true, resolve: mapped('127.0.0.1') });
    assert.deepEqual(
      rows.map((r) => [r.channel, r.status, r.attempts]),
      [
        [0, 'delivered', 1],
        [1, 'failed', 1],
      ],
    );
    assert.deepEqual(hookRequests, [{ url: '/alerts?via=mapped', host: `alerts.example.test:${port}` }], 'the redirect target got nothing');
    assert.deepEqual(redirects, ['/go']);
    assert.match(rows[1].error as string, /HTTP 302: redirects are not followed \(Location http:\/\/127\.0\.0\.1:\d+\/alerts\?via=redirect\)/);
  } finally {
    await new Promise<void>((r) => redirector.close(() => r()));
  }
});
