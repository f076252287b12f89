// Schemas of the backfill operations (operations/backfills.ts): a
// flow's schedule trigger run over a past range, its preview and progress.
import { Type } from '@sinclair/typebox';
import { component, DateTime, Nullable, StringEnum } from './helpers.js';

const closed = { additionalProperties: false } as const;

export const BACKFILL_STATES = ['running', 'paused', 'cancelled', 'done'] as const;
/** Most fire times one backfill may have. */
export const BACKFILL_MAX_FIRE_TIMES = 10_000;
/** Most fire times a preview lists (its `total` counts them all). */
export const BACKFILL_PREVIEW_LIST = 1_000;

export const CreateBackfillRequest = component(
  'CreateBackfillRequest',
  Type.Object(
    {
      trigger_id: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'A `schedule` trigger of the flow; optional when the flow has exactly one' })),
      from: DateTime({ description: 'Start of the range (included)' }),
      to: DateTime({ description: 'End of the range (included); not in the future' }),
      max_in_flight: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'Executions of the backfill not ended at any time, at most' })),
      dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Only preview the fire times (200), create nothing' })),
    },
    closed,
  ),
);

export const BackfillPreview = component(
  'BackfillPreview',
  Type.Object(
    {
      namespace: Type.String(),
      flow_id: Type.String(),
      trigger_id: Type.String(),
      cron: Type.String(),
      timezone: Type.String(),
      from: DateTime(),
      to: DateTime(),
      total: Type.Integer({ description: 'Fire times the backfill would create' }),
      fire_times: Type.Array(DateTime(), { description: `The fire times in UTC, oldest first; the first ${BACKFILL_PREVIEW_LIST} when there are more` }),
    },
    closed,
  ),
);

export const BackfillProgress = component(
  'BackfillProgress',
  Type.Object(
    {
      total: Type.Integer(),
      done: Type.Integer({ description: 'Executions ended SUCCESS (or SKIPPED by the flow concurrency rule)' }),
      running: Type.Integer({ description: 'Executions not ended (QUEUED, RUNNING, CANCELLING)' }),
      failed: Type.Integer({ description: 'Executions ended FAILED, TIMED_OUT or CANCELLED, and fire times that made no execution' }),
      left: Type.Integer({ description: 'Fire times with no execution yet' }),
      cancelled: Type.Integer({ description: 'Fire times cancelled before they had an execution' }),
    },
    closed,
  ),
);

export const Backfill = component(
  'Backfill',
  Type.Object(
    {
      id: Type.String(),
      namespace: Type.String(),
      flow_id: Type.String(),
      trigger_id: Type.String(),
      cron: Type.String(),
      timezone: Type.String(),
      from: DateTime(),
      to: DateTime(),
      max_in_flight: Type.Integer(),
      state: StringEnum(BACKFILL_STATES),
      label: Type.String({ description: 'The label every execution of the backfill carries, as `key:value` (a listExecutions `label` filter)' }),
      progress: BackfillProgress,
      created_by: Type.String(),
      created_at: DateTime(),
      updated_at: DateTime(),
      ended_at: Nullable(DateTime()),
    },
    closed,
  ),
);
