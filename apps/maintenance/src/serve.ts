// The maintenance process: holds the `maintenance` lease across instances and,
// while it holds it, ends timed-out executions and task runs and lost work
// (every few seconds), and runs retention and the storage cleanup (when it
// takes the lease, then at SVC_RETENTION_CRON and SVC_STORAGE_CLEANUP_CRON,
// every hour by default; node-cron ticks on every instance and only the
// holder acts). With SVC_HEALTH_PORT it serves
// /healthz, /readyz and /metrics, its counters among them (@svc/service).
// The watchdog period is SVC_WATCHDOG_MS. With
// SVC_SMTP_URL, every instance also delivers the organization emails
// (mail-sender.ts); without it, /readyz says so under `details.email`, with
// the number of emails waiting (readiness itself stays ok). Every instance
// scans ended executions for alert rules and delivers the alerts (alerts/).
import { Engine } from '@svc/engine';
import { createObjectStore } from '@svc/storage';
import { registerTaskRunDuration, runService } from '@svc/service';
import { AlertDeliverer, AlertScanner } from '@svc/alerts';
import { MailSender, mailNotConfiguredDetail, UNCONFIGURED_DETAIL_MS } from './mail-sender.js';
import { startMaintenance } from './maintenance.js';
import { createMaintenanceMetrics } from './metrics.js';

await runService({
  kind: 'maintenance',
  health: true,
  async start(ctx) {
    // The store is read when a queued execution starts (its namespace.yaml executor defaults).
    const storage = await createObjectStore(ctx.config.storage);
    const metrics = createMaintenanceMetrics({ registry: ctx.metrics });
    const engine = new Engine({ pool: ctx.db.pool, storage, clock: ctx.clock, config: ctx.config, log: ctx.log });
    // The task runs the watchdog ends (lost, past their timeout).
    registerTaskRunDuration(ctx.metrics, engine);
    // No `now` for startMaintenance: the lease and the watchdog then use the database's clock.
    const maintenance = startMaintenance({
      db: ctx.db,
      storage,
      log: ctx.log,
      metrics,
      instanceId: ctx.instanceId,
      engine,
      retentionDays: ctx.config.retentionDays,
      emailRetentionDays: ctx.config.emailRetentionDays,
      heartbeatTimeoutMs: ctx.config.heartbeatTimeoutMs,
      watchdogMs: ctx.config.watchdogMs,
      retentionCron: ctx.config.retentionCron,
      storageCleanupCron: ctx.config.storageCleanupCron,
    });
    // Every instance sends mail (row claims), not only the lease holder.
    const mail = ctx.config.smtpUrl
      ? new MailSender({
          db: ctx.db,
          notifier: ctx.notifier,
          smtpUrl: ctx.config.smtpUrl,
          requireTls: ctx.config.smtpRequireTls,
          instanceId: ctx.instanceId,
          log: ctx.log,
          onAttempt: (outcome) => metrics.emails.inc({ outcome }),
        })
      : undefined;
    await mail?.start();
    // Every instance also scans for alerts (the cursor row is taken SKIP LOCKED) and delivers them (row claims).
    const scanner = new AlertScanner({ db: ctx.db, log: ctx.log });
    const alerts = new AlertDeliverer({
      db: ctx.db,
      notifier: ctx.notifier,
      log: ctx.log,
      instanceId: ctx.instanceId,
      publicUrl: ctx.config.publicUrl,
      masterKeys: ctx.config.masterKeys,
      orgDailyQuota: ctx.config.orgDailyQuota,
      allowPrivateTargets: ctx.config.alertAllowPrivateTargets,
      scan: () => scanner.pass(),
      onAttempt: (channel, outcome) => metrics.alertDeliveries.inc({ channel, outcome }),
    });
    await alerts.start();
    let unconfigured: NodeJS.Timeout | undefined;
    if (!mail) {
      const refresh = () =>
        mailNotConfiguredDetail(ctx.db).then(
          (text) => ctx.readinessDetail('email', text),
          (err: unknown) => ctx.log.debug('cannot count the queued emails', { err }),
        );
      ctx.readinessDetail('email', 'SVC_SMTP_URL is unset, so this instance sends no email');
      await refresh();
      unconfigured = setInterval(() => void refresh(), UNCONFIGURED_DETAIL_MS);
      unconfigured.unref();
    }
    return {
      async stop() {
        clearInterval(unconfigured);
        await alerts.stop();
        await mail?.stop();
        await maintenance.stop();
        await storage.close?.();
      },
    };
  },
});
