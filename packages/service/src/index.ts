export { runService, resolveDatabaseUrl, type ServiceContext, type ServiceHandle, type RunServiceOptions } from './run-service.js';
export { systemClock, type Clock } from './clock.js';
export { buildVersion } from './version.js';
export { registerBuildInfo } from './build-info.js';
export { registerTaskRunDuration, type EndedRun } from './task-run-metrics.js';
export {
  databaseChecks,
  migrationsForTraffic,
  runReadiness,
  startHealthServer,
  READINESS_TIMEOUT_MS,
  type HealthServer,
  type HealthServerOptions,
  type ReadinessCheck,
  type ReadinessReport,
} from './health-server.js';
export { applyHttpTimeouts, httpTimeouts, type HttpTimeouts } from './http-timeouts.js';
export { activeTracing, startTracing, tracingEndpoint, type Tracing } from './tracing.js';
