// Objects whose fields the spec does not show. The fields below are the ones
// the service and its UI rely on; every object stays open
// (`additionalProperties: true`) so servers may add fields without breaking
// generated clients.
import { Type } from '@sinclair/typebox';
import { ROLES, SPEC_ROLES } from '../roles.js';
import { component, DateTime, FlowFileRef, FreeObject, Int64, Nullable, NullableRef, StringEnum, StringMap } from './helpers.js';
import { ExecutionState } from './resources.js';

const open = { additionalProperties: true } as const;

export const RoleSchema = component(
  'Role',
  StringEnum(ROLES, {
    description: 'none < viewer < operator < editor < admin; `none` (extension) reads only the namespaces a role binding opens to it',
  }),
);

/** A role a binding gives on a namespace: the spec's four, never `none`. */
export const BindingRoleSchema = component('BindingRole', StringEnum(SPEC_ROLES, { description: 'viewer < operator < editor < admin' }));

export const Me = component(
  'Me',
  Type.Object(
    {
      id: Type.String(),
      email: Type.String(),
      name: Type.String(),
      role: RoleSchema,
      auth_type: StringEnum(['token', 'session'] as const, { description: 'Kind of credential of this request' }),
      must_change_password: Type.Boolean({ description: 'True while the user has a temporary password' }),
      role_bindings: Type.Optional(
        Type.Array(Type.Object({ namespace: Type.String(), role: BindingRoleSchema }, { additionalProperties: false }), {
          description:
            'Extension: the namespaces (and their children) where a role binding raises the caller above `role`, with the role it has there (for a token, at most its own); absent when there is none. For `none`, the only namespaces it may read',
        }),
      ),
    },
    { ...open, description: 'The principal of the credential' },
  ),
);

export const User = component(
  'User',
  Type.Object(
    {
      id: Type.String(),
      email: Type.String(),
      name: Type.String(),
      role: RoleSchema,
      disabled: Type.Boolean(),
      must_change_password: Type.Boolean(),
      created_at: DateTime(),
    },
    open,
  ),
);

export const ApiToken = component(
  'ApiToken',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      role: RoleSchema,
      prefix: Type.String({ description: 'The first 12 characters of the secret (`svc_` and 8 more), to tell tokens apart' }),
      user_id: Type.String({ description: 'The owner' }),
      user_email: Type.String(),
      created_at: DateTime(),
      expires_at: Nullable(DateTime()),
      last_used_at: Type.Optional(Nullable(DateTime())),
      revoked_at: Nullable(DateTime()),
      active: Type.Boolean({ description: 'Neither revoked nor expired' }),
    },
    { ...open, description: 'An API token without its secret' },
  ),
);

export const ApiTokenCreated = component(
  'ApiTokenCreated',
  Type.Composite([ApiToken, Type.Object({ secret: Type.String({ description: '`svc_` + 43 base62 characters; shown only once' }) })], {
    ...open,
    description: 'A new API token, with its secret shown this once',
  }),
);

export const ExecutionRef = component('ExecutionRef', Type.Object({ id: Type.String(), state: ExecutionState }, { ...open, description: 'The execution a webhook started' }));

export const Artifact = component(
  'Artifact',
  Type.Object(
    {
      id: Type.String(),
      task_run_id: Type.Optional(Type.String({ description: 'The task run that made it; absent for a file input (kind `input`)' })),
      task_key: Type.Optional(Type.String({ description: 'The task that made it; absent for a file input (kind `input`)' })),
      name: Type.String({ description: 'Its path; for a file input, `<input id>/<file name>`' }),
      size: Int64(),
      content_type: Type.Optional(Type.String()),
      kind: Type.Optional(
        StringEnum(['artifact', 'output', 'input'] as const, {
          description:
            'Extension: `artifact`, a file the task left in $SVC_ARTIFACTS_DIR; `output`, a file its `output_files` matched; `input`, a file input of the execution (the upload a trigger named; docs/using/files.md)',
        }),
      ),
      sha256: Type.Optional(Type.String({ description: 'Extension: the sha256 (hex) of the content, computed as it was stored' })),
      created_at: DateTime(),
    },
    open,
  ),
);

