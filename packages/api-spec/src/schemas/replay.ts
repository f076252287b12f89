// The shapes of a replay (an extension, docs/using/executions.md#replay):
// what it changes (ReplayRequest) and what a dry run answers (ReplayPlan).
import { Type } from '@sinclair/typebox';
import { component, FreeObject, Nullable, StringEnum, StringMap } from './helpers.js';

const REVISIONS = ['pinned', 'latest'] as const;

export const ReplayRequest = component(
  'ReplayRequest',
  Type.Object(
    {
      inputs: Type.Optional(FreeObject("Merged over the original's inputs, then checked against the chosen revision's inputs as a trigger's are")),
      labels: Type.Optional(
        Type.Unsafe<Record<string, string | null>>({
          type: 'object',
          additionalProperties: { type: ['string', 'null'] },
          description: "Merged over the original's labels; a label given null is removed",
        }),
      ),
      from: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 63,
          description:
            'The task to replay from: it and the tasks downstream of it run; the other tasks whose run in the original was SUCCESS are reused. Default none: every task runs',
        }),
      ),
      revision: Type.Optional(
        StringEnum(REVISIONS, {
          default: 'pinned',
          description: "`pinned`: the original's flow revision and snapshot; `latest`: the flow's current revision and its namespace's current snapshot",
        }),
      ),
      dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Answer the plan (200 ReplayPlan) and start nothing' })),
    },
    { additionalProperties: false },
  ),
);

export const ReplayPlan = component(
  'ReplayPlan',
  Type.Object(
    {
      reuse: Type.Array(
        Type.Object({ task_id: Type.String(), task_run_id: Type.String({ description: "The original's run that is copied (reason `reused`)" }) }, { additionalProperties: false }),
      ),
      run: Type.Array(Type.String(), { description: 'The tasks that run' }),
      inputs: FreeObject('The inputs of the new execution (a value the original read from secret() stays `***`)'),
      labels: StringMap({ description: 'The labels of the new execution' }),
      changed_inputs: Type.Array(Type.String(), { description: "Input ids whose value differs from the original's" }),
      revision: Type.Object({ kind: StringEnum(REVISIONS), flow_revision_id: Nullable(Type.String({ description: 'Null for a file run' })) }, { additionalProperties: false }),
    },
    { additionalProperties: false, description: 'What a replay would reuse and run' },
  ),
);
