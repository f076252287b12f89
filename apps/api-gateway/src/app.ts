// Assembles the gateway's express app from its dependencies. Order matters:
// request id first (every response carries it), then the security headers and
// compression (security-headers.ts), then timing, then routes, then the API
// 404, then the UI, and the single error middleware last.
import express, { type Express, type Request, type Response } from 'express';
import type { Config } from '@svc/config';
import type { Db, Notifier } from '@svc/db';
import { apiNotFound, errorHandler, mountOperations, requestId, requestLogger, routeOf, unmatched, type AllOperationHandlers } from '@svc/http';
import { operations, organizationOperations } from '@svc/api-spec';
import type { Logger } from '@svc/logging';
import type { ObjectStore } from '@svc/storage';
import { createMetrics, type GatewayMetrics } from './metrics.js';
import { migrationsForTraffic, registerTaskRunDuration } from '@svc/service';
import { readinessChecks, readinessDetails, runReadiness, type CheckName } from './readiness.js';
import { createAuthenticator } from './identity/authenticate.js';
import { namespaceRoles } from './identity/namespace-roles.js';
import { roleBindingHandlers } from './routes/role-bindings.js';
import { auditHandlers } from './routes/audit.js';
import { backfillHandlers } from './routes/backfills.js';
import { adminHandlers } from './routes/admin.js';
import { alertHandlers } from './routes/alerts.js';
import { authHandlers } from './routes/auth.js';
import { executionHandlers } from './routes/executions.js';
import { replayHandlers } from './routes/replay.js';
import { bulkExecutionHandlers } from './routes/executions-bulk.js';
import { runnerAuthenticator, runnerHandlers } from './routes/runner.js';
import { Engine } from '@svc/engine';
import { engineErrorToHttp } from './engine-errors.js';
import { statsHandlers } from './routes/stats.js';
import { emailHandlers, orgKeyAuthenticator } from './routes/emails.js';
import { flowHandlers } from './routes/flows.js';
import { namespaceHandlers } from './routes/namespaces.js';
import { namespaceCallerHandlers } from './routes/namespace-callers.js';
import { schemaHandlers } from './routes/schemas.js';
import { secretProviderHandlers } from './routes/secret-providers.js';
import { platformSecretHandlers } from './routes/platform-secrets.js';
import { secretHandlers } from './routes/secrets.js';
import { tokenHandlers } from './routes/tokens.js';
import { userHandlers } from './routes/users.js';
import { variableHandlers } from './routes/variables.js';
import { DEFAULT_UI_DIR, uiRouter } from './ui.js';
import { artifactHandlers } from './routes/artifacts.js';
import { uploadHandlers } from './routes/uploads.js';
import { eventHandlers } from './routes/events.js';
import { logHandlers } from './routes/logs.js';
import { LiveHub } from './live/hub.js';
import { liveSettingsFromConfig, type LiveSettings } from './live/settings.js';
import { hookHandlers, webhookKeyVerifier } from './routes/hooks.js';
import { gitHandlers, gitWebhook } from './routes/git.js';
import { organizationHandlers } from './routes/organizations.js';
import { compressResponses, securityHeaders } from './security-headers.js';
import { runFileHandlers } from './routes/run-file.js';
import { scheduleHandlers } from './routes/schedules.js';
import { createSso } from './routes/sso.js';
import { aiHandlers } from './routes/ai.js';
import { createInvoker } from './ai/invoke.js';
import { mountMcp } from './ai/mcp.js';
import { AIProviderStore, AIUsage, startAutoTriage } from '@svc/ai';

