// The shapes the UI reads, as the OpenAPI document (packages/api-spec) gives
// them. Objects are open on the server; only the fields used here are named.

export type Role = 'viewer' | 'operator' | 'editor' | 'admin';
export const ROLES: Role[] = ['viewer', 'operator', 'editor', 'admin'];

export const EXECUTION_STATES = ['QUEUED', 'RUNNING', 'CANCELLING', 'SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'] as const;
export type ExecutionState = (typeof EXECUTION_STATES)[number];
export type TaskRunState = 'PENDING' | 'QUEUED' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED' | 'SKIPPED';
export const ENDED: string[] = ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'];

export interface Me {
  id: string;
  email: string;
  name: string;
  role: Role;
  auth_type: 'token' | 'session';
  must_change_password: boolean;
}

export interface Progress {
  type: string;
  at?: string;
  message?: string;
  percent?: number;
}

export interface TaskRun {
  id: string;
  task_key: string;
  task_type: string;
  executor_type: string;
  pool: string;
  state: TaskRunState;
  reason: string;
  error: string;
  attempt: number;
  child_execution_id?: string | null;
  reused_from_id?: string | null;
  exit_code?: number | null;
  duration_ms?: number | null;
  queued_at?: string | null;
  started_at?: string | null;
  ended_at?: string | null;
  outputs?: Record<string, unknown> | null;
  progress?: Progress | null;
}

export interface Execution {
  id: string;
  state: ExecutionState;
  reason: string;
  error: string;
  namespace: string;
  flow_id?: string | null;
  flow_revision_id?: string | null;
  snapshot_version?: number | null;
  inputs: Record<string, unknown>;
  labels: Record<string, string>;
  outputs?: Record<string, unknown> | null;
  parent_execution_id?: string | null;
  restart_of_id?: string | null;
  children: { id: string; state: string; created_at: string }[];
  created_at: string;
  created_by: string;
  started_at?: string | null;
  ended_at?: string | null;
  duration_ms?: number | null;
  trigger_type: string;
  task_runs: TaskRun[];
}

export interface ExecutionSummary {
  id: string;
  state: ExecutionState;
  namespace: string;
  flow_id?: string | null;
  created_at?: string;
  started_at?: string | null;
  ended_at?: string | null;
  duration_ms?: number | null;
  labels?: Record<string, string>;
  triage_summary?: string | null;
}

export interface FlowInput {
  id: string;
  type: 'string' | 'int' | 'number' | 'boolean' | 'select' | 'json';
  required?: boolean;
  default?: unknown;
  values?: unknown[];
  description?: string;
}

export interface FlowTask {
  id: string;
  type: string;
  depends_on?: string[];
  run_if?: string;
  retry?: RetryPolicy;
}

export interface RetryPolicy {
  max_attempts?: number;
  backoff?: string;
  initial?: string;
  max?: string;
}

export interface FlowDefinition {
  id: string;
  description?: string;
  inputs?: FlowInput[];
  tasks?: FlowTask[];
  concurrency?: { limit: number; behavior?: string };
  max_parallel?: number;
  retry?: RetryPolicy;
}

export interface Trigger {
  id: string;
  type: string;
  webhook_key?: string | null;
  webhook_url?: string | null;
}

export interface Flow {
  namespace: string;
  id: string;
  description?: string;
  labels?: Record<string, string>;
  enabled: boolean;
  revision_id?: string | null;
  updated_at?: string | null;
  path?: string;
  source?: string;
  definition?: FlowDefinition;
  triggers?: Trigger[];
}

export interface LogLine {
  task_run_id: string;
  task_key: string;
  attempt: number;
  n: number;
  ts: string;
  stream: string;
  text: string;
}

export interface Namespace {
  name: string;
  description?: string;
  read_only?: boolean;
  head_version?: number | null;
}

export interface FileEntry {
  path: string;
  size: number;
  executable: boolean;
}

export interface ValidationProblem {
  field: string;
  pointer: string;
  message: string;
  line?: number;
  column?: number;
}

/** getAIUsage: the AI requests and tokens of one UTC day, per user and in total, with the daily limits. */
export interface AIUsage {
  day: string;
  resets_at: string;
  limits: { user_requests: number; user_tokens: number; total_requests: number; total_tokens: number };
  total: { requests: number; tokens: number };
  /** `user_id` 'auto' (email null) is automatic triage, which only the totals limit. */
  users: { user_id: string; email: string | null; requests: number; tokens: number }[];
}
