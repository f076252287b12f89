// The engine as apps see it: one Engine built from one bag of resources
// (engine.ts), the errors it raises (each with a code the gateway maps to the
// envelope), and the names of its NOTIFY channels. Its tests and the
// benchmarks reach inside through `@svc/engine/internal`.
export { Engine } from './engine.js';
export type { ApiExecution, EngineResources, EngineStorage, EngineTx, Started, WatchdogReport } from './resources.js';
export { STALE_REQUEST_MS } from './systems/watchdog.js';
export type { ExecutionObject, ExecutionRetention, ExecutionChildTable } from './systems/retention.js';
export {
  ENGINE_ERROR_CODES,
  EngineError,
  ExecutionEndedError,
  ExecutionNotFoundError,
  FlowDisabledError,
  FlowNotFoundError,
  InputsInvalidError,
  NotRestartableError,
  TaskRunNotFoundError,
  TaskRunNotStartableError,
  type EngineErrorCode,
  type EngineErrorDetail,
} from './errors.js';
export { CHANNELS } from './db.js';
export { LOG_CHANNEL, type IncomingLogLine, type RunnerEvent, type TaskRunIdentity } from './systems/runner-io.js';
export { IO_RETRY_FOR_MS, RetriesExhaustedError, withRetry } from './retry.js';
export type { ClaimedRun, ClaimOptions, ClaimResult } from './systems/dispatch.js';
export type { TaskCompletion } from './systems/completion.js';
export type { NewExecution, StartAudit } from './systems/start.js';
export type { TriggerRequest } from './systems/trigger.js';
export type { ExecutionFilter } from './sql/list-executions.js';
export type { PreparedTask, RunnerSpec } from './systems/prepare.js';
export type { FlowTriggerResult } from './systems/flow-triggers.js';
export { dashboardWindow, type DashboardQuery, type DashboardRange } from './systems/dashboards.js';
