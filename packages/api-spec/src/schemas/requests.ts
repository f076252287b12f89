// Request parts: path parameters, queries and bodies. Bodies the spec details
// (triggerFlow, saveChanges, pushNamespaceBranch, login, createToken) and the
// ones our choices fix (updateFlow, runFile; docs/behaviour/choices.md) reject unknown properties;
// bodies whose shape is "not shown" stay open.
import { Type, type TProperties } from '@sinclair/typebox';
import { component, FreeObject, Int64, Nullable, StringEnum, StringMap } from './helpers.js';
import { DASHBOARD_RANGES, EXECUTION_STATES } from './resources.js';
import { RoleSchema } from './entities.js';

const closed = { additionalProperties: false } as const;
const open = { additionalProperties: true } as const;

// ---- path parameters -------------------------------------------------------

/** Namespace name: dot-separated labels of [a-z0-9-], each starting and ending with a letter or digit. */
export const NamespaceName = Type.String({
  maxLength: 128,
  pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$',
  description: 'Dot-separated labels of lower case letters, digits, hyphens; at most 128 chars',
});
export const FlowId = Type.String({
  maxLength: 63,
  pattern: '^[a-z0-9][a-z0-9-]*$',
  description: 'Lower case letters, digits, hyphens; starts with a letter or digit',
});
export const OpaqueId = Type.String({ minLength: 1, maxLength: 128 });
export const SecretKeyName = Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_.-]+$' });

/** Builds a params object; every path parameter is required. */
export function Params(props: TProperties) {
  return Type.Object(props);
}

export const ExecutionParams = Params({ executionId: OpaqueId });
export const NamespaceParams = Params({ namespace: NamespaceName });
export const FlowParams = Params({ namespace: NamespaceName, flowId: FlowId });

// ---- queries ---------------------------------------------------------------

export const Limit = Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200' });
export const Cursor = Type.String({ description: 'Opaque cursor from a previous page (`next_cursor`)' });

/**
 * Query of every list operation. Unknown query parameters are ignored. Not a
 * component: queries are spread into parameters, so it would be published
 * unreferenced (Redocly's no-unused-components).
 */
export const ListQuery = Type.Object({ limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) });

export function ListQueryWith(props: TProperties) {
  return Type.Object({ ...ListQuery.properties, ...props });
}

export const ListExecutionsQuery = ListQueryWith({
  state: Type.Optional(StringEnum(EXECUTION_STATES)),
  namespace: Type.Optional(Type.String({ description: 'Selects the namespace and its children' })),
  flow: Type.Optional(Type.String({ description: 'Flow id' })),
  label: Type.Optional(Type.Array(Type.String(), { description: 'Label filter `key:value`; repeat for several (all must match)' })),
});

export const ExecutionLogsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, default: 1000, description: 'Lines per page, 1 to 5000' })),
  cursor: Type.Optional(Cursor),
  task: Type.Optional(Type.String({ description: 'Selects one task' })),
  attempt: Type.Optional(Type.Integer({ minimum: 1, maximum: 999_999_999, description: 'Selects one attempt (of every task, or of `task`)' })),
});

export const TaskFilterQuery = Type.Object({ task: Type.Optional(Type.String({ description: 'Selects one task' })) });

export const TaskAttemptFilterQuery = Type.Object({
  task: Type.Optional(Type.String({ description: 'Selects one task' })),
  attempt: Type.Optional(Type.Integer({ minimum: 1, maximum: 999_999_999, description: 'Selects one attempt (of every task, or of `task`)' })),
});

export const DashboardQuery = Type.Object({
  range: Type.Optional(StringEnum(DASHBOARD_RANGES, { default: '24h', description: '24h: 1-hour buckets; 7d and 30d: 1-day buckets' })),
  namespace: Type.Optional(Type.String({ description: 'Selects the namespace and all its children' })),
});

export const FlowMetricsQuery = Type.Object({
  metric: Type.String({ minLength: 1, description: 'Metric name' }),
  group_by: Type.Optional(Type.String({ description: 'Tag whose values split the series' })),
  agg: Type.Optional(StringEnum(['sum', 'avg', 'max'] as const, { default: 'sum' })),
});

