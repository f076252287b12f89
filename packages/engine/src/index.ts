// The engine as apps see it: one Engine built from one bag of resources
// (engine.ts), its façade grouped by what callers do (executions, dispatch,
// runner, dashboards, maintenance), the errors it raises (each with a code
// the gateway maps to the envelope), and the names of its NOTIFY channels.
// Its tests and the benchmarks reach inside through `@svc/engine/internal`.
export { Engine, type EngineDashboards, type EngineDispatch, type EngineExecutions, type EngineMaintenance, type EngineRunner } from './engine.js';
export type { EndedTaskRun, TaskRunEndListener } from './systems/completion.js';
export type { ApiExecution, EngineResources, EngineStorage, EngineTx, Started, WatchdogReport } from './resources.js';
export { STALE_REQUEST_MS } from './systems/watchdog.js';
export type { ExecutionObject, ExecutionRetention, ExecutionChildTable } from './systems/retention.js';
export type { ArtifactKind, StoreArtifactOptions } from './systems/runner-io.js';
export {
  ENGINE_ERROR_CODES,
  EngineError,
  ExecutionEndedError,
  ExecutionNotFoundError,
  FlowDisabledError,
  FlowNotFoundError,
  InputsInvalidError,
  NotAwaitingApprovalError,
  NotRestartableError,
  NotRunningError,
  ReplayInvalidError,
  ArtifactTooLargeError,
  ArtifactChecksumMismatchError,
  TaskNotFoundError,
  TaskRunNotFoundError,
  TaskRunNotStartableError,
  type EngineErrorCode,
  type EngineErrorDetail,
} from './errors.js';
export { CHANNELS, LOG_CHANNEL } from './channels.js';
export { IO_RETRY_FOR_MS, RetriesExhaustedError, withRetry } from './retry.js';
export type {
  ClaimedRun,
  ClaimOptions,
  ClaimResult,
  IncomingLogLine,
  NewExecution,
  RunnerEvent,
  StartAudit,
  TaskCompletion,
  TaskRunIdentity,
  TriggerRequest,
  TriggerBatchRequest,
  BatchCreated,
} from './types.js';
export type { ExecutionFilter, ExecutionMatch, ExecutionPage, MatchedExecution } from './sql/list-executions.js';
export type { PreparedTask, RunnerSpec } from './systems/prepare.js';
export type { ApprovalDecision, ApprovalGateSeen } from './systems/approvals.js';
export type { ReplayPlan, ReplayRequest } from './systems/replay.js';
export type { ApprovalRecord } from './planning/approval.js';
export type { FlowTriggerResult } from './systems/flow-triggers.js';
export { dashboardWindow, type DashboardQuery, type DashboardRange } from './systems/dashboards.js';