export const InsightEvidence = component(
  'InsightEvidence',
  Type.Object(
    {
      id: Type.String({ description: 'E1, E2, ... in the order given to the model' }),
      kind: StringEnum(['execution', 'task_run', 'log_tail', 'flow_definition', 'changes_since_success'] as const),
      title: Type.String(),
      content: Type.String({ description: 'The text given to the model, secret values masked' }),
      cited: Type.Optional(Type.Boolean({ description: 'The answer rests on it (every item when the model cited none)' })),
      execution_id: Type.Optional(Type.String({ description: 'The execution it comes from (of the last success, for changes_since_success)' })),
      task_run_id: Type.Optional(Type.String({ description: 'task_run and log_tail: the task run' })),
      task_key: Type.Optional(Type.String()),
      attempt: Type.Optional(Type.Integer({ minimum: 1 })),
      lines: Type.Optional(Type.Array(Type.Integer(), { description: 'log_tail: the sequence number (`n`) of each line of `content`, in order' })),
    },
    { ...open, description: 'One item of evidence a triage was given' },
  ),
);

export const InsightState = component(
  'InsightState',
  StringEnum(['pending', 'running', 'done', 'failed'] as const, {
    description:
      '`pending`: requested (by a user, or claimed by automatic triage), not started yet; `running`: its evidence is being collected and the model asked; `done`: the model answered (`summary`, `probable_cause`, `suggested_fix`, `details` and `evidence` set); `failed`: it ended without an answer, `error` says why (no provider, the model or provider failed, or a daily AI limit was reached before it ran)',
  }),
);

export const Insight = component(
  'Insight',
  Type.Object(
    {
      id: Type.String(),
      execution_id: Type.String(),
      state: InsightState,
      summary: Type.Optional(Nullable(Type.String({ description: 'Set when `done`' }))),
      probable_cause: Type.Optional(Type.String({ description: 'Empty until `done`' })),
      suggested_fix: Type.Optional(Type.String({ description: 'Empty until `done`' })),
      details: Type.Optional(Type.String({ description: 'The whole answer as Markdown, with its evidence; empty until `done`' })),
      evidence: Type.Optional(Type.Array(InsightEvidence, { description: 'What the triage was given, each item marked `cited` or not' })),
      model: Type.Optional(Type.String({ description: 'The model that answered; empty until it ran' })),
      error: Type.Optional(Type.String({ description: 'Why it `failed`' })),
      requested_by: Type.Optional(Type.String({ description: "The requesting user's id, or `auto` for automatic triage" })),
      created_at: DateTime(),
      completed_at: Type.Optional(Nullable(DateTime())),
    },
    { ...open, description: 'An AI triage of an execution' },
  ),
);

export const MetricValue = component(
  'MetricValue',
  Type.Object(
    {
      task_run_id: Type.String(),
      task_key: Type.String({ description: 'The task that reported it' }),
      name: Type.String(),
      value: Type.Number(),
      tags: StringMap(),
      at: DateTime({ description: 'When the task run reported it (its end)' }),
    },
    { ...open, description: 'A custom metric reported by a task' },
  ),
);

/** A trigger of a flow as its file declares it; editors also get the key and URL of a webhook trigger. */
export const FlowTrigger = component(
  'FlowTrigger',
  Type.Object(
    {
      id: Type.String(),
      type: Type.String({ description: '`schedule`, `webhook` or `flow`' }),
      webhook_key: Type.Optional(
        Nullable(Type.String({ description: 'webhook triggers, editors and above (getFlow): the key of /hooks/{key}; null while the key is kept hashed only' })),
      ),
      webhook_url: Type.Optional(Nullable(Type.String({ description: 'webhook triggers, editors and above (getFlow): the full URL of /hooks/{key}; null with the key' }))),
    },
    open,
  ),
);

