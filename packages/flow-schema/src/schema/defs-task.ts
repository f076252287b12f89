import { discriminated, EXTENSION_KEYWORD, ref, stringMap, type SchemaNode } from './builders.js';
import { MAX_ID_LENGTH } from './defs-flow.js';
import { FLOW_REF_PATTERN, FOR_EACH_PATTERN, INFERABLE_SCRIPT_PATTERN, RELATIVE_PATH_PATTERN, RUN_IF_PATTERN, TASK_ID_PATTERN } from './patterns.js';
import { TASK_FAMILY, TASK_TYPES } from './variants.js';

export const SCRIPT_RUNTIMES = ['python', 'bash', 'bun', 'node'] as const;
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

/** At most this many items in a task's `for_each` list, written or rendered (one task run each). */
export const FOR_EACH_MAX_ITEMS = 10_000;

const taskCommon: Record<string, SchemaNode> = {
  id: {
    description: 'Task id, unique in the flow. At most 63 characters: a lower-case letter, then lower-case letters, digits and underscores.',
    type: 'string',
    maxLength: MAX_ID_LENGTH,
    pattern: TASK_ID_PATTERN,
    examples: ['extract'],
  },
  type: {
    description: '`script` runs a file of the namespace, `command` runs an argv, `http` sends a request, `subflow` starts another flow.',
    enum: [...TASK_TYPES],
  },
  depends_on: {
    description: 'Ids of the tasks that must end before this one starts.',
    type: 'array',
    uniqueItems: true,
    items: { type: 'string', maxLength: MAX_ID_LENGTH, pattern: TASK_ID_PATTERN },
    default: [],
    examples: [['extract']],
  },
  run_if: {
    description:
      '`success`: every dependency succeeded; `failure`: at least one dependency failed or timed out; `always`: every dependency ended. Extension: one `{{ expression }}` (CEL over inputs, tasks, trigger, execution, flow and labels), decided once every dependency succeeded: true runs the task, false skips it (condition_not_met).',
    type: 'string',
    pattern: RUN_IF_PATTERN,
    default: 'success',
    examples: ['success', "{{ inputs.env == 'prod' && tasks.check.outputs.rows > 0 }}"],
    [EXTENSION_KEYWORD]: 'the {{ expression }} form',
  },
  timeout: ref('Duration', { description: 'Wall time limit of one attempt.', default: '24h' }),
  retry: ref('Retry', { description: 'Retry policy of this task; overrides the flow `retry`.' }),
  env: stringMap('Environment variable templates; they override the flow `env` key by key.', {
    examples: [{ TARGET_TABLE: '{{ inputs.table }}' }],
  }),
  for_each: {
    description: `Extension: run the task once per item of a list (a fan-out). A list written here (at most ${FOR_EACH_MAX_ITEMS} items), or one \`{{ expression }}\` that gives a JSON list when the task starts (an upstream task's output, an input, a variable). Each item is a task run of its own, with its own logs, retries, timeout and outputs; the task's templates read the item as \`{{ item }}\` and its 0-based index as \`{{ item_index }}\`. Dependents wait for every item, and \`tasks.<id>.outputs\` is the list of the items' outputs in item order.`,
    type: ['string', 'array'],
    pattern: FOR_EACH_PATTERN,
    maxItems: FOR_EACH_MAX_ITEMS,
    examples: ['{{ tasks.list.outputs.tables }}', '{{ inputs.regions }}', ['eu-west-1', 'us-east-1']],
    [EXTENSION_KEYWORD]: 'for_each (a fan-out over a list)',
  },
  for_each_concurrency: {
    description: "Extension, with `for_each`: at most this many of the task's items run at once (the flow's `max_parallel` still holds). Default: no bound of its own.",
    type: 'integer',
    minimum: 1,
    examples: [4],
    [EXTENSION_KEYWORD]: 'for_each_concurrency',
  },
  fail_fast: {
    description: 'Extension, with `for_each`: when an item fails, cancel the items not started yet. Default false: the other items run to their end, then the task fails.',
    type: 'boolean',
    default: false,
    [EXTENSION_KEYWORD]: 'fail_fast',
  },
  approval: ref('Approval', {
    description:
      'Extension: an approval gate. When its dependencies end, the task waits (reason `awaiting_approval`, the execution RUNNING, no worker slot held) until a person approves or rejects it: an approve runs it, a reject ends it FAILED `rejected` (so `run_if: failure` tasks run), the `timeout` applies `on_timeout`. Downstream templates read `tasks.<id>.approval.by`, `.at`, `.status`, `.comment` and `.inputs.<field>`.',
    [EXTENSION_KEYWORD]: 'approval (an approval gate)',
  }),
};

