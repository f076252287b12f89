import { discriminated, ref, stringMap, type SchemaNode } from './builders.js';
import { POOL_PATTERN, QUANTITY_PATTERN } from './patterns.js';
import { EXECUTOR_FAMILY, EXECUTOR_TYPES } from './variants.js';

const executorSpecific: Record<string, SchemaNode> = {
  image: {
    description: 'docker and kubernetes: container image the task runs in; required for these types.',
    type: 'string',
    minLength: 1,
    examples: ['python:3.12-slim'],
  },
  inject_runner: {
    description: 'docker and kubernetes: mount the runner binary into the container. When false the runner must be on the image PATH.',
    type: 'boolean',
    default: true,
  },
  pull: {
    description: 'docker: when to pull the image.',
    enum: ['always', 'if_not_present', 'never'],
    default: 'if_not_present',
  },
  network: {
    description: 'docker: name of the network the container joins.',
    type: 'string',
    minLength: 1,
    examples: ['host'],
  },
  resources: ref('Resources', {
    description: 'docker and kubernetes: CPU and memory requests and limits (docker uses the limits).',
  }),
  kubernetes: ref('Kubernetes', { description: 'kubernetes: pod settings.' }),
};

export const executorDef: SchemaNode = discriminated({
  family: EXECUTOR_FAMILY,
  title: 'Executor',
  description: 'Where and how task runs execute. Resolution order: task, flow, `namespace.yaml`, instance default.',
  common: {
    type: {
      description: 'Executor type. When absent it comes from the flow, `namespace.yaml` or the instance default.',
      enum: [...EXECUTOR_TYPES],
      examples: ['docker'],
    },
    pool: {
      description: 'Pool of instances that run the task: at most 63 lower-case letters, digits and hyphens.',
      type: 'string',
      maxLength: 63,
      pattern: POOL_PATTERN,
      default: 'default',
      examples: ['gpu'],
    },
  },
  required: [],
  specific: executorSpecific,
  // Without a type, the effective one is only known at dispatch, so every field is accepted here.
  untyped: { properties: executorSpecific },
  examples: [{ type: 'docker', image: 'python:3.12-slim', resources: { limits: { cpu: '1', memory: '512Mi' } } }, { pool: 'gpu' }],
});

function resourceList(description: string): SchemaNode {
  return ref('ResourceList', { description });
}

export const resourcesDef: SchemaNode = {
  title: 'Resources',
  description: 'CPU and memory of the container.',
  type: 'object',
  properties: {
    requests: resourceList('kubernetes: what the scheduler reserves for the pod.'),
    limits: resourceList('The most the container may use; docker applies only these.'),
  },
  additionalProperties: false,
  examples: [{ requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } }],
};

export const resourceListDef: SchemaNode = {
  title: 'ResourceList',
  description: 'A CPU and a memory quantity.',
  type: 'object',
  properties: {
    cpu: {
      description:
        'CPU cores as a Kubernetes quantity: a number (`2`, `0.5`, `.5`, `1e3`) with an optional suffix, usually `m` for millicores (`500m`); every suffix Kubernetes reads is accepted (n, u, m, k, M, G, T, P, E, Ki … Ei).',
      type: 'string',
      pattern: QUANTITY_PATTERN,
      examples: ['500m', '2'],
    },
    memory: {
      description:
        'Memory in bytes as a Kubernetes quantity: a number with an optional binary suffix Ki, Mi, Gi, Ti, Pi, Ei (powers of 1024) or decimal suffix k, M, G, T, P, E (powers of 1000; a lower-case `k`, as Kubernetes reads it), or an exponent (`1e9`).',
      type: 'string',
      pattern: QUANTITY_PATTERN,
      examples: ['512Mi', '2Gi'],
    },
  },
  additionalProperties: false,
};

export const kubernetesDef: SchemaNode = {
  title: 'Kubernetes',
  description: 'Settings of the pod a kubernetes executor creates.',
  type: 'object',
  properties: {
    service_account: {
      description: 'Service account the pod runs as.',
      type: 'string',
      minLength: 1,
      examples: ['etl-runner'],
    },
    node_selector: stringMap('Node labels the pod must be scheduled on.', {
      examples: [{ 'kubernetes.io/arch': 'amd64' }],
    }),
    tolerations: {
      description: 'Taints the pod tolerates.',
      type: 'array',
      items: ref('Toleration'),
    },
    image_pull_secrets: {
      description: 'Names of secrets used to pull the image.',
      type: 'array',
      items: { type: 'string', minLength: 1 },
      examples: [['registry-credentials']],
    },
    labels: stringMap('Labels added to the pod.', { examples: [{ team: 'data' }] }),
    annotations: stringMap('Annotations added to the pod.'),
  },
  additionalProperties: false,
};

export const tolerationDef: SchemaNode = {
  title: 'Toleration',
  description: 'A Kubernetes toleration.',
  type: 'object',
  properties: {
    key: { description: 'Taint key the toleration applies to; empty with `Exists` matches all taints.', type: 'string' },
    operator: {
      description: '`Exists` matches any value; `Equal` matches `value`.',
      enum: ['Exists', 'Equal'],
      default: 'Equal',
    },
    value: { description: 'Taint value matched by `Equal`.', type: 'string' },
    effect: {
      description: 'Taint effect matched; empty matches all effects.',
      enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
    },
    toleration_seconds: {
      description: '`NoExecute` only: how long the pod stays bound after the taint appears.',
      type: 'integer',
      examples: [300],
    },
  },
  additionalProperties: false,
  examples: [{ key: 'dedicated', operator: 'Equal', value: 'etl', effect: 'NoSchedule' }],
};
