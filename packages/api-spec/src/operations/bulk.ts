// Bulk actions on executions (an extension, docs/using/executions.md): cancel,
// rerun or restart the executions a filter selects, each as its single
// operation would, with a dry run that counts them first.
import type { Operation } from '../operation.js';
import { BULK_EXECUTIONS_LIMIT, BulkExecutionsRequest, BulkExecutionsResult } from '../schemas/bulk.js';
import { OPERATOR, err, ok } from './shared.js';

export const bulkExecutionOperations: Operation[] = [
  {
    operationId: 'bulkExecutions',
    method: 'post',
    path: '/api/v1/executions/bulk',
    tag: 'executions',
    summary: `Cancel, rerun or restart the executions a filter selects (at most ${BULK_EXECUTIONS_LIMIT.toLocaleString('en')}), or count them with dry_run`,
    description:
      'Acts only on the executions whose namespace the caller holds the operator role on (its global role, or role bindings); the others are neither touched nor counted, so a caller bound operator on some namespaces only may call it. ' +
      `A filter matching more than ${BULK_EXECUTIONS_LIMIT.toLocaleString('en')} executions is refused (422, naming the count): the dry run tells the count first. ` +
      'Each execution goes through the single operation (cancelExecution, rerunExecution, restartExecution) and writes its audit event (`execution.cancel`, `execution.rerun`, `execution.restart`); one more event, `execution.bulk`, records the request. ' +
      "An execution whose state refuses the action (a cancel of an ended one, a restart of a SUCCESS one) is reported with the single operation's error code and does not fail the others.",
    auth: OPERATOR,
    request: { body: BulkExecutionsRequest },
    responses: {
      ...ok(BulkExecutionsResult, 'The dry run (`ineligible`), or one outcome per matched execution (`results`)'),
      ...err(403, '`forbidden`: the caller holds the operator role on no namespace'),
      ...err(422, `\`validation_failed\`: an empty filter, or one that matches more than ${BULK_EXECUTIONS_LIMIT.toLocaleString('en')} executions`),
    },
  },
];
