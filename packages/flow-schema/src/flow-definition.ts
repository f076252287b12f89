/**
 * TypeScript view of a valid `*.flow.yaml`, written by hand to match
 * `flowSchema` (the tests load example flows through the schema and use them
 * as these types). Optional fields are absent, never null.
 */

/** One or more groups of a decimal number and a unit: `30s`, `10m`, `1h30m`. */
export type Duration = string;

/** A template string: `{{ expr }}` parts are resolved at dispatch. */
export type Template = string;

export type StringMap = Record<string, string>;

export interface FlowDefinition {
  /** At most 63 chars of `[a-z0-9-]`, starting with a letter or digit; unique in the namespace. */
  id: string;
  /** At most 2000 chars. */
  description?: string;
  /** At most 20 entries; carried by every execution. */
  labels?: StringMap;
  inputs?: FlowInput[];
  /** Static values for `vars`; highest precedence. */
  variables?: StringMap;
  /** Environment templates for all tasks. */
  env?: Record<string, Template>;
  triggers?: FlowTrigger[];
  /** Absent means unlimited. */
  concurrency?: Concurrency;
  /** Default 0 (unlimited). */
  max_parallel?: number;
  /** Default: no limit. */
  timeout?: Duration;
  retry?: RetryPolicy;
  executor?: ExecutorSpec;
  /** 1 to 200 tasks. */
  tasks: FlowTask[];
  /** Output templates, resolved when the execution succeeds. */
  outputs?: Record<string, Template>;
}

export interface Concurrency {
  /** At least 1. */
  limit: number;
  /** Default `queue`. */
  behavior?: 'queue' | 'skip';
}

export type InputType = 'string' | 'int' | 'number' | 'boolean' | 'select' | 'json' | 'file';

interface InputBase {
  /** `[a-z][a-z0-9_]*`, at most 63 chars. */
  id: string;
  required?: boolean;
  description?: string;
}

export type FlowInput =
  | (InputBase & { type: 'string'; default?: string })
  | (InputBase & { type: 'int'; default?: number })
  | (InputBase & { type: 'number'; default?: number })
  | (InputBase & { type: 'boolean'; default?: boolean })
  | (InputBase & { type: 'select'; values: Array<string | number | boolean>; default?: string | number | boolean })
  | (InputBase & { type: 'json'; default?: unknown })
  /** Extension (docs/using/files.md): the trigger gives an upload id (createUpload); no default. */
  | (InputBase & { type: 'file'; default?: never });

export type TriggerType = 'schedule' | 'webhook' | 'flow';
export type UpstreamEndState = 'SUCCESS' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED';

interface TriggerBase {
  /** `[a-z][a-z0-9_-]*`, at most 63 chars; unique in the flow. */
  id: string;
  /** Input templates. */
  inputs?: Record<string, Template>;
}

export interface ScheduleTrigger extends TriggerBase {
  type: 'schedule';
  /** Five cron fields or `@hourly`, `@daily`, `@weekly`, `@monthly`. */
  cron: string;
  /** IANA zone; default `UTC`. */
  timezone?: string;
  /** Default `last`. */
  catch_up?: 'none' | 'last';
}

export interface WebhookTrigger extends TriggerBase {
  type: 'webhook';
}

export interface FlowEndTrigger extends TriggerBase {
  type: 'flow';
  /** `<namespace>/<flow_id>`. */
  flow: string;
  states: UpstreamEndState[];
}

export type FlowTrigger = ScheduleTrigger | WebhookTrigger | FlowEndTrigger;

export interface RetryPolicy {
  /** 1 to 20, default 1; counts the first attempt. */
  max_attempts?: number;
  /** Default `fixed`. */
  backoff?: 'fixed' | 'exponential';
  /** Default `10s`. */
  initial?: Duration;
  /** Default `10m`. */
  max?: Duration;
}

export type ExecutorType = 'process' | 'docker' | 'kubernetes';

export interface ResourceList {
  /** e.g. `500m`, `2`. */
  cpu?: string;
  /** e.g. `512Mi`. */
  memory?: string;
}

export interface Resources {
  requests?: ResourceList;
  limits?: ResourceList;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  toleration_seconds?: number;
}

export interface KubernetesPodSettings {
  service_account?: string;
  node_selector?: StringMap;
  tolerations?: Toleration[];
  image_pull_secrets?: string[];
  labels?: StringMap;
  annotations?: StringMap;
}

interface ExecutorBase {
  /** `[a-z0-9-]+`, at most 63 chars; default `default`. */
  pool?: string;
}