const relativePath = (description: string, examples: string[]): SchemaNode => ({
  description,
  type: 'string',
  minLength: 1,
  pattern: RELATIVE_PATH_PATTERN,
  examples,
});

const taskSpecific: Record<string, SchemaNode> = {
  executor: ref('Executor', { description: 'script and command: executor of this task; overrides the flow `executor`.' }),
  files: ref('StringMap', {
    type: 'object',
    description:
      'script and command: files written into the workdir before the task starts. Key: path relative to the namespace root; value: file template (`secret()` allowed). Replaces a namespace file at the same path.',
    propertyNames: { pattern: RELATIVE_PATH_PATTERN },
    examples: [{ 'config/settings.json': '{"region": "{{ inputs.region }}"}' }],
  }),
  file: relativePath('script: file to run, relative to the namespace root; required for script tasks.', ['scripts/extract.py']),
  runtime: {
    description: 'script: interpreter. Default from the file extension: .py python, .sh bash, .ts bun, .js node.',
    enum: [...SCRIPT_RUNTIMES],
  },
  args: {
    description: 'script: argument templates passed to the script.',
    type: 'array',
    items: { type: 'string' },
    examples: [['--date', '{{ inputs.report_date }}']],
  },
  command: {
    description: 'command: argv templates, run without a shell; required for command tasks.',
    type: 'array',
    minItems: 1,
    items: { type: 'string' },
    examples: [['python', '-m', 'etl.load', '{{ inputs.table }}']],
  },
  workdir: relativePath('command: working directory relative to the namespace root. Default: the root.', ['etl']),
  output_files: {
    description:
      "Extension, script and command: glob patterns (`*`, `**`, `?`, `[...]`, `{a,b}`) relative to the task's working directory. After the task's command ends successfully, every regular file they match is uploaded (streamed, with its sha256) and kept as an output file of the task run, at most SVC_MAX_ARTIFACT_BYTES each (a larger one fails the task). A pattern that matches nothing is no error.",
    type: 'array',
    minItems: 1,
    maxItems: 100,
    uniqueItems: true,
    items: { type: 'string', minLength: 1, maxLength: 512, pattern: RELATIVE_PATH_PATTERN },
    examples: [['out/*.csv', 'report.json']],
    [EXTENSION_KEYWORD]: 'output_files',
  },
  method: {
    description: 'http: request method.',
    enum: [...HTTP_METHODS],
    default: 'GET',
  },
  url: {
    description: 'http: URL template; required for http tasks.',
    type: 'string',
    minLength: 1,
    examples: ['https://api.example.com/reports/{{ inputs.report_date }}'],
  },
  headers: stringMap('http: header templates.', {
    examples: [{ Authorization: "Bearer {{ secret('API_TOKEN') }}" }],
  }),
  body: {
    description: 'http: body template.',
    type: 'string',
    examples: ['{"date": "{{ inputs.report_date }}"}'],
  },
  expect_status: {
    description: 'http: status codes that count as success. Default: 200 to 299.',
    type: 'array',
    minItems: 1,
    uniqueItems: true,
    items: { type: 'integer', minimum: 100, maximum: 599 },
    examples: [[200, 201, 204]],
  },
  flow: {
    description: 'subflow: child flow as `<namespace>/<flow_id>`; required for subflow tasks.',
    type: 'string',
    pattern: FLOW_REF_PATTERN,
    examples: ['company.data/load-warehouse'],
  },
  inputs: stringMap('subflow: input templates of the child flow.', {
    examples: [{ table: '{{ tasks.extract.outputs.table }}' }],
  }),
  wait: {
    description: 'subflow: wait for the child execution to end (and take its outcome).',
    type: 'boolean',
    default: true,
  },
};