export const FlowSummary = component(
  'FlowSummary',
  Type.Object(
    {
      namespace: Type.String(),
      id: Type.String(),
      path: Type.Optional(Type.String({ description: 'Path of the `*.flow.yaml` file in the namespace' })),
      description: Type.Optional(Type.String()),
      labels: Type.Optional(StringMap()),
      enabled: Type.Boolean(),
      revision: Type.Optional(Nullable(Type.Integer({ description: 'Number of the current revision; null without one' }))),
      revision_id: Type.Optional(Nullable(Type.String())),
      task_count: Type.Optional(Type.Integer({ minimum: 0 })),
      triggers: Type.Optional(Type.Array(FlowTrigger)),
      created_at: Type.Optional(DateTime()),
      updated_at: Type.Optional(Nullable(DateTime())),
    },
    open,
  ),
);

export const Flow = component(
  'Flow',
  Type.Composite(
    [
      FlowSummary,
      Type.Object({
        source: Type.Optional(Type.String({ description: 'The YAML text of the flow file (getFlow); absent while the flow has no revision' })),
        definition: Type.Optional(FlowFileRef('The parsed flow (getFlow; the flow schema, /api/v1/schemas/flow.json); absent while the flow has no revision')),
      }),
    ],
    open,
  ),
);

export const FlowRevision = component(
  'FlowRevision',
  Type.Object(
    {
      id: Type.String(),
      revision: Type.Integer({ minimum: 1, description: 'Number of the revision in its flow' }),
      hash: Type.String({ description: 'Hash of the flow file text' }),
      namespace_version: Type.Optional(Nullable(Type.Integer({ description: 'The namespace version that saved it; null when that version is gone' }))),
      created_by: Type.String(),
      created_at: DateTime(),
      source: Type.Optional(Type.String({ description: 'The YAML text (getFlowRevision; not in lists)' })),
      definition: Type.Optional(FlowFileRef('The parsed flow (getFlowRevision; not in lists)')),
    },
    open,
  ),
);

export const FileDiff = component(
  'FileDiff',
  Type.Object(
    {
      path: Type.String(),
      status: StringEnum(['added', 'deleted', 'modified', 'mode_changed'] as const),
      binary: Type.Boolean({ description: 'One side is not UTF-8 text: no `diff`' }),
      executable: Type.Object(
        { from: Nullable(Type.Boolean()), to: Nullable(Type.Boolean()) },
        { ...open, description: 'The executable flag on each side; null on the side where the file does not exist' },
      ),
      diff: Type.Optional(Type.String({ description: 'Unified diff; absent for binary files, mode-only changes and `too_large` ones' })),
      too_large: Type.Optional(Type.Boolean({ description: 'The texts were too large or too different for a line diff: no `diff`' })),
    },
    { ...open, description: 'One changed file of a namespace diff' },
  ),
);

export const NamespaceDiff = component(
  'NamespaceDiff',
  Type.Object(
    {
      namespace: Type.String(),
      from: Type.Integer({ description: 'The version diffed from' }),
      to: Type.Integer({ description: 'The version diffed to (default the head)' }),
      files: Type.Array(FileDiff, { description: 'The files whose bytes or executable flag differ, by path' }),
    },
    { ...open, description: 'The per-file diffs between two versions of a namespace' },
  ),
);

const RevisionRef = Type.Object({ id: Type.String(), revision: Type.Integer({ minimum: 1 }) }, open);

export const FlowRevisionDiff = component(
  'FlowRevisionDiff',
  Type.Object(
    {
      from: RevisionRef,
      to: RevisionRef,
      diff: Type.Optional(Type.String({ description: 'Unified diff of the two flow file texts' })),
      too_large: Type.Optional(Type.Boolean({ description: 'The texts were too large (over 1 MiB) or too different for a line diff: no `diff`' })),
    },
    { ...open, description: 'The line diff between two revisions of a flow' },
  ),
);

