// The API objects the UI reads: aliases of the types generated from the
// OpenAPI document (@svc/api-spec, src/openapi-types.generated.ts), never
// retyped here, so a field that drifts from the spec breaks the build.
// The type helpers by operation id (`Answer<'getFlowStats'>`, `RequestBody<'saveChanges'>`) and the
// roles are declared once, in @svc/api-spec and @svc/vocabulary.
import type { Schemas } from '@svc/api-spec/api-types';
import { EXECUTION_STATES as MACHINE_EXECUTION_STATES, isExecutionEnded } from '@svc/state-machine';
import { SPEC_ROLES } from '@svc/vocabulary';

export type { Answer, RequestBody, Page, QueryParams } from '@svc/api-spec/api-types';
/** Global roles, lowest first; `none` reads only the namespaces its role bindings open. */
export { ROLES, type Role } from '@svc/vocabulary';
export type BindingRole = Schemas['BindingRole'];
/** The roles a role binding may give: never `none`. */
export const BINDING_ROLES: readonly BindingRole[] = SPEC_ROLES;

export type ExecutionState = Schemas['ExecutionState'];
export type TaskRunState = Schemas['TaskRunState'];
/** Every execution state in the spec's order: the state machine's list, which must fit the document's states. */
export const EXECUTION_STATES: readonly ExecutionState[] = MACHINE_EXECUTION_STATES;
/** End states of executions (task runs end in the same five). */
export const ENDED: string[] = EXECUTION_STATES.filter(isExecutionEnded);

export type Me = Schemas['Me'];
export type TaskRun = Schemas['TaskRun'];
/** The latest `started` or `progress` runner event of a task run. */
export type Progress = NonNullable<TaskRun['progress']>;
export type Execution = Schemas['Execution'];
/**
 * A row of an execution table: a listExecutions item (a whole Execution) or a
 * getDashboard summary, which has no `created_at` and, among the recent
 * failures, carries the latest triage's summary.
 */
export type ExecutionSummary = Schemas['ExecutionSummary'] & Partial<Pick<Execution, 'created_at'>> & { triage_summary?: string | null };

export type Trigger = Schemas['FlowTrigger'];
/** getFlow; `definition` is the parsed flow file ({@link FlowDefinition}). */
export type Flow = Schemas['Flow'];
export type FlowRevision = Schemas['FlowRevision'];
export type LogLine = Schemas['LogLine'];
export type Namespace = Schemas['Namespace'];
export type FileEntry = Schemas['FileEntry'];
export type ValidationProblem = Schemas['ValidationProblem'];
/** getAIUsage: the AI requests and tokens of one UTC day, per user and in total, with the daily limits. */
export type AIUsage = Schemas['AIUsage'];
// For the shapes pages still declare locally (Dashboard.tsx, Flow.tsx,
// Flows.tsx, Execution.tsx, Editor.tsx, Profile.tsx, admin/*.tsx): the
// generated ones.
export type Dashboard = Schemas['Dashboard'];
export type UpcomingSchedule = Schemas['UpcomingSchedule'];
export type FlowRevisionDiff = Schemas['FlowRevisionDiff'];
export type NamespaceDiff = Schemas['NamespaceDiff'];
export type FlowStats = Schemas['FlowStats'];
export type FlowMetrics = Schemas['FlowMetrics'];
export type Artifact = Schemas['Artifact'];
/** createUpload: a file uploaded for a `file` input, its id the input's value. */
export type Upload = Schemas['Upload'];
export type MetricValue = Schemas['MetricValue'];
export type NamespaceVersion = Schemas['NamespaceVersion'];
export type ApiToken = Schemas['ApiToken'];
export type Instance = Schemas['Instance'];
export type AuditEvent = Schemas['AuditEvent'];
export type User = Schemas['User'];
export type SecretProvider = Schemas['SecretProvider'];
export type StorageStatus = Schemas['StorageStatus'];
export type FileDiff = Schemas['FileDiff'];
export type ErrorDetail = Schemas['ErrorDetail'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type GitSource = Schemas['GitSource'];
export type GitSourceRequest = Schemas['GitSourceRequest'];
export type GitSourceMapping = Schemas['GitSourceMapping'];
export type GitSyncRun = Schemas['GitSyncRun'];
export type NamespaceGit = Schemas['NamespaceGit'];
export type Organization = Schemas['Organization'];
export type CreatedOrganizationKey = Schemas['CreatedOrganizationKey'];
export type OrganizationEmail = Schemas['OrganizationEmail'];
export type AIProvider = Schemas['AIProvider'];
export type AIProviderRequest = Schemas['AIProviderRequest'];
export type SecretProviderCheck = Schemas['SecretProviderCheck'];
export type SecretKey = Schemas['SecretKey'];
export type Variable = Schemas['Variable'];
export type FileContent = Schemas['FileContent'];
export type NamespaceGitSource = Schemas['NamespaceGitSource'];
export type StorageCleanup = Schemas['StorageCleanup'];
/** getAIStatus: whether a provider is set, and which. */
export type AIStatus = Schemas['AIStatus'];
export type AIConversation = Schemas['AIConversation'];
export type AIMessage = Schemas['AIMessage'];
export type AIMessagePart = Schemas['AIMessagePart'];
/** An action the assistant proposed (save_flow, trigger_flow, cancel_execution, rerun_execution, restart_execution, replay_execution). */
export type AIAction = Schemas['AIAction'];
export type AIActionStatus = Schemas['AIActionStatus'];
/** An AI triage of an execution (listExecutionInsights, requestTriage). */
export type Insight = Schemas['Insight'];
export type InsightEvidence = Schemas['InsightEvidence'];

// The parsed flow file (a Flow's or a revision's `definition`), published as
// `FlowFile.*` from the flow schema (@svc/flow-schema). The fields of each
// task, trigger and input type are optional in these types (the generator
// flattens the schema's if/then variants); the schema says which one requires what.
export type FlowDefinition = Schemas['FlowFile'];
export type FlowInput = Schemas['FlowFile.Input'];
export type FlowTask = Schemas['FlowFile.Task'];
export type RetryPolicy = Schemas['FlowFile.Retry'];