export const RevisionDiffQuery = Type.Object({
  from: Type.String({ minLength: 1, description: 'Revision id' }),
  to: Type.Optional(Type.String({ description: 'Revision id; default the current revision' })),
});

/** A namespace version number (a 4-byte integer column): larger values are refused as invalid, never sent to the database. */
const VersionNumber = (description?: string) => Type.Integer({ minimum: 0, maximum: 2147483647, ...(description ? { description } : {}) });

export const VersionDiffQuery = Type.Object({
  from: VersionNumber(),
  to: Type.Optional(VersionNumber('Default the head version')),
  path: Type.Optional(Type.String({ maxLength: 512 })),
});

export const FilePathQuery = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 512 }),
  version: Type.Optional(VersionNumber('Default the head version')),
});

export const UploadFileQuery = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 512 }),
  executable: Type.Optional(Type.Boolean({ default: false })),
  message: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
});

// ---- bodies ----------------------------------------------------------------

export const LoginRequest = component(
  'LoginRequest',
  Type.Object({ email: Type.String({ minLength: 1, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1024 }) }, closed),
);

export const UpdateMeRequest = component('UpdateMeRequest', Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }, open));

export const ChangePasswordRequest = component(
  'ChangePasswordRequest',
  Type.Object(
    {
      current_password: Type.String({ minLength: 1, maxLength: 1024 }),
      new_password: Type.String({ minLength: 8, maxLength: 1024 }),
    },
    closed,
  ),
);

export const CreateTokenRequest = component(
  'CreateTokenRequest',
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 200 }),
      /** Default: the caller's role (for a session, the owner's current role); at most that role. */
      role: Type.Optional(RoleSchema),
      expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
    },
    closed,
  ),
);

export const CreateUserRequest = component(
  'CreateUserRequest',
  Type.Object(
    {
      email: Type.String({ format: 'email', maxLength: 320 }),
      name: Type.Optional(Type.String({ maxLength: 200 })),
      role: RoleSchema,
      password: Type.Optional(Type.String({ minLength: 8, maxLength: 1024, description: 'Default: a generated temporary password' })),
    },
    open,
  ),
);

export const UpdateUserRequest = component(
  'UpdateUserRequest',
  Type.Object(
    {
      name: Type.Optional(Type.String({ maxLength: 200 })),
      role: Type.Optional(RoleSchema),
      disabled: Type.Optional(Type.Boolean()),
    },
    open,
  ),
);

export const TriggerFlowRequest = component(
  'TriggerFlowRequest',
  Type.Object(
    {
      inputs: Type.Optional(FreeObject("Input values, validated against the flow inputs; a file input's value is the id of an upload of the flow's namespace (createUpload)")),
      labels: Type.Optional(StringMap({ description: 'Added to the labels of the flow' })),
    },
    closed,
  ),
);

export const UpdateFlowRequest = component('UpdateFlowRequest', Type.Object({ enabled: Type.Boolean() }, closed));

const ChangeFields = {
  op: StringEnum(['put', 'delete', 'rename'] as const),
  path: Type.String({ minLength: 1, maxLength: 512 }),
  content: Type.Optional(Type.String({ description: 'put only: UTF-8 text' })),
  content_base64: Type.Optional(Type.String({ description: 'put only: binary content as base64, used instead of `content`' })),
  executable: Type.Optional(Type.Boolean()),
  new_path: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'rename only' })),
};

export const FileChange = component('FileChange', Type.Object(ChangeFields, closed));

export const SaveChangesRequest = component(
  'SaveChangesRequest',
  Type.Object(
    {
      base_version: Type.Optional(Int64({ description: '409 version_conflict when the head version differs' })),
      changes: Type.Array(FileChange, { minItems: 1, maxItems: 1000 }),
      message: Type.String({ minLength: 1, maxLength: 500 }),
    },
    closed,
  ),
);

export const PushNamespaceBranchRequest = component(
  'PushNamespaceBranchRequest',
  Type.Object(
    {
      changes: Type.Array(FileChange, { minItems: 1, maxItems: 1000 }),
      message: Type.String({ minLength: 1, maxLength: 500 }),
    },
    closed,
  ),
);