export interface GatewayDeps {
  config: Config;
  log: Logger;
  db: Db;
  /** The process's shared notifier (ServiceContext.notifier; GATEWAY_NOTIFIER's options): the live hub's LISTEN connection. */
  notifier: Notifier;
  storage: ObjectStore;
  instanceId: string;
  version: string;
  /** Time, injected so tests can move it (token expiry, sessions, login windows). Default: the system clock. */
  now?: () => Date;
  /** Directory of the built web UI (apps/web/dist). Default: found beside this app in the monorepo. */
  uiDir?: string;
  /** Replace readiness checks (tests simulate failures they cannot cause for real). */
  checkOverrides?: Partial<Record<CheckName, () => Promise<void>>>;
  /** Event stream tunables over the configured ones (a test lengthens the backstop poll to see notifications alone deliver). */
  liveOverrides?: Partial<LiveSettings>;
}

export interface Gateway {
  app: Express;
  metrics: GatewayMetrics;
  /** Live delivery of the event streams (through the process's one LISTEN connection, fan-out in process). */
  live: LiveHub;
  /**
   * Starts the SIGTERM drain: `/readyz/traffic` answers 503 from now on, so a
   * load balancer routes new requests elsewhere, while this instance still
   * serves every request and event stream it gets; each response asks its
   * client to close the connection. `close()` ends the drain.
   */
  drain(): void;
  /** Ends every event stream and releases the live connections; call before closing the server. */
  close(): Promise<void>;
}

