// Everything inside the engine, for its own tests, the apps' tests and the
// benchmarks. Apps use only what `@svc/engine` (index.ts) exports: the Engine.
export * from './constants.js';
export { CHANNELS, inTx, type Conn } from './db.js';
export { resolveInputs, type InputProblem } from './planning/inputs.js';
export { loadRunTokenKey, signRunToken, verifyRunToken } from './systems/run-tokens.js';
export { advance, advanceMany, latestRuns, lockExecution, onlineSince, onlineSinceSql, scopeOf, type ExecutionRow, type FollowUp, type TaskRunRow } from './systems/advance.js';
export { Planner, planExecutions, hasStaleRequests, PLAN_BATCH, type PlannerOptions, type PassResult } from './systems/planner.js';
export {
  createExecution,
  createExecutionWith,
  startExecution,
  startQueued,
  resolveExecutor,
  SnapshotFacts,
  type Created,
  type EngineConfig,
  type NewExecution,
  type StartDeps,
} from './systems/start.js';
export { FlowCache, triggerFlow, triggerFlowWith, type TriggerRequest } from './systems/trigger.js';
export {
  completeTaskRun,
  completeTaskRuns,
  endAndPlan,
  endTaskRun,
  planReadOf,
  type EndResult,
  type Masking,
  type PendingCompletion,
  type TaskCompletion,
} from './systems/completion.js';
export { SecretMasker, MASK } from './systems/secret-masking.js';
export { claimRuns, claimTaskRuns, clearNoInstanceReason, type ClaimedRun, type ClaimResult } from './systems/dispatch.js';
export { cancelExecution } from './systems/cancel.js';
export { rerunExecution, restartExecution } from './systems/rerun.js';
export { runFollowUps, drainOutbox, OUTBOX_BACKSTOP_AGE_MS } from './systems/followups.js';
export { recordFollowUps } from './systems/outbox.js';
export { timeOutExecutions, timeOutTaskRuns, failLostTaskRuns, stopInstanceTaskRuns } from './systems/watchdog.js';
export { prepareTask, DispatchError, type PreparedTask, type RunnerSpec, type SpecDeps } from './systems/prepare.js';
export { loadExecutions } from './systems/serialize.js';
export { appendLogs, storeArtifact, heartbeatTaskRun, artifactKey, LOG_CHANNEL, type IncomingLogLine, type TaskRunIdentity } from './systems/runner-io.js';
export { fireFlowTriggers, sweepFlowTriggers, type FlowTriggerResult } from './systems/flow-triggers.js';
export * from './errors.js';
export { withRetry, IO_RETRY_FOR_MS, RetriesExhaustedError } from './retry.js';
export { failLostContainerRuns, CONTAINER_EXECUTORS } from './systems/watchdog.js';
export { Engine } from './engine.js';
export { STALE_REQUEST_MS } from './systems/watchdog.js';
export { ExecutionRetention, EXECUTION_CHILD_TABLES, EXECUTION_END_STATES } from './systems/retention.js';

import type pg from 'pg';
import { Engine as TheEngine } from './engine.js';
import type { EngineStorage } from './resources.js';

/** An Engine for tests and benchmarks: the process executor by default, no master keys, generous limits, a quiet log. */
export function testEngine(o: {
  pool: pg.Pool;
  storage: EngineStorage;
  now?: () => Date;
  log?: { warn(msg: string, meta?: Record<string, unknown>): unknown; info(msg: string, meta?: Record<string, unknown>): unknown };
}): TheEngine {
  return new TheEngine({
    pool: o.pool,
    storage: o.storage,
    clock: { now: o.now ?? (() => new Date()) },
    config: { defaultExecutor: 'process', masterKeys: [], maxArtifactBytes: 100 * 1024 * 1024, maxBundleBytes: 100 * 1024 * 1024 },
    log: o.log ?? { warn: () => undefined, info: () => undefined },
  });
}