export const PushNamespaceBranchResponse = component('PushNamespaceBranchResponse', Type.Object({ branch: Type.String(), sha: Type.String() }, { additionalProperties: true }));

export const CreateNamespaceRequest = component('CreateNamespaceRequest', Type.Object({ name: NamespaceName, description: Type.Optional(Type.String({ maxLength: 2000 })) }, open));

export const SetAllowedCallersRequest = component(
  'SetAllowedCallersRequest',
  Type.Object(
    {
      allowed_callers: Type.Array(NamespaceName, {
        maxItems: 200,
        description:
          "Replaces the list: namespaces, each covering its children, whose flows may start this namespace's flows as subflows and listen to its executions; [] allows none",
      }),
    },
    open,
  ),
);

export const RevertVersionRequest = component(
  'RevertVersionRequest',
  Type.Object(
    {
      version: VersionNumber('The version whose files become the new head'),
      message: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    },
    open,
  ),
);

export const RunFileRequest = component(
  'RunFileRequest',
  Type.Object(
    {
      path: Type.String({ minLength: 1, maxLength: 512 }),
      args: Type.Optional(Type.Array(Type.String())),
      env: Type.Optional(
        StringMap({
          description:
            "Variables for the script. Names must match `^[A-Z][A-Z0-9_]*$` and not be reserved (the runner's SVC_*, PATH, HOME, XDG_*, the loader, shells and interpreters, " +
            'proxies, TLS trust, GIT_*/SSH_* and package indexes such as PIP_* and NPM_CONFIG_*; docs/operating/security.md lists them); any other name is 422 with field `env.<NAME>`',
        }),
      ),
    },
    closed,
  ),
);

export const ValidateFileRequest = component(
  'ValidateFileRequest',
  Type.Object(
    {
      path: Type.String({ minLength: 1, maxLength: 512, description: 'Path of the file in the namespace, e.g. `flows/etl.flow.yaml`; its name decides the validator' }),
      content: Type.String({ description: 'The file text to validate (UTF-8)' }),
    },
    { additionalProperties: false, description: 'A file to validate without saving it' },
  ),
);

export const PutSecretRequest = component('PutSecretRequest', Type.Object({ value: Type.String({ maxLength: 65536 }) }, open));
export const PutVariableRequest = component('PutVariableRequest', Type.Object({ value: Type.String({ maxLength: 65536 }) }, open));

export const GitSourceRequest = component(
  'GitSourceRequest',
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 200 }),
      repo_url: Type.String({
        minLength: 1,
        description:
          'https://, http://, ssh://, git:// or file:// URL, or user@host:path; no credentials in it (an http(s) URL with user info is 422): name a platform secret in credential_secret_key',
      }),
      branch: Type.Optional(Type.String({ default: 'main' })),
      auth_type: Type.Optional(Type.String({ description: 'For example none, token, ssh' })),
      credential_secret_key: Type.Optional(
        Type.String({
          description: 'The platform secret (PUT /api/v1/platform-secrets/{name}) holding the credential; a global or namespace secret, which flows can read, is 422',
        }),
      ),
      known_hosts: Type.Optional(Type.String()),
      webhook_secret_key: Type.Optional(
        Type.String({ description: 'The platform secret whose value signs push notifications; a global or namespace secret, which flows can read, is 422' }),
      ),
      poll_interval: Type.Optional(Int64({ minimum: 0, description: 'Seconds; 0 disables polling' })),
      push_paths: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 512 }), {
          maxItems: 50,
          description:
            "Globs from the repository root (`*` and `?` within a segment, `**` across segments) that a branch push (pushNamespaceBranch) may write; empty: anything under the mapping's repo_path. CI configuration (.github/, .gitlab-ci.yml, .gitlab/, .circleci/, Jenkinsfile, .buildkite/, azure-pipelines.yml, .drone.yml, bitbucket-pipelines.yml, ...) is refused whatever they say",
        }),
      ),
      mappings: Type.Array(Type.Object({ namespace: Type.String({ maxLength: 128 }), repo_path: Type.String({ maxLength: 512 }) }, closed)),
    },
    open,
  ),
);

