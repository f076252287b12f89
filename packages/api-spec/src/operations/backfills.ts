// Backfills: run a flow's schedule trigger over a past range,
// with the fire times the scheduler would have fired (its time zone and
// daylight-saving rules), a preview, an in-flight limit, a label on every
// execution, pause/resume/cancel and progress. Beyond the spec's operation
// index (EXTENSION_OPERATION_IDS, docs/using/backfills.md); the scheduler
// creates the executions from the rows these operations write.
import type { Operation } from '../operation.js';
import { Backfill, BackfillPreview, CreateBackfillRequest } from '../schemas/backfills.js';
import { OPERATION_CURSORS } from '../schemas/cursors.js';
import { Page } from '../schemas/helpers.js';
import { FlowParams, ListQuery, OpaqueId, Params } from '../schemas/requests.js';
import { OPERATOR, VIEWER, created, err, ok } from './shared.js';

const BackfillParams = Params({ backfillId: OpaqueId });
const noBackfill = err(404, 'No such backfill');

export const backfillOperations: Operation[] = [
  {
    operationId: 'createBackfill',
    method: 'post',
    path: '/api/v1/flows/{namespace}/{flowId}/backfills',
    tag: 'schedules',
    summary: 'Run a schedule trigger over a past range (or preview its fire times with dry_run); every execution is labelled `backfill:<id>`',
    auth: OPERATOR,
    request: { params: FlowParams, body: CreateBackfillRequest },
    responses: {
      ...ok(BackfillPreview, 'The preview (dry_run): nothing created'),
      ...created(Backfill),
      ...err(404, 'No such flow or trigger'),
      ...err(422, 'Not a schedule trigger, no fire time in the range, too many, or a range in the future'),
    },
  },
  {
    operationId: 'listBackfills',
    method: 'get',
    path: '/api/v1/flows/{namespace}/{flowId}/backfills',
    tag: 'schedules',
    summary: "The flow's backfills, newest first, with their progress",
    auth: VIEWER,
    request: { params: FlowParams, query: ListQuery, cursor: OPERATION_CURSORS.listBackfills },
    responses: { ...ok(Page(Backfill)), ...err(404, 'No such flow') },
  },
  {
    operationId: 'getBackfill',
    method: 'get',
    path: '/api/v1/backfills/{backfillId}',
    tag: 'schedules',
    summary: 'A backfill with its progress (done, running, failed, left)',
    auth: VIEWER,
    request: { params: BackfillParams },
    responses: { ...ok(Backfill), ...noBackfill },
  },
  {
    operationId: 'pauseBackfill',
    method: 'post',
    path: '/api/v1/backfills/{backfillId}/pause',
    tag: 'schedules',
    summary: 'Pause a running backfill: no new execution until resumed (those in flight go on)',
    auth: OPERATOR,
    request: { params: BackfillParams },
    responses: { ...ok(Backfill), ...noBackfill, ...err(409, 'Not running') },
  },
  {
    operationId: 'resumeBackfill',
    method: 'post',
    path: '/api/v1/backfills/{backfillId}/resume',
    tag: 'schedules',
    summary: 'Resume a paused backfill',
    auth: OPERATOR,
    request: { params: BackfillParams },
    responses: { ...ok(Backfill), ...noBackfill, ...err(409, 'Not paused') },
  },
  {
    operationId: 'cancelBackfill',
    method: 'post',
    path: '/api/v1/backfills/{backfillId}/cancel',
    tag: 'schedules',
    summary: 'Cancel a running or paused backfill: its fire times left are dropped and its executions in flight cancelled',
    auth: OPERATOR,
    request: { params: BackfillParams },
    responses: { ...ok(Backfill), ...noBackfill, ...err(409, 'Already cancelled or done') },
  },
];