export function buildGateway(deps: GatewayDeps): Gateway {
  const app = express();
  app.disable('x-powered-by');
  // SVC_TRUST_PROXY: who may set X-Forwarded-For (false by default: the socket address is the client's).
  app.set('trust proxy', deps.config.trustProxy);
  const metrics = createMetrics({ db: deps.db, onGaugeError: (gauge, err) => deps.log.warn('gauge query failed', { gauge, err }) });

  let draining = false;
  app.use(requestId());
  // While draining, every answer closes its connection: keep-alive clients reconnect, through the balancer, elsewhere.
  app.use((_req, res, next) => {
    if (draining) res.setHeader('Connection', 'close');
    next();
  });
  app.use(securityHeaders());
  app.use(compressResponses());
  app.use((req, res, next) => {
    const end = metrics.httpDuration.startTimer();
    let observed = false;
    // 'close' covers clients that went away; the status is 200 when none was written.
    const observe = () => {
      if (observed) return;
      observed = true;
      end({ method: req.method, route: routeOf(req, res), status: String(res.statusCode) });
    };
    res.once('finish', observe);
    res.once('close', observe);
    next();
  });
  app.use(requestLogger(deps.log));

  const named = (route: string) => (_req: Request, res: Response, next: () => void) => {
    res.locals.route = route;
    next();
  };

  app.get('/healthz', named('/healthz'), (_req, res) => {
    res.json({ status: 'ok' });
  });

  const checks = { ...readinessChecks(deps), ...deps.checkOverrides };
  app.get('/readyz', named('/readyz'), async (_req, res) => {
    const [report, details] = await Promise.all([runReadiness(checks), readinessDetails(deps.db)]);
    res.status(report.status === 'ok' ? 200 : 503).json(Object.keys(details).length ? { ...report, details } : report);
  });

  // What a load balancer routes by (an extension; docs/operating/upgrades.md): /readyz's checks, except that
  // migrations newer than this build which their release recorded as additive are tolerated (and named in
  // `details.migrations`), and a draining instance answers 503 at once.
  app.get('/readyz/traffic', named('/readyz/traffic'), async (_req, res) => {
    // A draining instance answers at once: the balancer should stop routing to it within one check.
    if (draining) {
      res.status(503).json({ status: 'fail', checks: { draining: 'this instance is stopping: it serves what it gets until it closes' }, failed: ['draining'] });
      return;
    }
    let tolerated = '';
    const report = await runReadiness({
      ...checks,
      migrations: async () => {
        tolerated = await migrationsForTraffic(deps.db);
      },
    });
    res.status(report.status === 'ok' ? 200 : 503).json(tolerated ? { ...report, details: { migrations: tolerated } } : report);
  });

  app.get('/metrics', named('/metrics'), metrics.handler);

  const now = deps.now ?? (() => new Date());
  const routeDeps = {
    db: deps.db,
    storage: deps.storage,
    now,
    publicUrl: deps.config.publicUrl,
    sessionTtlMs: deps.config.sessionTtlMs,
    maxFileBytes: deps.config.maxFileBytes,
    maxBundleBytes: deps.config.maxBundleBytes,
    masterKeys: deps.config.masterKeys,
  };
  const engine = new Engine({ pool: deps.db.pool, storage: deps.storage, clock: { now }, config: deps.config, log: deps.log });
  // The task runs whose runner (in a container) reports its end over the runner protocol end here.
  registerTaskRunDuration(metrics.registry, engine);
  // SVC_SSE_KEEPALIVE_MS shortens the keep-alive (tests, proxies with short idle timeouts).
  const liveSettings = { ...liveSettingsFromConfig(deps.config), ...deps.liveOverrides };
  const live = new LiveHub({ databaseUrl: deps.db.url, notifier: deps.notifier, log: deps.log, queryPoolSize: liveSettings.queryPoolSize });
  // The assistant's tools, its confirmed actions and MCP tools call operations through the same handlers.
  // Role bindings raise a caller's role on the namespaces they cover, in the one role check.
  const nsRoles = namespaceRoles(deps.db.pool);
  const { invoke, operation } = createInvoker(operations, () => handlers, nsRoles);
  // Daily AI limits, per user and for the deployment (SVC_AI_*_PER_DAY), shared by turns and triages.
  const aiUsage = new AIUsage({
    prisma: deps.db.prisma,
    now,
    limits: {
      userRequests: deps.config.aiUserRequestsPerDay,
      userTokens: deps.config.aiUserTokensPerDay,
      totalRequests: deps.config.aiTotalRequestsPerDay,
      totalTokens: deps.config.aiTotalTokensPerDay,
    },
  });
  // Single sign-on: its operations, and the two browser navigations to the IdP and back.
  const sso = createSso({ ...routeDeps, log: deps.log });
  const background = new Set<Promise<unknown>>();
  const stopping = new AbortController();
  // Each group types its own principal (users for /api/v1, run tokens for the runner protocol).
  const handlers: AllOperationHandlers = {
    ...schemaHandlers({ pool: deps.db.pool }),
    ...authHandlers(routeDeps),
    ...tokenHandlers(routeDeps),
    ...userHandlers(routeDeps),
    ...auditHandlers(routeDeps),
    // Online is judged on the database's clock unless a test injects one.
    ...adminHandlers({ db: deps.db, storage: deps.storage, now, clockOverride: deps.now }),
    ...namespaceHandlers(routeDeps),
    ...namespaceCallerHandlers({ db: deps.db, now }),
    ...flowHandlers(routeDeps),
    ...secretHandlers(routeDeps),
    ...variableHandlers(routeDeps),
    ...secretProviderHandlers(routeDeps),
    ...platformSecretHandlers(routeDeps),
    ...executionHandlers({ ...routeDeps, engine }),
    ...replayHandlers({ ...routeDeps, engine }),
    ...bulkExecutionHandlers({ ...routeDeps, engine }),
    ...runnerHandlers({ engine, maxArtifactBytes: deps.config.maxArtifactBytes }),
    ...logHandlers({ db: deps.db, hub: live, live: liveSettings, log: deps.log }),
    ...eventHandlers({ db: deps.db, hub: live, live: liveSettings, engine }),
    ...artifactHandlers({ db: deps.db, storage: deps.storage }),
    ...uploadHandlers({ db: deps.db, engine, maxInputFileBytes: deps.config.maxInputFileBytes }),
    ...hookHandlers({ pool: deps.db.pool, masterKeys: deps.config.masterKeys, publicUrl: deps.config.publicUrl, now, engine, maxBodyBytes: deps.config.maxBodyBytes }),
    ...gitHandlers(routeDeps),
    ...organizationHandlers({ db: deps.db, now, dailyQuota: deps.config.orgDailyQuota, rateLimit: deps.config.orgRateLimit }),
    ...alertHandlers({ db: deps.db, now, allowPrivateTargets: deps.config.alertAllowPrivateTargets, rulesPerNamespace: deps.config.alertRulesPerNamespace }),
    ...scheduleHandlers(routeDeps),
    ...backfillHandlers({
      db: deps.db,
      engine,
      now,
      maxInFlightPerFlow: deps.config.backfillMaxInFlightPerFlow,
      maxInFlightPerNamespace: deps.config.backfillMaxInFlightPerNamespace,
    }),
    ...roleBindingHandlers({ db: deps.db, now }),
    ...sso.handlers,
    ...runFileHandlers({ db: deps.db, engine }),
    ...statsHandlers({ db: deps.db, engine }),
    ...aiHandlers({ db: deps.db, engine, masterKeys: deps.config.masterKeys, now, invoke, log: deps.log, background, signal: stopping.signal, usage: aiUsage }),
  };
  const authenticate = createAuthenticator(routeDeps);
  const authenticateRunner = runnerAuthenticator(engine);

  const api = express.Router();
  // The push webhook finds its source before reading the body, and reads a capped body (routes/git.ts).
  const gitHook = gitWebhook(routeDeps);
  api.post('/hooks/git/:sourceId', gitHook.gate);
  mountOperations(api, {
    operations,
    handlers,
    authenticate,
    namespaceRoles: nsRoles,
    authenticateRunner,
    verifyWebhookKey: webhookKeyVerifier(deps.db.pool),
    verifySignature: gitHook.verify,
    log: deps.log,
    bodyLimit: deps.config.maxBodyBytes,
  });
  app.use(sso.router);
  app.use(api);
  const stopAutoTriage = startAutoTriage({
    deps: {
      pool: deps.db.pool,
      masterKeys: deps.config.masterKeys,
      providers: new AIProviderStore({ pool: deps.db.pool, masterKeys: deps.config.masterKeys }),
      log: deps.log,
      usage: aiUsage,
    },
    perHour: deps.config.aiTriagePerHour,
    pollMs: deps.config.aiTriagePollMs,
    background,
  });
  mountMcp(
    app,
    {
      authenticate: (req) => authenticate(req),
      highestRole: (p) => nsRoles.highestRole(p),
      invoke,
      operation,
      version: deps.version,
      publicUrl: deps.config.publicUrl,
      log: deps.log,
      bodyLimit: deps.config.maxBodyBytes,
      pool: deps.db.pool,
      masterKeys: deps.config.masterKeys,
    },
    named,
  );
  // The organization email interface: its own key kind, outside the operation index.
  const orgApi = express.Router();
  mountOperations(orgApi, {
    operations: organizationOperations,
    handlers: emailHandlers({ db: deps.db, now, dailyQuota: deps.config.orgDailyQuota, rateLimit: deps.config.orgRateLimit }),
    authenticate: () => undefined,
    authenticateOrgKey: orgKeyAuthenticator(deps.db, deps.config.orgRateLimit),
    log: deps.log,
    bodyLimit: deps.config.maxBodyBytes,
  });
  app.use(orgApi);
  app.use('/api', apiNotFound());

  // The web UI: static files and the index.html fallback for client routes (ui.ts).
  app.use(uiRouter({ uiDir: deps.uiDir ?? DEFAULT_UI_DIR, version: deps.version }));

  app.use(unmatched());
  app.use(errorHandler(deps.log, { mapError: engineErrorToHttp }));
  return {
    app,
    metrics,
    live,
    drain() {
      draining = true;
    },
    async close() {
      stopping.abort();
      stopAutoTriage();
      await Promise.allSettled([...background]);
      await live.close();
      await metrics.close();
    },
  };
}
