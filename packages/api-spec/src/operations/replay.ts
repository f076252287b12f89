// Replay (an extension, docs/using/executions.md#replay): a new execution of
// an ended one with inputs and labels changed, from a task, on the pinned or
// the latest flow revision; a dry run answers the plan instead.
import type { Operation } from '../operation.js';
import { ReplayPlan, ReplayRequest } from '../schemas/replay.js';
import { Execution } from '../schemas/resources.js';
import { ExecutionParams } from '../schemas/requests.js';
import { created, err, ok, OPERATOR } from './shared.js';

export const replayOperations: Operation[] = [
  {
    operationId: 'replayExecution',
    method: 'post',
    path: '/api/v1/executions/{executionId}/replay',
    tag: 'executions',
    summary: 'Replay an ended execution (an extension): changed inputs and labels, from a task, on the pinned or latest revision',
    description:
      'Allowed from SUCCESS, FAILED, TIMED_OUT, CANCELLED. With `from`, the tasks of the chosen revision that are neither `from` nor downstream of it and whose run in the original was SUCCESS are copied (reason `reused`, `reused_from_id` set); every other task runs. Without `from`, every task runs. ' +
      'The new execution has `trigger_type` `replay`, `replay_of` the original, and `trigger_payload.replay_of`. Writes the audit event `execution.replay` with the changed input ids (never their values).',
    auth: OPERATOR,
    request: { params: ExecutionParams, body: ReplayRequest, bodyRequired: false },
    responses: {
      ...ok(ReplayPlan, 'The plan (`dry_run`): nothing was started'),
      ...created(Execution, 'The new execution'),
      ...err(404, '`execution_not_found`; `flow_not_found`: `latest` of a flow deleted since'),
      ...err(409, '`not_restartable`: the execution has not ended; `flow_disabled`: `latest` of a disabled flow'),
      ...err(422, '`validation_failed`: `from` is not a task of the chosen revision, an input is not of its type (`inputs.<id>`), or `latest` of a file run (`revision`)'),
    },
  },
];