/** No type: it is inherited, so any field may be given. */
export interface UntypedExecutor extends ExecutorBase {
  type?: undefined;
  image?: string;
  inject_runner?: boolean;
  pull?: 'always' | 'if_not_present' | 'never';
  network?: string;
  resources?: Resources;
  kubernetes?: KubernetesPodSettings;
}

export interface ProcessExecutor extends ExecutorBase {
  type: 'process';
}

export interface DockerExecutor extends ExecutorBase {
  type: 'docker';
  image: string;
  /** Default true. */
  inject_runner?: boolean;
  /** Default `if_not_present`. */
  pull?: 'always' | 'if_not_present' | 'never';
  network?: string;
  resources?: Resources;
}

export interface KubernetesExecutor extends ExecutorBase {
  type: 'kubernetes';
  image: string;
  /** Default true. */
  inject_runner?: boolean;
  resources?: Resources;
  kubernetes?: KubernetesPodSettings;
}

export type ExecutorSpec = UntypedExecutor | ProcessExecutor | DockerExecutor | KubernetesExecutor;

export type TaskType = 'script' | 'command' | 'http' | 'subflow';
/** `success`, `failure`, `always`, or (an extension) one `{{ expression }}` (conditions.ts). */
export type RunIf = 'success' | 'failure' | 'always' | (string & {});

interface TaskBase {
  /** `[a-z][a-z0-9_]*`, at most 63 chars; unique in the flow. */
  id: string;
  depends_on?: string[];
  /** Default `success`. */
  run_if?: RunIf;
  /** Default `24h`. */
  timeout?: Duration;
  retry?: RetryPolicy;
  env?: Record<string, Template>;
  /**
   * Extension: one task run per item. One `{{ expression }}` rendering to a
   * JSON list, or a literal list; at most FOR_EACH_MAX_ITEMS items.
   */
  for_each?: Template | unknown[];
  /** Extension, only with `for_each`: an integer of at least 1; default: no bound but the flow's `max_parallel`. */
  for_each_concurrency?: number;
  /** Extension, only with `for_each`: cancel the items not started once one fails; default false. */
  fail_fast?: boolean;
  /** Extension: a person must approve before the task runs (an approval gate). */
  approval?: ApprovalGate;
}

/** One field of an approval's form: the approver fills it in, the flow reads it as `tasks.<id>.approval.inputs.<field id>`. */
export interface ApprovalFormField {
  /** `[a-z][a-z0-9_]*`, unique in the form. */
  id: string;
  /** Default `string`. */
  type?: 'string' | 'number' | 'boolean';
  /** Default false. */
  required?: boolean;
  description?: string;
}

/** Extension: an approval gate (when its dependencies end, the task waits for a person's decision). */
export interface ApprovalGate {
  /** Who may decide: a role on the flow's namespace (default `operator`), or membership of one of the IdP groups. */
  approvers?: { role?: 'viewer' | 'operator' | 'editor' | 'admin'; groups?: string[] };
  /** How long to wait; default none (the wait lasts until a decision or a cancel). */
  timeout?: Duration;
  /** What the timeout decides; default `fail`. */
  on_timeout?: 'fail' | 'skip' | 'approve';
  form?: ApprovalFormField[];
  /** Refuse the person who started the execution; default false. */
  forbid_self_approval?: boolean;
}

export interface ScriptTask extends TaskBase {
  type: 'script';
  /** Relative to the namespace root. */
  file: string;
  /** Default from the extension: .py python, .sh bash, .ts bun, .js node. */
  runtime?: 'python' | 'bash' | 'bun' | 'node';
  args?: Template[];
  /** Path relative to the namespace root to file template. */
  files?: Record<string, Template>;
  executor?: ExecutorSpec;
  /** Extension: globs relative to the working directory; the matching files are kept after a success (docs/using/files.md). */
  output_files?: string[];
}

export interface CommandTask extends TaskBase {
  type: 'command';
  /** argv templates, no shell; at least one item. */
  command: Template[];
  /** Relative to the namespace root; default the root. */
  workdir?: string;
  files?: Record<string, Template>;
  executor?: ExecutorSpec;
  /** Extension: globs relative to the working directory; the matching files are kept after a success (docs/using/files.md). */
  output_files?: string[];
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

export interface HttpTask extends TaskBase {
  type: 'http';
  /** Default `GET`. */
  method?: HttpMethod;
  url: Template;
  headers?: Record<string, Template>;
  body?: Template;
  /** Default 200 to 299. */
  expect_status?: number[];
}

export interface SubflowTask extends TaskBase {
  type: 'subflow';
  /** `<namespace>/<flow_id>`. */
  flow: string;
  inputs?: Record<string, Template>;
  /** Default true. */
  wait?: boolean;
}

export type FlowTask = ScriptTask | CommandTask | HttpTask | SubflowTask;
