import type { SchemaNode } from './builders.js';
import { executorDef, kubernetesDef, resourceListDef, resourcesDef, tolerationDef } from './defs-executor.js';
import { concurrencyDef, durationDef, flowDef, inputDef, retryDef, stringMapDef, triggerDef } from './defs-flow.js';
import { approvalDef, approvalFormFieldDef, taskDef } from './defs-task.js';

/** `$id` of the flow schema, also the address clients may cache it under. */
export const FLOW_SCHEMA_ID = 'https://svc.dev/schemas/flow.json';

/**
 * JSON Schema (draft 2020-12) of a `*.flow.yaml` file, as served by
 * `GET /api/v1/schemas/flow.json`. Every table of the spec is one `$defs`
 * entry; the root refers to `Flow`.
 */
export const flowSchema: SchemaNode = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: FLOW_SCHEMA_ID,
  title: 'svc flow file',
  description: flowDef.description,
  $ref: '#/$defs/Flow',
  $defs: {
    Flow: flowDef,
    Concurrency: concurrencyDef,
    Input: inputDef,
    Trigger: triggerDef,
    Retry: retryDef,
    Executor: executorDef,
    Resources: resourcesDef,
    ResourceList: resourceListDef,
    Kubernetes: kubernetesDef,
    Toleration: tolerationDef,
    Task: taskDef,
    Approval: approvalDef,
    ApprovalFormField: approvalFormFieldDef,
    Duration: durationDef,
    StringMap: stringMapDef,
  },
};
