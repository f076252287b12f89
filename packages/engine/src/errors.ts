// Every error the engine raises on purpose is an EngineError with a code, so
// that one middleware (the gateway's) maps each code to the error envelope
// through one exhaustive switch, and a new code breaks the build there until
// it is mapped. Unknown failures stay ordinary errors (500 internal).

/** The codes of the engine's errors. */
export const ENGINE_ERROR_CODES = [
  'flow_not_found',
  'flow_disabled',
  'inputs_invalid',
  'execution_not_found',
  'execution_ended',
  'not_restartable',
  'task_run_not_found',
  'task_run_not_startable',
  'task_not_found',
  'not_awaiting_approval',
  'not_running',
  'replay_invalid',
  'artifact_too_large',
  'artifact_checksum_mismatch',
] as const;
export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[number];

/** A field at fault, for `inputs_invalid` and `replay_invalid`. */
export interface EngineErrorDetail {
  field: string;
  message: string;
}

export class EngineError extends Error {
  override readonly name: string = 'EngineError';
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly details?: EngineErrorDetail[],
  ) {
    super(message);
  }
}

/** The flow does not exist (or its namespace has no version yet). */
export class FlowNotFoundError extends EngineError {
  override readonly name = 'FlowNotFoundError';
  constructor(message: string) {
    super('flow_not_found', message);
  }
}

/** The flow is disabled (409 `flow_disabled`). */
export class FlowDisabledError extends EngineError {
  override readonly name = 'FlowDisabledError';
  constructor(message: string) {
    super('flow_disabled', message);
  }
}

/** Trigger inputs do not match the flow's inputs. */
export class InputsInvalidError extends EngineError {
  override readonly name = 'InputsInvalidError';
  constructor(readonly problems: EngineErrorDetail[]) {
    super('inputs_invalid', problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
  }
}

export class ExecutionNotFoundError extends EngineError {
  override readonly name = 'ExecutionNotFoundError';
  constructor(message: string) {
    super('execution_not_found', message);
  }
}

/** Cancel of an execution that has ended (409 `execution_ended`). */
export class ExecutionEndedError extends EngineError {
  override readonly name = 'ExecutionEndedError';
  constructor(message: string) {
    super('execution_ended', message);
  }
}

/** Rerun or restart from a state that allows neither (409 `not_restartable`). */
export class NotRestartableError extends EngineError {
  override readonly name = 'NotRestartableError';
  constructor(message: string) {
    super('not_restartable', message);
  }
}

/** A runner asked for the spec of a task run that could not be prepared (it was ended FAILED). */
export class TaskRunNotStartableError extends EngineError {
  override readonly name = 'TaskRunNotStartableError';
  constructor(message: string) {
    super('task_run_not_startable', message);
  }
}

export class TaskRunNotFoundError extends EngineError {
  override readonly name = 'TaskRunNotFoundError';
  constructor(message: string) {
    super('task_run_not_found', message);
  }
}

/** An execution has no task of that id (approve and reject name a task). */
export class TaskNotFoundError extends EngineError {
  override readonly name = 'TaskNotFoundError';
  constructor(message: string) {
    super('task_not_found', message);
  }
}

/** A decision on a task run that is not waiting for approval (409 `not_awaiting_approval`). */
export class NotAwaitingApprovalError extends EngineError {
  override readonly name = 'NotAwaitingApprovalError';
  constructor(message: string) {
    super('not_awaiting_approval', message);
  }
}

/** Pause of an execution that is not RUNNING (queued, or cancelling: 409 `not_running`). */
export class NotRunningError extends EngineError {
  override readonly name = 'NotRunningError';
  constructor(message: string) {
    super('not_running', message);
  }
}

/** A replay names what its original's flow does not have (a `from` task, the latest revision of a file run): 422 on that field. */
export class ReplayInvalidError extends EngineError {
  override readonly name = 'ReplayInvalidError';
  constructor(readonly problems: EngineErrorDetail[]) {
    super('replay_invalid', problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
  }
}

/** An upload through the runner protocol passed its limit (413 `too_large`); nothing of it was stored. */
export class ArtifactTooLargeError extends EngineError {
  override readonly name = 'ArtifactTooLargeError';
  constructor(
    readonly fileName: string,
    readonly limit: number,
    readonly setting: string,
  ) {
    super('artifact_too_large', `${fileName} is over ${setting} (${limit} bytes)`);
  }
}

/** An upload whose bytes do not have the sha256 its sender declared (422); nothing of it was stored. */
export class ArtifactChecksumMismatchError extends EngineError {
  override readonly name = 'ArtifactChecksumMismatchError';
  constructor(
    readonly fileName: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super('artifact_checksum_mismatch', `${fileName}: the body's sha256 is ${actual}, the sender declared ${expected}`);
  }
}