export const taskDef: SchemaNode = discriminated({
  family: TASK_FAMILY,
  title: 'Task',
  description: 'One step of the flow. Its `type` decides which other fields it takes.',
  common: taskCommon,
  required: ['id', 'type'],
  specific: taskSpecific,
  // The two options of a fan-out mean nothing without one.
  keywords: { dependentRequired: { for_each_concurrency: ['for_each'], fail_fast: ['for_each'] } },
  moreRules: [
    {
      // Without `runtime` the interpreter comes from the extension, so the file must have one we know.
      if: { properties: { type: { const: 'script' } }, required: ['type'], not: { required: ['runtime'] } },
      then: {
        properties: {
          file: {
            description: 'A script without `runtime` must end in .py, .sh, .ts or .js.',
            type: 'string',
            pattern: INFERABLE_SCRIPT_PATTERN,
          },
        },
      },
    },
  ],
  examples: [
    { id: 'extract', type: 'script', file: 'scripts/extract.py' },
    { id: 'load', type: 'command', command: ['psql', '-f', 'load.sql'], depends_on: ['extract'] },
    { id: 'notify', type: 'http', method: 'POST', url: 'https://hooks.example.com/done', depends_on: ['load'] },
    { id: 'publish', type: 'subflow', flow: 'company.data/publish', depends_on: ['load'] },
  ],
});

/** An approval gate (a task's `approval`, an extension). */
export const approvalDef: SchemaNode = {
  description: 'An approval gate (an extension of the flow format): who may decide, how long to wait and what then, and a form.',
  type: 'object',
  additionalProperties: false,
  properties: {
    approvers: {
      description:
        "Who may decide: a caller whose role on the flow's namespace (global role or role bindings) reaches `role`, or who is in one of `groups` (their IdP groups). The AI assistant and MCP never may.",
      type: 'object',
      additionalProperties: false,
      properties: {
        role: { description: 'Minimum role on the namespace. Default `operator`.', enum: ['viewer', 'operator', 'editor', 'admin'], default: 'operator' },
        groups: {
          description: 'IdP groups whose members may decide, whatever their role.',
          type: 'array',
          uniqueItems: true,
          items: { type: 'string', minLength: 1, maxLength: 256 },
          examples: [['release-managers']],
        },
      },
    },
    timeout: ref('Duration', { description: 'How long to wait for a decision. Default: no limit (until a decision or a cancel).' }),
    on_timeout: {
      description: 'What the timeout decides: `fail` (FAILED `approval_timed_out`), `skip` (SKIPPED `approval_timed_out`), `approve`. Default `fail`.',
      enum: ['fail', 'skip', 'approve'],
      default: 'fail',
    },
    form: {
      description: 'Fields the approver fills in; required ones must be given to approve.',
      type: 'array',
      maxItems: 20,
      items: ref('ApprovalFormField'),
      examples: [[{ id: 'ticket', type: 'string', required: true }]],
    },
    forbid_self_approval: { description: 'Refuse the person who started the execution. Default false.', type: 'boolean', default: false },
  },
};

/** One field of an approval gate's form. */
export const approvalFormFieldDef: SchemaNode = {
  description: 'A field of the form: the approver gives its value with an approve.',
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: {
    id: {
      description: 'Field id, unique in the form; downstream templates read the value as `tasks.<task id>.approval.inputs.<field id>`.',
      type: 'string',
      maxLength: MAX_ID_LENGTH,
      pattern: TASK_ID_PATTERN,
      examples: ['ticket'],
    },
    type: { description: 'The type of the value the approver gives. Default `string`.', enum: ['string', 'number', 'boolean'], default: 'string' },
    required: { description: 'Whether the approver must give a value to approve. Default false.', type: 'boolean', default: false },
    description: { description: 'What the field is for, shown beside it.', type: 'string', maxLength: 500 },
  },
};
