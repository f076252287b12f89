// Objects whose fields the spec does not show. The fields below are the ones
// the service and its UI rely on; every object stays open
// (`additionalProperties: true`) so servers may add fields without breaking
// generated clients.
import { Type } from '@sinclair/typebox';
import { ROLES, SPEC_ROLES } from '../roles.js';
import { component, DateTime, FreeObject, Int64, Nullable, StringEnum, StringMap } from './helpers.js';
import { ExecutionState } from './resources.js';

const open = { additionalProperties: true } as const;

export const RoleSchema = component(
  'Role',
  StringEnum(ROLES, {
    description: 'none < viewer < operator < editor < admin; `none` (extension, issue #34) reads only the namespaces a role binding opens to it',
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
            'Extension (issue #34): the namespaces (and their children) where a role binding raises the caller above `role`, with the role it has there (for a token, at most its own); absent when there is none. For `none`, the only namespaces it may read',
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
      task_run_id: Type.String(),
      task_key: Type.String({ description: 'The task that made it' }),
      name: Type.String(),
      size: Int64(),
      content_type: Type.Optional(Type.String()),
      created_at: DateTime(),
    },
    open,
  ),
);

export const Insight = component(
  'Insight',
  Type.Object(
    {
      id: Type.String(),
      execution_id: Type.String(),
      state: Type.String({ description: 'For example pending, done, failed' }),
      summary: Type.Optional(Nullable(Type.String())),
      created_at: DateTime(),
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
        source: Type.Optional(Type.String({ description: 'The YAML text of the flow file' })),
        definition: Type.Optional(FreeObject('The parsed flow (see /api/v1/schemas/flow.json)')),
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
      definition: Type.Optional(FreeObject('The parsed flow (getFlowRevision; not in lists)')),
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
      sha256: Type.Optional(Type.String()),
    },
    open,
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
        version: Type.Optional(Nullable(Type.Integer())),
      }),
    ],
    open,
  ),
);

export const NamespaceGit = component(
  'NamespaceGit',
  Type.Object(
    {
      read_only: Type.Boolean(),
      source: Type.Optional(Nullable(FreeObject('The git source this namespace is mapped from'))),
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
        Type.String({ description: 'Reason when not ok: `secret_not_found`, `master_key_missing`, `secret_undecryptable`, `provider_not_found`, `provider_error`' }),
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

export const StorageStatus = component(
  'StorageStatus',
  Type.Object(
    {
      store: StringEnum(['file', 's3'] as const, { description: 'Kind of object store (SVC_OBJECT_STORE_URL)' }),
      scanned_at: DateTime(),
      complete: Type.Boolean({ description: 'False when listing the store ran out of its time budget: the counts are partial' }),
      objects: Type.Object(
        { files: ObjectCount, bundles: ObjectCount, artifacts: ObjectCount, logs: ObjectCount, other: ObjectCount },
        { ...open, description: 'Objects and bytes by kind' },
      ),
      total: ObjectCount,
      last_cleanup: Nullable(
        FreeObject('The record the maintenance lease holder wrote after the last storage cleanup (started_at, finished_at, outcome, ...); null before the first'),
      ),
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

export const AIConversation = component(
  'AIConversation',
  Type.Object(
    {
      id: Type.String(),
      title: Type.String(),
      created_at: DateTime(),
      updated_at: Type.Optional(DateTime()),
      messages: Type.Optional(Type.Array(FreeObject())),
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
  Type.Object({ enabled: Type.Boolean(), provider: Type.Optional(Nullable(Type.String())), model: Type.Optional(Nullable(Type.String())) }, open),
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