export const FlowStats = component(
  'FlowStats',
  Type.Object(
    {
      items: Type.Array(
        Type.Object(
          {
            execution_id: Type.String(),
            state: ExecutionState,
            duration_ms: Nullable(Int64()),
            created_at: DateTime(),
            started_at: Nullable(DateTime()),
            ended_at: Nullable(DateTime()),
          },
          open,
        ),
        { maxItems: 50, description: 'The last 50 executions, newest first' },
      ),
    },
    open,
  ),
);

export const FlowMetrics = component(
  'FlowMetrics',
  Type.Object(
    {
      metric: Type.String(),
      agg: StringEnum(['sum', 'avg', 'max'] as const),
      group_by: Type.Optional(Type.String()),
      series: Type.Array(
        Type.Object(
          {
            tag_value: Nullable(Type.String()),
            points: Type.Array(Type.Object({ execution_id: Type.String(), created_at: DateTime(), value: Type.Number() }, open)),
          },
          open,
        ),
      ),
    },
    open,
  ),
);

export const WebhookKey = component('WebhookKey', Type.Object({ key: Type.String(), url: Type.String({ description: 'Full URL of /hooks/{key}' }) }, open));

export const UpcomingSchedule = component(
  'UpcomingSchedule',
  Type.Object(
    {
      namespace: Type.String(),
      flow_id: Type.String(),
      trigger_id: Type.String(),
      cron: Type.String(),
      timezone: Type.String({ description: 'IANA time zone the cron is read in' }),
      catch_up: StringEnum(['none', 'last'] as const),
      next_fire_at: DateTime({ description: 'The next fire time, computed in `timezone` (daylight-saving changes included)' }),
      last_fired_at: Nullable(DateTime()),
    },
    open,
  ),
);

export const Namespace = component(
  'Namespace',
  Type.Object(
    {
      name: Type.String(),
      description: Type.Optional(Type.String()),
      read_only: Type.Optional(Type.Boolean({ description: 'True when mapped from a git source' })),
      head_version: Type.Optional(Nullable(Type.Integer())),
      created_at: Type.Optional(DateTime()),
      allowed_callers: Type.Optional(
        Type.Array(Type.String(), {
          description:
            "Extension: namespaces, each covering its children, whose flows may start this namespace's flows as subflows and listen to its executions with flow triggers; set by admins with setNamespaceAllowedCallers",
        }),
      ),
    },
    open,
  ),
);

export const FileEntry = component(
  'FileEntry',
  Type.Object(
    {
      path: Type.String(),
      size: Int64(),
      executable: Type.Boolean(),
      sha256: Type.String({ description: 'SHA-256 of the content, lower-case hex' }),
    },
    open,
  ),
);

export const FilePage = component(
  'FilePage',
  Type.Object(
    {
      items: Type.Array(FileEntry),
      next_cursor: Type.Optional(Type.String({ description: 'Present when more rows follow; pass it back as `cursor`.' })),
      version: Type.Integer({ description: 'Extension: the namespace version the files are of (the head unless `version` was asked); 0 before the first save' }),
    },
    { additionalProperties: false, description: 'A page of the files of a namespace version' },
  ),
);

export const FileContent = component(
  'FileContent',
  Type.Composite(
    [
      FileEntry,
      Type.Object({
        content: Type.Optional(Type.String({ description: 'UTF-8 text, when the file is text' })),
        content_base64: Type.Optional(Type.String({ description: 'Binary content, when the file is not UTF-8' })),
        encoding: Type.Optional(StringEnum(['utf8', 'base64'] as const, { description: 'Which of `content` and `content_base64` is set' })),
        version: Type.Optional(Nullable(Type.Integer())),
      }),
    ],
    open,
  ),
);

export const NamespaceGitSource = component(
  'NamespaceGitSource',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      repo_url: Type.String(),
      branch: Type.String(),
      repo_path: Type.String({ description: 'The directory of the repository mapped to the namespace; empty for the root' }),
      last_synced_sha: Type.String({ description: 'Empty before the first sync' }),
      last_sync_at: Nullable(DateTime()),
      last_sync_status: Type.String(),
      last_error: Type.String({ description: 'Empty when the last sync did not fail' }),
    },
    { ...open, description: 'The git source a namespace is mapped from, with its mapping and last sync (fields of the git source)' },
  ),
);