export const CreateAIConversationRequest = component('CreateAIConversationRequest', Type.Object({ title: Type.Optional(Type.String({ maxLength: 200 })) }, open));
export const SendAIMessageRequest = component('SendAIMessageRequest', Type.Object({ content: Type.String({ minLength: 1, maxLength: 100000 }) }, open));
export const AIProviderRequest = component(
  'AIProviderRequest',
  Type.Object(
    {
      type: Type.String({ minLength: 1 }),
      model: Type.String({ minLength: 1 }),
      base_url: Type.Optional(Type.String({ description: "Base URL of an OpenAI-compatible or Anthropic endpoint; default the provider's own" })),
      api_key: Type.Optional(
        Nullable(Type.String({ maxLength: 4096, description: 'Write-only: stored sealed with the master key, never returned; null removes it, absent keeps it' })),
      ),
      api_key_secret: Type.Optional(Type.String({ description: 'Key of a global secret holding the API key, instead of `api_key`' })),
      auto_triage: Type.Optional(Type.Boolean({ description: 'Triage FAILED and TIMED_OUT executions without being asked' })),
    },
    open,
  ),
);

/** Any JSON: webhook payloads come from other systems (`trigger.body`). */
export const AnyJson = Type.Unknown({ description: 'Any JSON value' });

// ---- secrets and secret providers ------------------------------------------

/** Name of a secret provider, the `<provider>` of a `<provider>:<path>[#field]` secret reference. */
export const SecretProviderName = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[a-z0-9][a-z0-9_-]*$',
  description: 'Lower case letters, digits, _ and -; starts with a letter or digit; at most 63 chars',
});
/** Kept in step with PROVIDER_TYPES of @svc/secrets (which this package cannot import). */
export const SecretProviderType = StringEnum(['env', 'vault'] as const, { description: 'env: environment variables; vault: HashiCorp Vault KV v2' });
/**
 * What a secret check names: a builtin key, or a provider reference
 * `<provider>:<path>[#field]` (encode `/` as %2F and `#` as %23 in the URL).
 */
export const SecretReferenceParam = Type.String({
  minLength: 1,
  maxLength: 1350,
  pattern: '^(?:[A-Za-z0-9_.-]{1,255}|[a-z0-9][a-z0-9_-]{0,62}:[A-Za-z0-9_.@+=~/-]{1,1024}(?:#[A-Za-z0-9_.-]{1,255})?)$',
  description: 'A builtin key, or `<provider>:<path>[#field]`',
});

/** The namespaces a secret provider serves. */
function ProviderNamespaces(what: string) {
  return Type.Array(Type.String({ minLength: 1, maxLength: 128, pattern: '^(?:\\*|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)$' }), {
    maxItems: 200,
    description: `Extension: namespaces whose flows may use the provider, each covering its children; "*" every namespace. ${what}`,
  });
}

export const SecretProviderRequest = component(
  'SecretProviderRequest',
  Type.Object(
    {
      name: SecretProviderName,
      type: SecretProviderType,
      config: Type.Optional(FreeObject('Settings of the type. env: `prefix`. vault: `address` (required), `mount` (default `secret`), `namespace`')),
      credentials: Type.Optional(FreeObject('Write-only, stored sealed with SVC_MASTER_KEYS. vault: `token`. env: none')),
      enabled: Type.Optional(Type.Boolean({ description: 'Default true' })),
      namespaces: Type.Optional(ProviderNamespaces('Default [] (no flow may use the provider until an admin lists its namespaces)')),
    },
    open,
  ),
);
export const UpdateSecretProviderRequest = component(
  'UpdateSecretProviderRequest',
  Type.Object(
    {
      type: Type.Optional(SecretProviderType),
      config: Type.Optional(FreeObject('Replaces the whole config; omitted keeps it (or {} when the type changes)')),
      credentials: Type.Optional(Nullable(FreeObject('Replaces the credentials; null removes them; omitted keeps them (none when the type changes)'))),
      enabled: Type.Optional(Type.Boolean()),
      namespaces: Type.Optional(ProviderNamespaces('Replaces the list; omitted keeps it')),
    },
    open,
  ),
);
