// Alerts end to end: a rule made through /api/v1/alerts watches a
// namespace; real executions fail (their task prints a secret, writes it into
// an output and to stderr, and exits 3); two maintenance processes with
// SVC_SMTP_URL scan and deliver, and every failed execution reaches the local
// SMTP server once and the local webhook receiver once, signed with the
// rule's signing secret; the first success after the failures raises
// `recovered`. The messages name the execution's URL, the failing task and
// its last log lines, and hold neither the task's secret nor the signing key.
// Each of these processes holds one LISTEN connection, named after its kind.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { addOrganizationSender, createOrganization, setOrganizationNamespaces } from '@svc/identity';
import { flow, sh, until } from './engine-support.js';
import { freePort, startStack, type Stack } from './stack.js';

const NS = 'alerts.team';
const SECRET = 'db-Pa55word-alert-e2e-5581';
const SIGNING_KEY = 'whsec-alert-e2e-2207';
let s: Stack;
let smtp: SMTPServer;
const mails: string[] = [];
let hook: http.Server;
const hooks: { headers: http.IncomingHttpHeaders; body: string }[] = [];
const healthPorts: number[] = [];

before(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        // Quoted-printable decoded, so a value split by a soft line break is still found.
        mails.push(
          Buffer.concat(chunks)
            .toString('utf8')
            .replace(/=\r\n/g, '')
            .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        );
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  hook = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hooks.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));

  // The receivers are on loopback: an on-premise setting (SVC_ALERT_ALLOW_PRIVATE_TARGETS).
  s = await startStack({ maintenance: false, env: { SVC_ALERT_ALLOW_PRIVATE_TARGETS: 'true' } });
  const smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  for (let i = 0; i < 2; i++) {
    healthPorts.push(await freePort());
    s.startApp('maintenance', { SVC_SMTP_URL: smtpUrl, SVC_HEALTH_PORT: String(healthPorts[i]) });
  }
  await createOrganization(s.db, 'acme');
  await addOrganizationSender(s.db, 'acme', 'acme.test');
  await setOrganizationNamespaces(s.db, 'acme', ['alerts']);
  await s.saveFlow(NS, {
    'load.flow.yaml': flow({
      id: 'load',
      inputs: [{ id: 'fail', type: 'boolean', default: true }],
      tasks: [
        {
          id: 'connect',
          type: 'command',
          env: { PW: "{{ secret('DB_PASSWORD') }}", FAIL: '{{ inputs.fail }}' },
          command: sh(
            `printf '{"outputs": {"dsn": "postgres://u:%s@db"}}\\n' "$PW" >> "$SVC_OUTPUTS"; for i in 1 2 3; do echo "step $i"; done; echo "connecting with $PW"; ` +
              `if [ "$FAIL" = "true" ]; then echo "refused: $PW" >&2; exit 3; fi`,
          ),
        },
      ],
    }),
  });
  assert.equal((await s.api('PUT', `/api/v1/namespaces/${NS}/secrets/DB_PASSWORD`, { value: SECRET })).status, 200);
  assert.equal((await s.api('PUT', '/api/v1/secrets/ALERT_SIGNING_KEY', { value: SIGNING_KEY })).status, 200);
});
after(async () => {
  await s?.stop();
  await new Promise<void>((r) => smtp.close(() => r()));
  await new Promise<void>((r) => hook.close(() => r()));
});

