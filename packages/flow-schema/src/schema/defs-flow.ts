import { discriminated, ref, stringMap, type SchemaNode } from './builders.js';
import { CRON_PATTERN, DURATION_PATTERN, FLOW_ID_PATTERN, FLOW_REF_PATTERN, TASK_ID_PATTERN, TIMEZONE_PATTERN, TRIGGER_ID_PATTERN } from './patterns.js';
import { INPUT_FAMILY, INPUT_TYPES, TRIGGER_FAMILY, TRIGGER_TYPES } from './variants.js';

/** Longest flow, task, input and trigger id (a DNS label, so ids fit in pod and job names). */
export const MAX_ID_LENGTH = 63;
export const MAX_TASKS = 200;
export const MAX_LABELS = 20;
export const MAX_DESCRIPTION_LENGTH = 2000;

/** End states of an upstream execution that a flow trigger may listen to. */
export const FLOW_TRIGGER_STATES = ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED'] as const;

export const flowDef: SchemaNode = {
  title: 'Flow',
  description: 'A flow file (`*.flow.yaml`): inputs, variables, triggers and 1 to 200 tasks ordered by `depends_on`.',
  type: 'object',
  properties: {
    id: {
      description: 'Flow id, unique in the namespace. At most 63 characters: lower-case letters, digits and hyphens, starting with a letter or digit.',
      type: 'string',
      maxLength: MAX_ID_LENGTH,
      pattern: FLOW_ID_PATTERN,
      examples: ['nightly-report'],
    },
    description: {
      description: 'What the flow does, shown in the UI. At most 2000 characters.',
      type: 'string',
      maxLength: MAX_DESCRIPTION_LENGTH,
      examples: ['Builds the nightly sales report and mails it to the team.'],
    },
    labels: stringMap('Labels carried by every execution of the flow; at most 20 entries.', {
      maxProperties: MAX_LABELS,
      examples: [{ team: 'data', tier: 'gold' }],
    }),
    inputs: {
      description: 'Inputs a trigger gives to an execution; validated at trigger time and read as `inputs.<id>`.',
      type: 'array',
      items: ref('Input'),
      default: [],
    },
    variables: stringMap('Static values read as `vars.<key>`; they take precedence over namespace and global variables.', {
      examples: [{ bucket: 'reports' }],
    }),
    env: stringMap('Environment variable templates for every task; a task `env` overrides them key by key.', {
      examples: [{ LOG_LEVEL: 'info' }],
    }),
    triggers: {
      description: 'Schedules, webhooks and upstream flows that start executions. Manual triggering needs no declaration.',
      type: 'array',
      items: ref('Trigger'),
      default: [],
    },
    concurrency: ref('Concurrency', {
      description: 'Limit on running executions of this flow. Absent means unlimited.',
    }),
    max_parallel: {
      description: 'Maximum tasks of one execution running at the same time; 0 means unlimited.',
      type: 'integer',
      minimum: 0,
      default: 0,
      examples: [4],
    },
    timeout: ref('Duration', {
      description: 'Wall time limit of an execution; the execution ends TIMED_OUT when it passes. Default: no limit.',
      examples: ['2h'],
    }),
    retry: ref('Retry', { description: 'Default retry policy of the tasks; a task `retry` overrides it.' }),
    executor: ref('Executor', {
      description: 'Default executor of the tasks. Resolution order: task, flow, `namespace.yaml`, instance default.',
    }),
    tasks: {
      description: 'The tasks of the flow: 1 to 200 items.',
      type: 'array',
      minItems: 1,
      maxItems: MAX_TASKS,
      items: ref('Task'),
    },
    outputs: stringMap('Output templates, resolved when the execution succeeds.', {
      examples: [{ report_url: '{{ tasks.publish.outputs.url }}' }],
    }),
  },
  required: ['id', 'tasks'],
  additionalProperties: false,
};

export const concurrencyDef: SchemaNode = {
  title: 'Concurrency',
  description: 'How many executions of the flow may run at once, and what happens to the others.',
  type: 'object',
  properties: {
    limit: {
      description: 'Maximum running executions of the flow.',
      type: 'integer',
      minimum: 1,
      examples: [1],
    },
    behavior: {
      description: '`queue` holds new executions in QUEUED until a place is free; `skip` ends them SKIPPED.',
      enum: ['queue', 'skip'],
      default: 'queue',
    },
  },
  required: ['limit'],
  additionalProperties: false,
  examples: [{ limit: 1, behavior: 'skip' }],
};

const inputCommon: Record<string, SchemaNode> = {
  id: {
    description: 'Input id, read as `inputs.<id>`. At most 63 characters: a lower-case letter, then lower-case letters, digits and underscores.',
    type: 'string',
    maxLength: MAX_ID_LENGTH,
    pattern: TASK_ID_PATTERN,
    examples: ['report_date'],
  },
  type: {
    description: 'Type of the value.',
    enum: [...INPUT_TYPES],
    examples: ['string'],
  },
  required: {
    description: 'Whether a trigger must give a value when the input has no default.',
    type: 'boolean',
    default: false,
  },
  default: {
    description: 'Value used when a trigger gives none; must match the type (and be one of `values` for a select).',
  },
  description: {
    description: 'Help text shown on the run form.',
    type: 'string',
    maxLength: MAX_DESCRIPTION_LENGTH,
  },
};