export const NamespaceGit = component(
  'NamespaceGit',
  Type.Object(
    {
      read_only: Type.Boolean(),
      source: Type.Optional(NullableRef(NamespaceGitSource, 'The git source this namespace is mapped from; null when it is not mapped')),
    },
    open,
  ),
);

export const ValidationProblem = component(
  'ValidationProblem',
  Type.Object(
    {
      field: Type.String({ description: 'The failing field as a path, e.g. `tasks[3].retry.max_attempts`; empty for the whole file' }),
      pointer: Type.String({ description: 'JSON pointer of the failing node, e.g. `/tasks/3/retry/max_attempts`' }),
      message: Type.String({ description: 'What is wrong, worded for a person' }),
      line: Type.Optional(Type.Integer({ minimum: 1, description: '1-based line in the file' })),
      column: Type.Optional(Type.Integer({ minimum: 1, description: '1-based column (UTF-16 code units)' })),
    },
    { description: 'One problem of a file: one entry per failing field' },
  ),
);

export const ValidationResult = component(
  'ValidationResult',
  Type.Object(
    {
      valid: Type.Boolean({ description: 'True when `errors` is empty' }),
      kind: Type.Union([Type.Literal('flow'), Type.Literal('unchecked')], {
        description: '`flow` for `*.flow.yaml` files (schema, semantic rules and templates checked); `unchecked` for files no validator applies to',
      }),
      errors: Type.Array(ValidationProblem),
    },
    { description: 'The problems of a file; a valid file has an empty list' },
  ),
);

export const SecretKey = component(
  'SecretKey',
  Type.Object(
    {
      key: Type.String(),
      namespace: Nullable(Type.String({ description: 'The namespace; null for a global secret' })),
      provider: Type.String({ description: 'Always `builtin`: stored in the service, sealed with SVC_MASTER_KEYS' }),
      key_id: Type.String({ description: 'Id of the master key that sealed the value (rotation)' }),
      created_at: DateTime(),
      updated_at: DateTime(),
      updated_by: Type.String({ description: 'User id of the last writer' }),
    },
    { ...open, description: 'A secret, without its value (values are never readable)' },
  ),
);

export const SecretCheck = component(
  'SecretCheck',
  Type.Object(
    {
      ok: Type.Boolean(),
      key: Type.String({ description: 'The key or provider reference checked' }),
      scope: Type.Optional(StringEnum(['namespace', 'global', 'provider'] as const, { description: 'Where it resolved (when ok)' })),
      namespace: Type.Optional(Type.String({ description: 'The namespace it resolved from (scope `namespace`)' })),
      provider: Type.Optional(Type.String({ description: 'The provider it resolved from (scope `provider`)' })),
      error: Type.Optional(
        Type.String({
          description:
            'Reason when not ok: `secret_not_found`, `master_key_missing`, `secret_undecryptable`, `provider_not_found`, `provider_error`, `secret_provider_not_allowed` (the provider does not serve the namespace)',
        }),
      ),
      message: Type.Optional(Type.String()),
    },
    { ...open, description: 'Whether a secret resolves, and from which scope; never its value' },
  ),
);

export const Variable = component(
  'Variable',
  Type.Object(
    {
      key: Type.String(),
      value: Type.String(),
      namespace: Nullable(Type.String({ description: 'The namespace; null for a global variable' })),
      created_at: DateTime(),
      updated_at: DateTime(),
      updated_by: Type.String({ description: 'User id of the last writer' }),
    },
    open,
  ),
);