test('each failed execution reaches SMTP and the webhook exactly once across two maintenance processes; recovered follows; nothing secret', async () => {
  const made = await s.api('POST', '/api/v1/alerts', {
    name: 'team alerts',
    namespace: 'alerts',
    events: ['failed', 'recovered'],
    channels: [
      { type: 'email', organization: 'acme', from: 'alerts@acme.test', to: 'oncall@example.test' },
      { type: 'webhook', url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/svc`, signing_secret: 'ALERT_SIGNING_KEY' },
    ],
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const ruleId = made.body.id as string;

  const failed: string[] = [];
  for (let i = 0; i < 3; i++) {
    const e = await s.waitEnded((await s.trigger(NS, 'load')).id, 60_000);
    assert.equal(e.state, 'FAILED');
    failed.push(e.id);
  }
  const ok = await s.waitEnded((await s.trigger(NS, 'load', { inputs: { fail: false } })).id, 60_000);
  assert.equal(ok.state, 'SUCCESS');

  await until('3 emails and 4 webhooks', () => mails.length >= 4 && hooks.length >= 4, 90_000, 200);
  // Time for a second delivery by either process, if there were to be one.
  await new Promise((r) => setTimeout(r, 4000));
  assert.equal(mails.length, 4, 'three failures and a recovery by email');
  assert.equal(hooks.length, 4);
  for (const id of failed) {
    assert.equal(mails.filter((m) => m.includes(`/executions/${id}`)).length, 1, `one email for ${id}`);
    assert.equal(hooks.filter((h) => JSON.parse(h.body).execution.id === id).length, 1, `one webhook for ${id}`);
  }
  const recovered = hooks.find((h) => JSON.parse(h.body).event === 'recovered');
  assert.equal(JSON.parse(recovered!.body).execution.id, ok.id);

  const mail = mails.find((m) => m.includes(`/executions/${failed[0]}`))!;
  assert.match(mail, /Subject: \[svc\] alerts\.team\/load failed/);
  assert.match(mail, /Task connect \(FAILED\)/);
  assert.match(mail, /step 3/);
  assert.match(mail, /connecting with \*\*\*/);
  const h = hooks.find((x) => JSON.parse(x.body).execution.id === failed[0])!;
  const ts = h.headers['x-svc-alert-timestamp'] as string;
  assert.equal(h.headers['x-svc-alert-signature'], `sha256=${createHmac('sha256', SIGNING_KEY).update(`${ts}.${h.body}`).digest('hex')}`);
  assert.equal(JSON.parse(h.body).task.key, 'connect');

  const deliveries = await s.api('GET', `/api/v1/alerts/${ruleId}/deliveries?limit=100`);
  assert.equal(deliveries.status, 200);
  assert.equal(deliveries.body.items.length, 8);
  assert.ok(deliveries.body.items.every((d: { status: string; attempt_log: unknown[] }) => d.status === 'delivered' && d.attempt_log.length === 1));
  const sent = await s.db.query(`SELECT status FROM emails`);
  assert.deepEqual(
    sent.rows.map((r) => r.status),
    ['sent', 'sent', 'sent', 'sent'],
  );
  // The two instances' counters (svc_alert_deliveries_total, svc_emails_total) add up to what was delivered and sent.
  const scrapes = await Promise.all(healthPorts.map(async (p) => (await fetch(`http://127.0.0.1:${p}/metrics`)).text()));
  const total = (series: string) =>
    scrapes.reduce(
      (sum, text) =>
        sum +
        Number(
          text
            .split('\n')
            .find((l) => l.startsWith(`${series} `))
            ?.slice(series.length + 1) ?? NaN,
        ),
      0,
    );
  assert.equal(total('svc_alert_deliveries_total{channel="email",outcome="delivered"}'), 4);
  assert.equal(total('svc_alert_deliveries_total{channel="webhook",outcome="delivered"}'), 4);
  assert.equal(total('svc_alert_deliveries_total{channel="webhook",outcome="failed"}'), 0);
  assert.equal(total('svc_emails_total{outcome="sent"}'), 4);
  assert.equal(total('svc_emails_total{outcome="failed"}'), 0);

  for (const text of [...mails, ...hooks.map((x) => x.body), JSON.stringify(deliveries.body), ...s.procs.map((p) => p.output())]) {
    assert.ok(!text.includes(SECRET), 'the task secret is masked');
    assert.ok(!text.includes(SIGNING_KEY), 'the signing key is never shown');
  }
});

test('each process holds one LISTEN connection, named after its kind: two maintenance processes, two connections', async () => {
  const rows = (
    await s.db.query<{ application_name: string; n: number }>(
      `SELECT application_name, count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%' GROUP BY 1`,
    )
  ).rows;
  const by = Object.fromEntries(rows.map((r) => [r.application_name, r.n]));
  // Each maintenance process's mail sender and alert deliverer share its one connection (they held one each before).
  assert.equal(by['svc-maintenance-listen'], 2, JSON.stringify(by));
  assert.equal(by['svc-dispatcher-listen'], 1, JSON.stringify(by));
  // The gateway's is open only while event or log streams are.
  assert.ok((by['svc-api-gateway-listen'] ?? 0) <= 1, JSON.stringify(by));
  assert.deepEqual(
    Object.keys(by).filter((n) => !/^svc-(api-gateway|dispatcher|maintenance|scheduler)-listen$/.test(n)),
    [],
  );
});
