// The engine's errors in the envelope: one exhaustive switch over their
// codes, used by the one error middleware (app.ts). A new engine error code
// does not compile until it is mapped here.
import { assertNever } from '@svc/assert';
import { EngineError, type EngineErrorCode } from '@svc/engine';
import { conflict, HttpError, notFound, validationFailed } from '@svc/http';

function toHttp(code: EngineErrorCode, err: EngineError): HttpError {
  switch (code) {
    case 'flow_not_found':
    case 'task_run_not_found':
      return notFound(err.message);
    case 'execution_not_found':
      return notFound(err.message, 'execution_not_found');
    case 'task_not_found':
      return notFound(err.message, 'task_not_found');
    case 'not_awaiting_approval':
      return conflict('not_awaiting_approval', err.message);
    case 'not_running':
      return conflict('not_running', err.message);
    case 'flow_disabled':
      return conflict('flow_disabled', err.message);
    case 'execution_ended':
      return conflict('execution_ended', err.message);
    case 'not_restartable':
      return conflict('not_restartable', err.message);
    case 'task_run_not_startable':
      return conflict('conflict', err.message);
    case 'artifact_too_large':
      return new HttpError(413, 'too_large', err.message);
    case 'artifact_checksum_mismatch':
      return validationFailed([{ field: 'x-svc-sha256', message: err.message }]);
    case 'inputs_invalid':
    case 'replay_invalid':
      return validationFailed(err.details ?? [{ field: 'inputs', message: err.message }]);
    default:
      return assertNever(code, 'engine error code');
  }
}

/** The `mapError` of the error middleware: engine errors to the envelope; anything else is left to it. */
export function engineErrorToHttp(err: unknown): HttpError | undefined {
  return err instanceof EngineError ? toHttp(err.code, err) : undefined;
}