export const SecretProvider = component(
  'SecretProvider',
  Type.Object(
    {
      name: Type.String(),
      type: Type.String({ description: '`env` or `vault`' }),
      config: FreeObject('Settings of the type (never credentials)'),
      enabled: Type.Boolean(),
      has_credentials: Type.Boolean({ description: 'Credentials are stored sealed; they are write-only' }),
      namespaces: Type.Array(Type.String(), {
        description: 'Extension: the namespaces whose flows may use the provider, each covering its children; `*` every namespace; empty none',
      }),
      credentials_key_id: Nullable(Type.String({ description: 'Id of the master key that sealed the credentials' })),
      created_at: DateTime(),
      updated_at: DateTime(),
    },
    open,
  ),
);

export const GitSyncRun = component(
  'GitSyncRun',
  Type.Object(
    {
      id: Type.String(),
      source_id: Type.String(),
      trigger: Type.Optional(Type.String({ description: '`manual`, `webhook`, `poll` or `push`' })),
      status: Type.String({ description: '`queued`, `running`, `success`, `no_change` or `failed`' }),
      sha: Type.Optional(Type.String()),
      error: Type.Optional(Type.String()),
      started_at: Type.Optional(Nullable(DateTime())),
      ended_at: Type.Optional(Nullable(DateTime())),
    },
    open,
  ),
);

export const Instance = component(
  'Instance',
  Type.Object(
    {
      id: Type.String(),
      hostname: Type.String(),
      version: Type.String(),
      kind: Type.String({ description: 'The app the instance runs: `api-gateway`, `scheduler`, `dispatcher` or `maintenance`' }),
      pools: Type.Array(Type.String()),
      executors: Type.Array(Type.String()),
      started_at: DateTime(),
      last_heartbeat_at: DateTime(),
      stopped_at: Nullable(DateTime({ description: 'Set when the instance shut down cleanly; null while it runs or if it died' })),
      online: Type.Boolean({ description: 'Last heartbeat at most 60 seconds old' }),
      status: StringEnum(['Online', 'Offline'] as const, { description: '`online` as the spec words it' }),
    },
    open,
  ),
);

const ObjectCount = Type.Object({ objects: Type.Integer({ minimum: 0 }), bytes: Int64({ minimum: 0 }) }, open);
const ByKind = (description: string) =>
  Type.Object({ files: ObjectCount, bundles: ObjectCount, artifacts: ObjectCount, logs: ObjectCount, other: ObjectCount }, { ...open, description });

export const StorageCleanup = component(
  'StorageCleanup',
  Type.Object(
    {
      started_at: DateTime(),
      finished_at: Nullable(DateTime({ description: 'Null while it runs (or when its instance died in the middle)' })),
      duration_ms: Nullable(Int64()),
      outcome: StringEnum(['running', 'ok', 'error', 'interrupted'] as const, { description: '`interrupted`: the instance lost the lease and stopped between steps' }),
      error: Type.Optional(Type.String({ description: 'Why it ended `error`' })),
      instance_id: Type.String({ description: 'The maintenance instance that ran it' }),
      objects: ByKind('Objects and bytes removed, by kind'),
      rows: Type.Object(
        {
          snapshots: Type.Integer({ minimum: 0, description: 'Snapshots no version or execution referred to, with their files' }),
          file_objects: Type.Integer({ minimum: 0, description: 'file_objects rows no snapshot referred to (their objects go at the next run)' }),
          bundles_released: Type.Integer({ minimum: 0, description: 'Bundles forgotten because unused for 7 days' }),
        },
        { ...open, description: 'Rows removed' },
      ),
      kept: Type.Object(
        {
          young_objects: Type.Integer({ minimum: 0, description: 'Objects without a row left alone because younger than 1 hour' }),
          restored_files: Type.Integer({ minimum: 0, description: 'File objects put back because a save was writing their row meanwhile' }),
        },
        { ...open, description: 'What was kept on purpose' },
      ),
    },
    { ...open, description: 'The record the maintenance lease holder writes for a storage cleanup run' },
  ),
);

