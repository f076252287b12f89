// Resources whose fields the spec lists ("Resources and their fields"): names,
// types and required lists follow it exactly. Objects the spec says "may carry
// additional properties" keep `additionalProperties: true`.
import { Type } from '@sinclair/typebox';
import { component, DateTime, FreeObject, Int64, Nullable, NullableRef, StringEnum, StringMap } from './helpers.js';

import { EXECUTION_STATES, TASK_RUN_STATES } from '@svc/vocabulary';

export { EXECUTION_STATES, TASK_RUN_STATES };

export const ExecutionState = component('ExecutionState', StringEnum(EXECUTION_STATES, { description: 'Execution state' }));
export const TaskRunState = component('TaskRunState', StringEnum(TASK_RUN_STATES, { description: 'Task run state' }));
export const DASHBOARD_RANGES = ['24h', '7d', '30d'] as const;

export const ErrorDetail = component(
  'ErrorDetail',
  Type.Object(
    {
      field: Type.String({ description: 'Query or path parameter name, `body`, or a readable body path such as `changes[3].path`' }),
      message: Type.String(),
    },
    { additionalProperties: false },
  ),
);

export const ErrorEnvelope = component(
  'ErrorEnvelope',
  Type.Object(
    {
      error: Type.Object(
        {
          code: Type.String({ description: 'Stable machine-readable code, e.g. `not_found`, `validation_failed`' }),
          message: Type.String({ description: 'Human-readable message' }),
          details: Type.Optional(Type.Array(ErrorDetail, { description: 'Present only when the error has details' })),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false, description: 'Every error response body' },
  ),
);

// Not in the spec's table (task runs "may carry additional properties"), but
// the engine sends it on every task run and the UI shows it: declared so
// clients read it typed. Inline rather than a component: Nullable() copies it.
const TaskRunProgress = Type.Object(
  {
    type: StringEnum(['started', 'progress'] as const, { description: 'The runner event it comes from (runnerPostEvents)' }),
    at: DateTime({ description: 'When the service recorded the event' }),
    message: Type.Optional(Type.String({ description: "What the runner or task is doing; masked against the run's secrets" })),
    percent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  },
  { additionalProperties: true, description: 'The latest `started` or `progress` runner event of a task run' },
);

// Approval gates (an extension): the gate as the flow declared it, copied on
// the task run when it starts waiting, and the decision once made.
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'timed_out'] as const;
export const TaskRunApproval = component(
  'TaskRunApproval',
  Type.Object(
    {
      status: StringEnum(APPROVAL_STATUSES, {
        description: "`pending`: waiting for a decision; `approved`, `rejected`: by a person; `timed_out`: the gate's timeout applied `on_timeout`",
      }),
      requested_at: DateTime({ description: 'When the task run started waiting' }),
      deadline: Nullable(DateTime({ description: 'When the timeout applies `on_timeout`; null: no timeout' })),
      on_timeout: StringEnum(['fail', 'skip', 'approve'] as const),
      approvers: Type.Object(
        { role: Type.String({ description: "Minimum role on the flow's namespace" }), groups: Type.Array(Type.String(), { description: 'IdP groups whose members may decide' }) },
        { additionalProperties: false },
      ),
      forbid_self_approval: Type.Boolean({ description: 'The person who started the execution may not decide' }),
      form: Type.Array(
        Type.Object(
          {
            id: Type.String(),
            type: StringEnum(['string', 'number', 'boolean'] as const),
            required: Type.Boolean(),
            description: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
      ),
      by: Nullable(Type.String({ description: 'Who decided (an email); null while pending and when the timeout decided' })),
      at: Nullable(DateTime({ description: 'When the decision was made' })),
      inputs: FreeObject('The form values given with the decision'),
      comment: Type.String(),
    },
    { additionalProperties: true, description: 'An approval gate of a task run (`approval` in the flow, an extension) and its decision' },
  ),
);

export const TaskRun = component(
  'TaskRun',
  Type.Object(
    {
      id: Type.String(),
      task_key: Type.String(),
      task_type: Type.String(),
      executor_type: Type.String(),
      pool: Type.String(),
      state: TaskRunState,
      reason: Type.String(),
      error: Type.String(),
      attempt: Int64(),
      child_execution_id: Type.Optional(Nullable(Type.String())),
      reused_from_id: Type.Optional(Nullable(Type.String())),
      exit_code: Type.Optional(Nullable(Int64())),
      duration_ms: Type.Optional(Nullable(Int64())),
      queued_at: Type.Optional(Nullable(DateTime())),
      started_at: Type.Optional(Nullable(DateTime())),
      ended_at: Type.Optional(Nullable(DateTime())),
      outputs: Type.Optional(
        Type.Union([FreeObject(), Type.Array(Type.Unknown()), Type.Null()], {
          description: "The task's outputs; a fan-out's parent run (`fan_out` set) has the list of its items' outputs, in item order",
        }),
      ),
      progress: Type.Optional(Nullable(TaskRunProgress)),
      // Fan-out (for_each, an extension of the flow format): additional properties.
      item_index: Type.Optional(Int64({ description: 'An item of a fan-out (`for_each`): its 0-based index. Absent on other task runs' })),
      item: Type.Optional(Type.Unknown({ description: "An item of a fan-out: its value, the list's element it runs for" })),
      fan_out: Type.Optional(Nullable(Int64({ description: "A fan-out's parent run: how many items its list rendered to (null until rendered)" }))),
      item_counts: Type.Optional(
        Type.Object(
          {
            total: Int64(),
            pending: Int64(),
            queued: Int64(),
            running: Int64(),
            success: Int64(),
            failed: Int64(),
            timed_out: Int64(),
            cancelled: Int64(),
            skipped: Int64(),
          },
          { additionalProperties: false, description: "A fan-out's parent run: its items by the state of their latest attempt" },
        ),
      ),
      // Approval gates (an extension): additional properties.
      approval: Type.Optional(NullableRef(TaskRunApproval, 'An approval gate once reached (null: the task has none, or it was not reached)')),
    },
    { additionalProperties: true, description: 'One attempt of one task of an execution, or of one item of a fan-out' },
  ),
);

export const ExecutionChild = component(
  'ExecutionChild',
  Type.Object({ id: Type.String(), state: Type.String(), created_at: DateTime() }, { additionalProperties: true, description: 'A child execution started by a subflow task' }),
);

export const Execution = component(
  'Execution',
  Type.Object(
    {
      id: Type.String(),
      state: ExecutionState,
      reason: Type.String(),
      error: Type.String(),
      namespace: Type.String(),
      flow_id: Type.Optional(Nullable(Type.String({ description: 'Null for file runs' }))),
      flow_revision_id: Type.Optional(Nullable(Type.String())),
      git_sha: Type.Optional(Type.String()),
      snapshot_id: Type.String(),
      snapshot_version: Type.Optional(Nullable(Int64())),
      inputs: FreeObject('Free-form input values'),
      labels: StringMap(),
      outputs: Type.Optional(Nullable(FreeObject())),
      parent_execution_id: Type.Optional(Nullable(Type.String())),
      restart_of_id: Type.Optional(Nullable(Type.String())),
      chain_depth: Int64(),
      children: Type.Array(ExecutionChild),
      created_at: DateTime(),
      created_by: Type.String(),
      started_at: Type.Optional(Nullable(DateTime())),
      ended_at: Type.Optional(Nullable(DateTime())),
      duration_ms: Type.Optional(Nullable(Int64())),
      secret_keys_used: Type.Array(Type.String()),
      trigger_type: Type.String(),
      trigger_payload: FreeObject(),
      task_runs: Type.Array(TaskRun),
      // Pause and resume (an extension): additional properties.
      paused: Type.Optional(Type.Boolean({ description: 'The execution is paused: no new task run starts until it is resumed (its reason is `paused`)' })),
      paused_at: Type.Optional(Nullable(DateTime())),
      paused_by: Type.Optional(Nullable(Type.String())),
      // Replay (an extension): an additional property.
      replay_of: Type.Optional(Nullable(Type.String({ description: 'The execution this one replays (replayExecution), else null' }))),
    },
    { additionalProperties: true, description: 'One run of a flow (or of a namespace file)' },
  ),
);

export const NamespaceVersion = component(
  'NamespaceVersion',
  Type.Object(
    {
      id: Type.String(),
      version: Type.Optional(Nullable(Type.Integer())),
      author: Type.String(),
      message: Type.String(),
      created_at: DateTime(),
      file_count: Type.Integer(),
      manifest_hash: Type.String(),
      git_sha: Type.Optional(Type.String()),
    },
    { additionalProperties: true, description: 'One saved version of a namespace' },
  ),
);

export const GitSourceMapping = component(
  'GitSourceMapping',
  Type.Object(
    {
      namespace: Type.String({ maxLength: 128 }),
      repo_path: Type.String({ maxLength: 512, description: 'Directory in the repository; empty means the repository root' }),
    },
    { additionalProperties: false },
  ),
);

export const GitSource = component(
  'GitSource',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      repo_url: Type.String(),
      branch: Type.String(),
      auth_type: Type.String(),
      credential_secret_key: Type.String(),
      known_hosts: Type.String(),
      webhook_secret_key: Type.String(),
      webhook_url: Type.String(),
      last_error: Type.String(),
      last_sync_status: Type.String(),
      last_synced_sha: Type.String(),
      poll_interval: Int64(),
      push_paths: Type.Array(Type.String(), {
        description:
          "Globs from the repository root (`*` and `?` within a segment, `**` across segments) that a branch push (pushNamespaceBranch) may write; empty: anything under the mapping's repo_path. CI configuration (.github/, .gitlab-ci.yml, .gitlab/, .circleci/, Jenkinsfile, .buildkite/, azure-pipelines.yml, .drone.yml, bitbucket-pipelines.yml, ...) is refused whatever they say",
      }),
      last_sync_at: Type.Optional(Nullable(DateTime())),
      mappings: Type.Array(GitSourceMapping),
    },
    { additionalProperties: true, description: 'A git repository synchronized into namespaces' },
  ),
);

export const LogLine = component(
  'LogLine',
  Type.Object(
    {
      task_run_id: Type.String(),
      task_key: Type.String(),
      attempt: Type.Integer(),
      n: Int64({ description: 'Sequence number within the task run' }),
      ts: Type.String({ description: 'RFC 3339 timestamp with nanosecond precision' }),
      stream: Type.String({ description: 'For example `stdout` or `stderr`' }),
      text: Type.String({ description: 'Secret values are masked with `***`' }),
    },
    { additionalProperties: true, description: 'One log line (data of a `line` stream event)' },
  ),
);

export const ExecutionSummary = component(
  'ExecutionSummary',
  Type.Object(
    {
      id: Type.String(),
      state: ExecutionState,
      namespace: Type.String(),
      flow_id: Type.Optional(Nullable(Type.String())),
      git_sha: Type.Optional(Type.String({ description: 'The commit of the git sync that produced the flow revision; absent when a user saved it' })),
      started_at: Type.Optional(Nullable(DateTime())),
      ended_at: Type.Optional(Nullable(DateTime())),
      duration_ms: Type.Optional(Nullable(Int64())),
    },
    { additionalProperties: true },
  ),
);

export const Dashboard = component(
  'Dashboard',
  Type.Object(
    {
      range: StringEnum(DASHBOARD_RANGES),
      from: DateTime(),
      to: DateTime(),
      bucket_seconds: Type.Integer(),
      kpis: Type.Object(
        {
          executions: Type.Integer(),
          succeeded: Type.Integer(),
          failed: Type.Integer(),
          timed_out: Type.Integer(),
          cancelled: Type.Integer(),
          skipped: Type.Integer(),
          running: Type.Integer({ description: 'RUNNING or CANCELLING now; the range does not apply' }),
          success_rate: Nullable(Type.Number({ description: 'SUCCESS / (SUCCESS + FAILED + TIMED_OUT) in the window; null when no execution ended SUCCESS, FAILED or TIMED_OUT' })),
          median_duration_ms: Nullable(
            Type.Number({ description: 'Median (percentile_cont 0.5) of the durations of executions ended SUCCESS, FAILED or TIMED_OUT in the window; null without any' }),
          ),
        },
        { additionalProperties: true },
      ),
      buckets: Type.Array(
        Type.Object(
          {
            start: DateTime({ description: 'Start of the bucket (UTC); the bucket holds the executions whose end falls in [start, start + bucket_seconds)' }),
            success: Type.Integer(),
            failed: Type.Integer(),
            timed_out: Type.Integer(),
            cancelled: Type.Integer(),
            skipped: Type.Integer(),
            p50_ms: Type.Optional(Type.Number({ description: 'percentile_cont 0.5 of the durations of SUCCESS, FAILED and TIMED_OUT executions; absent without any' })),
            p95_ms: Type.Optional(Type.Number({ description: 'percentile_cont 0.95 of the same durations; absent without any' })),
          },
          { additionalProperties: true },
        ),
      ),
      running: Type.Array(ExecutionSummary, { maxItems: 20, description: 'Up to 20 in RUNNING or CANCELLING, oldest start first; the range does not apply' }),
      recent_failures: Type.Array(
        Type.Composite(
          [ExecutionSummary, Type.Object({ triage_summary: Nullable(Type.String({ description: 'Summary of the latest finished AI triage; null until one exists' })) })],
          { additionalProperties: true },
        ),
        { maxItems: 10, description: 'Last 10 executions ended FAILED or TIMED_OUT; the range does not apply' },
      ),
    },
    { additionalProperties: true },
  ),
);
