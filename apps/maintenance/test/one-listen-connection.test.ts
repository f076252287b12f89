// A maintenance process holds one LISTEN connection, however many of its
// parts wait for a NOTIFY: the mail sender (svc_email_queued) and the alert
// deliverer (svc_alert_queued) both subscribe through the process's notifier
// (ServiceContext.notifier, `svc-maintenance-listen`), and both are woken
// through it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AlertDeliverer, MailSender } from '../src/index.js';
import { setupEnv, type TestEnv } from './support.js';

let env: TestEnv;

before(async () => {
  env = await setupEnv();
});
after(async () => {
  await env.close();
});

test('the mail sender and the alert deliverer share one LISTEN connection, and each is woken through it', async () => {
  let scans = 0;
  const alerts = new AlertDeliverer({
    db: env.db,
    notifier: env.notifier,
    log: env.log,
    instanceId: 'one',
    publicUrl: 'https://svc.example.test',
    masterKeys: [],
    orgDailyQuota: 10,
    allowPrivateTargets: false,
    // Counts the passes: the scanner runs before each delivery pass.
    scan: () => Promise.resolve(++scans),
    pollMs: 600_000,
  });
  // Never reached: no email is queued in this test.
  const mail = new MailSender({ db: env.db, notifier: env.notifier, smtpUrl: 'smtp://127.0.0.1:9', requireTls: false, instanceId: 'one', log: env.log, pollMs: 600_000 });
  try {
    await Promise.all([alerts.start(), mail.start()]);
    const listening = await env.db.pool.query<{ application_name: string }>(
      `SELECT application_name FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`,
    );
    assert.deepEqual(
      listening.rows.map((r) => r.application_name),
      ['svc-maintenance-listen'],
    );
    // The channels are both LISTENed on that one connection: a NOTIFY on the alert channel wakes the deliverer (its poll is 10 minutes).
    const before = scans;
    await env.db.pool.query(`SELECT pg_notify('svc_alert_queued', 'x')`);
    const end = Date.now() + 10_000;
    while (scans === before && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.ok(scans > before, 'woken by the notification');
  } finally {
    await Promise.all([alerts.stop(), mail.stop()]);
  }
});