export const StorageStatus = component(
  'StorageStatus',
  Type.Object(
    {
      store: StringEnum(['file', 's3'] as const, { description: 'Kind of object store (SVC_OBJECT_STORE_URL)' }),
      scanned_at: DateTime(),
      complete: Type.Boolean({ description: 'False when listing the store ran out of its time budget: the counts are partial' }),
      objects: ByKind('Objects and bytes by kind'),
      total: ObjectCount,
      last_cleanup: NullableRef(StorageCleanup, 'The last storage cleanup (the running one while it runs); null before the first'),
      next_cleanup_after: Nullable(DateTime({ description: '24 hours after the last cleanup started; null before the first' })),
    },
    { ...open, description: 'What the object store holds, by kind, and the storage cleanup' },
  ),
);

export const AuditEvent = component(
  'AuditEvent',
  Type.Object(
    {
      id: Type.String(),
      action: Type.String({ description: 'For example execution.cancel' }),
      actor: Type.String({ description: "The actor's email, else its id, else its type" }),
      actor_id: Nullable(Type.String()),
      actor_type: Type.String(),
      target: Type.Optional(Type.String({ description: '`<type>:<id>`; absent when the action has no target' })),
      payload: Type.Optional(FreeObject()),
      ip: Type.String({ description: 'Client address of the request; empty when none' }),
      request_id: Type.String({ description: 'X-Request-Id of the request that did it' }),
      created_at: DateTime(),
    },
    open,
  ),
);

export const AIMessagePart = component(
  'AIMessagePart',
  Type.Union(
    [
      Type.Object(
        {
          type: StringEnum(['tool_call'] as const),
          id: Type.String(),
          name: Type.String({ description: 'The tool' }),
          arguments: Type.String({ description: 'The arguments as JSON text' }),
        },
        { ...open, description: 'A tool the assistant called' },
      ),
      Type.Object(
        {
          type: StringEnum(['tool_result'] as const),
          tool_call_id: Type.String(),
          name: Type.String({ description: 'The tool' }),
          content: Type.String({ description: 'What the tool answered, secret values masked (JSON text, or a truncated text)' }),
        },
        { ...open, description: 'What a tool answered' },
      ),
    ],
    { description: 'A part of a stored message: a tool call of the assistant, or the answer of a tool' },
  ),
);

export const AIMessage = component(
  'AIMessage',
  Type.Object(
    {
      id: Type.String(),
      seq: Type.Integer({ minimum: 1, description: 'Order in the conversation' }),
      role: StringEnum(['user', 'assistant', 'tool'] as const),
      content: Type.String({ description: 'The text; empty for tool messages' }),
      parts: Type.Array(AIMessagePart, { description: 'assistant: the tools it called; tool: what they answered' }),
      model: Type.Optional(Type.String({ description: 'assistant: the model that wrote it' })),
      created_at: DateTime(),
    },
    { ...open, description: 'A message of a conversation' },
  ),
);

export const AIActionStatus = component(
  'AIActionStatus',
  StringEnum(['pending', 'confirmed', 'succeeded', 'failed', 'rejected'] as const, { description: '`confirmed` while it runs' }),
);

export const AIAction = component(
  'AIAction',
  Type.Object(
    {
      id: Type.String(),
      tool: Type.String({ description: 'save_flow, trigger_flow, cancel_execution, rerun_execution, restart_execution or replay_execution' }),
      summary: Type.String(),
      arguments: FreeObject('The input of the tool'),
      diff: Type.Optional(Type.String({ description: 'save_flow: the unified diff of the file, secret values masked' })),
      status: AIActionStatus,
      result: Type.Optional(Type.Unknown({ description: 'The answer of the operation it ran (succeeded), masked' })),
      error: Type.Optional(Type.String({ description: 'Why it failed: `<code>: <message>`' })),
      created_at: DateTime(),
      decided_at: Nullable(DateTime({ description: 'When it was confirmed or rejected' })),
    },
    { ...open, description: 'An action the assistant proposed; it runs only when its user confirms it' },
  ),
);

