export { flowSchema, FLOW_SCHEMA_ID } from './schema/flow-schema.js';
export { editorFlowSchema, withPropertyNames } from './schema/editor-schema.js';
export { parseFlowYaml, DEFAULT_MAX_BYTES, DEFAULT_MAX_NODES, DEFAULT_MAX_DEPTH } from './parse.js';
export type { ParseFlowOptions, ParseFlowResult } from './parse.js';
export { validateFlow, validateFlowValue, assertValidFlow, createFlowValidator } from './validate.js';
export type { ValidateFlowResult, FlowValidator } from './validate.js';
export { FlowInvalidError } from './flow-error.js';
export type { FlowError } from './flow-error.js';
export type { SourcePositions, LineColumn } from './positions.js';
export type {
  FlowDefinition,
  Duration,
  Template,
  StringMap,
  Concurrency,
  InputType,
  FlowInput,
  TriggerType,
  UpstreamEndState,
  ScheduleTrigger,
  WebhookTrigger,
  FlowEndTrigger,
  FlowTrigger,
  RetryPolicy,
  ExecutorType,
  ResourceList,
  Resources,
  Toleration,
  KubernetesPodSettings,
  UntypedExecutor,
  ProcessExecutor,
  DockerExecutor,
  KubernetesExecutor,
  ExecutorSpec,
  TaskType,
  RunIf,
  ScriptTask,
  CommandTask,
  HttpMethod,
  HttpTask,
  SubflowTask,
  FlowTask,
  ApprovalGate,
  ApprovalFormField,
} from './flow-definition.js';
export { TASK_TYPES, TRIGGER_TYPES, EXECUTOR_TYPES, INPUT_TYPES } from './schema/variants.js';
export { MAX_ID_LENGTH, MAX_TASKS, MAX_LABELS, MAX_DESCRIPTION_LENGTH, FLOW_TRIGGER_STATES } from './schema/defs-flow.js';
export { SCRIPT_RUNTIMES, HTTP_METHODS, FOR_EACH_MAX_ITEMS } from './schema/defs-task.js';
export { renderForEach } from './for-each.js';
export type { ForEachItems } from './for-each.js';
export { DURATION_PATTERN, CRON_PATTERN, FOR_EACH_PATTERN } from './schema/patterns.js';
export { checkFlowSemantics, secretReferenceSites } from './semantic.js';
export { fieldPath } from './field-path.js';
export * from './templates/index.js';
export { compileCondition, evaluateCondition, isConditionExpression, ConditionError, CONDITION_ROOTS, RUN_IF_KEYWORDS } from './conditions.js';
export type { Condition, ConditionOutcome, ConditionRoot } from './conditions.js';
export { flowExtensions } from './extensions.js';
export type { ExtensionUse } from './extensions.js';
export { EXTENSION_KEYWORD } from './schema/builders.js';
