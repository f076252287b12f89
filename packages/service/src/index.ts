export { runService, resolveDatabaseUrl, type ServiceContext, type ServiceHandle, type RunServiceOptions } from './run-service.js';
export { systemClock, type Clock } from './clock.js';
export { buildVersion } from './version.js';
