export { buildGateway, type Gateway, type GatewayDeps } from './app.js';
export { GATEWAY_NOTIFIER } from './live/hub.js';
export { createMetrics, EXECUTION_STATES, TASK_RUN_STATES } from './metrics.js';
export { runReadiness, readinessChecks, CHECK_NAMES } from './readiness.js';