export const inputDef: SchemaNode = discriminated({
  family: INPUT_FAMILY,
  title: 'Input',
  description: 'A value given to an execution by its trigger.',
  common: inputCommon,
  required: ['id', 'type'],
  specific: {
    values: {
      description: 'The values a `select` input allows.',
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: ['string', 'number', 'boolean'] },
      examples: [['eu', 'us']],
    },
  },
  thenExtras: {
    string: { properties: { default: { description: 'Default of a string input.', type: 'string' } } },
    int: { properties: { default: { description: 'Default of an int input: an integer.', type: 'integer' } } },
    number: { properties: { default: { description: 'Default of a number input.', type: 'number' } } },
    boolean: { properties: { default: { description: 'Default of a boolean input: true or false.', type: 'boolean' } } },
    select: {
      properties: {
        default: { description: 'Default of a select input: one of `values`.', type: ['string', 'number', 'boolean'] },
      },
    },
    // Extension (docs/using/files.md): a trigger names a file uploaded to the flow's namespace (createUpload) by its id.
    file: { properties: { default: { description: 'a file input has no default (a trigger gives the id of an upload)', not: {} } } },
  },
  examples: [{ id: 'region', type: 'select', values: ['eu', 'us'], default: 'eu' }],
});

const triggerSpecific: Record<string, SchemaNode> = {
  cron: {
    description: 'schedule: five cron fields (minute hour day-of-month month day-of-week), or @hourly, @daily, @weekly, @monthly.',
    type: 'string',
    pattern: CRON_PATTERN,
    examples: ['0 3 * * *', '*/15 * * * MON-FRI', '@daily'],
  },
  timezone: {
    description: 'schedule: IANA time zone the cron expression is read in.',
    type: 'string',
    pattern: TIMEZONE_PATTERN,
    default: 'UTC',
    examples: ['Europe/Paris'],
  },
  catch_up: {
    description: 'schedule: after downtime, `none` fires no missed time; `last` fires only the latest missed time.',
    enum: ['none', 'last'],
    default: 'last',
  },
  flow: {
    description: 'flow trigger: upstream flow as `<namespace>/<flow_id>`.',
    type: 'string',
    pattern: FLOW_REF_PATTERN,
    examples: ['company.data/ingest'],
  },
  states: {
    description: 'flow trigger: end states of the upstream execution that fire this trigger.',
    type: 'array',
    minItems: 1,
    uniqueItems: true,
    items: { enum: [...FLOW_TRIGGER_STATES] },
    examples: [['SUCCESS'], ['FAILED', 'TIMED_OUT']],
  },
};

export const triggerDef: SchemaNode = discriminated({
  family: TRIGGER_FAMILY,
  title: 'Trigger',
  description: 'Starts executions of the flow: on a schedule, from a webhook, or when an upstream flow ends.',
  common: {
    id: {
      description: 'Trigger id, unique in the flow. At most 63 characters: a lower-case letter, then lower-case letters, digits, underscores and hyphens.',
      type: 'string',
      maxLength: MAX_ID_LENGTH,
      pattern: TRIGGER_ID_PATTERN,
      examples: ['nightly'],
    },
    type: {
      description: '`schedule` (cron), `webhook` (POST to /hooks/{key}) or `flow` (an upstream flow ended).',
      enum: [...TRIGGER_TYPES],
    },
    inputs: stringMap(
      "Input templates. Webhook triggers read `trigger.body` and `trigger.headers`; flow triggers read `trigger.outputs`; schedule triggers read `trigger.date` (the fire time, RFC 3339 with the schedule's offset). All read `flow`, `execution`, `vars` and `secret()` (stored masked; tasks reading the input get the value).",
      { examples: [{ report_date: '{{ trigger.body.date }}' }] },
    ),
  },
  required: ['id', 'type'],
  specific: triggerSpecific,
  examples: [
    { id: 'nightly', type: 'schedule', cron: '0 3 * * *', timezone: 'Europe/Paris' },
    { id: 'on-ingest', type: 'flow', flow: 'company.data/ingest', states: ['SUCCESS'] },
  ],
});

export const retryDef: SchemaNode = {
  title: 'Retry',
  description: 'How often and how soon a failed or timed-out task run is tried again.',
  type: 'object',
  properties: {
    max_attempts: {
      description: 'Attempts in total, counting the first one: 1 to 20.',
      type: 'integer',
      minimum: 1,
      maximum: 20,
      default: 1,
      examples: [3],
    },
    backoff: {
      description: '`fixed` waits `initial` between attempts; `exponential` doubles the wait each time, up to `max`.',
      enum: ['fixed', 'exponential'],
      default: 'fixed',
    },
    initial: ref('Duration', { description: 'Wait before the second attempt.', default: '10s' }),
    max: ref('Duration', { description: 'Longest wait between two attempts.', default: '10m' }),
  },
  additionalProperties: false,
  examples: [{ max_attempts: 3, backoff: 'exponential', initial: '30s', max: '5m' }],
};

export const durationDef: SchemaNode = {
  title: 'Duration',
  description: 'One or more groups of a decimal number and a unit (ns, us, µs, ms, s, m, h), e.g. 30s, 10m, 1h30m.',
  type: 'string',
  pattern: DURATION_PATTERN,
  examples: ['30s', '10m', '2h', '1h30m'],
};

export const stringMapDef: SchemaNode = {
  title: 'StringMap',
  description: 'An object of string to string.',
  type: 'object',
  additionalProperties: { type: 'string' },
};