export const AIActionOutcome = component(
  'AIActionOutcome',
  Type.Object(
    {
      id: Type.String(),
      tool: Type.String(),
      status: StringEnum(['succeeded'] as const),
      result: Type.Unknown({ description: 'The answer of the operation it ran, masked' }),
    },
    { ...open, description: 'A confirmed action that ran' },
  ),
);

export const AIConversation = component(
  'AIConversation',
  Type.Object(
    {
      id: Type.String(),
      title: Type.String(),
      created_at: DateTime(),
      updated_at: Type.Optional(DateTime()),
      messages: Type.Optional(Type.Array(AIMessage, { description: 'getAIConversation and createAIConversation; not in lists' })),
      actions: Type.Optional(Type.Array(AIAction, { description: 'getAIConversation and createAIConversation; not in lists' })),
    },
    open,
  ),
);

export const AIProvider = component(
  'AIProvider',
  Type.Object(
    {
      type: Type.String({ description: 'For example openai or anthropic' }),
      model: Type.String(),
      base_url: Type.Optional(Type.String()),
      api_key_secret: Type.Optional(Type.String({ description: 'Key of the global secret that holds the API key' })),
      has_api_key: Type.Optional(Type.Boolean({ description: 'Whether an API key is stored (it is never returned)' })),
      auto_triage: Type.Optional(Type.Boolean()),
    },
    open,
  ),
);

export const AIStatus = component(
  'AIStatus',
  Type.Object(
    {
      enabled: Type.Boolean(),
      provider: Type.Optional(Nullable(Type.String())),
      model: Type.Optional(Nullable(Type.String())),
      auto_triage: Type.Optional(Type.Boolean({ description: 'FAILED and TIMED_OUT executions are triaged without being asked' })),
    },
    open,
  ),
);

const UsageCount = Type.Object({ requests: Type.Integer({ minimum: 0 }), tokens: Type.Integer({ minimum: 0 }) });
export const AIUsage = component(
  'AIUsage',
  Type.Object(
    {
      day: Type.String({ description: 'The UTC day, YYYY-MM-DD' }),
      resets_at: DateTime({ description: 'When the day ends and its counts no longer apply' }),
      limits: Type.Object(
        { user_requests: Type.Integer(), user_tokens: Type.Integer(), total_requests: Type.Integer(), total_tokens: Type.Integer() },
        { description: 'SVC_AI_USER_REQUESTS_PER_DAY, SVC_AI_USER_TOKENS_PER_DAY, SVC_AI_TOTAL_REQUESTS_PER_DAY, SVC_AI_TOTAL_TOKENS_PER_DAY' },
      ),
      total: UsageCount,
      users: Type.Array(
        Type.Intersect([Type.Object({ user_id: Type.String({ description: "A user's id, or 'auto' for automatic triage" }), email: Nullable(Type.String()) }), UsageCount]),
      ),
    },
    { ...open, description: 'AI requests (assistant turns, triages) and provider tokens of one UTC day, per user and in total, with the daily limits' },
  ),
);

export const Acknowledged = component('Acknowledged', Type.Object({ ok: Type.Boolean() }, { ...open, description: 'The request was accepted' }));

export const SecretProviderCheck = component(
  'SecretProviderCheck',
  Type.Object(
    { ok: Type.Boolean(), message: Type.String({ description: 'What was tried and how it went; never a secret' }) },
    { ...open, description: 'Whether a secret provider answers with its settings' },
  ),
);

export const Upload = component(
  'Upload',
  Type.Object(
    {
      id: Type.String({ description: 'The value of a `file` input that uses it' }),
      namespace: Type.String(),
      name: Type.String({ description: 'The file name given at upload' }),
      size: Int64(),
      sha256: Type.String({ description: 'hex, computed as it was stored' }),
      created_at: DateTime(),
      expires_at: DateTime({ description: 'When it goes if no execution used it' }),
    },
    { ...open, description: 'Extension: a file uploaded for a flow input of type file (docs/using/files.md)' },
  ),
);
