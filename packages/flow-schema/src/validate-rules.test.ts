import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateFlow } from './validate.js';

/**
 * One failing case per schema rule. Each case names the field that must be
 * reported, a substring of its message and the 1-based line of the failing
 * node; `count` is the number of errors the whole file must give (1 unless
 * stated), which checks that ajv's if/then noise is collapsed.
 */
interface Case {
  name: string;
  src: string[];
  field: string;
  message: string;
  line: number;
  count?: number;
}

const T = '  - {id: a, type: http, url: u}';
/** A flow with `fields` at the top level, starting on line 2. */
const top = (...fields: string[]): string[] => ['id: demo', ...fields, 'tasks:', T];
/** A flow whose task lines start on line 3. */
const tasks = (...taskLines: string[]): string[] => ['id: demo', 'tasks:', ...taskLines];
/** A flow with one script task whose extra lines start on line 6. */
const script = (...extra: string[]): string[] => tasks('  - id: a', '    type: script', '    file: a.py', ...extra);

const x = (n: number): string => 'x'.repeat(n);

const cases: Case[] = [
  // Flow
  { name: 'flow id with upper case', src: ['id: Demo', 'tasks:', T], field: 'id', message: 'id must contain only lower-case letters, digits and hyphens', line: 1 },
  { name: 'flow id starting with a hyphen', src: ['id: -demo', 'tasks:', T], field: 'id', message: 'start with a letter or digit, got "-demo"', line: 1 },
  { name: 'flow id of 64 chars', src: [`id: ${x(64)}`, 'tasks:', T], field: 'id', message: 'id must be at most 63 characters long, got 64', line: 1 },
  { name: 'flow id missing', src: ['tasks:', T], field: 'id', message: 'id is required', line: 1 },
  { name: 'description over 2000 chars', src: top(`description: ${x(2001)}`), field: 'description', message: 'at most 2000 characters long, got 2001', line: 2 },
  { name: '21 labels', src: top(`labels: {${Array.from({ length: 21 }, (_, i) => `l${i}: v`).join(', ')}}`), field: 'labels', message: 'labels must have at most 20 entries, got 21', line: 2 },
  { name: 'label value not a string', src: top('labels:', '  tier: 1'), field: 'labels.tier', message: 'labels.tier must be a string, got 1 (put it in quotes', line: 3 },
  { name: 'variables not a map', src: top('variables: [a]'), field: 'variables', message: 'variables must be a mapping, got a list', line: 2 },
  { name: 'env value not a string', src: top('env: {A: true}'), field: 'env.A', message: 'env.A must be a string, got true', line: 2 },
  { name: 'outputs value not a string', src: top('outputs:', '  a: {b: c}'), field: 'outputs.a', message: 'outputs.a must be a string, got a mapping', line: 3 },
  { name: 'tasks missing', src: ['id: demo'], field: 'tasks', message: 'tasks is required', line: 1 },
  { name: 'no tasks', src: ['id: demo', 'tasks: []'], field: 'tasks', message: 'tasks must have between 1 and 200 items, got 0', line: 2 },
  { name: '201 tasks', src: tasks(...Array.from({ length: 201 }, (_, i) => `  - {id: t${i}, type: http, url: u}`)), field: 'tasks', message: 'tasks must have between 1 and 200 items, got 201', line: 2 },
  { name: 'max_parallel below 0', src: top('max_parallel: -1'), field: 'max_parallel', message: 'max_parallel must be at least 0, got -1', line: 2 },
  { name: 'max_parallel not an integer', src: top('max_parallel: 1.5'), field: 'max_parallel', message: 'max_parallel must be an integer, got 1.5', line: 2 },
  { name: 'timeout not a duration', src: top('timeout: 10 minutes'), field: 'timeout', message: 'timeout must be a duration such as 30s', line: 2 },
  { name: 'timeout as a bare number', src: top('timeout: 30'), field: 'timeout', message: 'timeout must be a string, got 30', line: 2 },
  { name: 'timeout with an unknown unit', src: top('timeout: 3d'), field: 'timeout', message: 'got "3d"', line: 2 },
  { name: 'concurrency without limit', src: top('concurrency:', '  behavior: skip'), field: 'concurrency.limit', message: 'concurrency.limit is required', line: 2 },
  { name: 'concurrency limit 0', src: top('concurrency: {limit: 0}'), field: 'concurrency.limit', message: 'concurrency.limit must be at least 1, got 0', line: 2 },
  { name: 'concurrency behavior', src: top('concurrency: {limit: 1, behavior: drop}'), field: 'concurrency.behavior', message: 'must be one of queue, skip, got "drop"', line: 2 },
  { name: 'flow retry max_attempts 0', src: top('retry: {max_attempts: 0}'), field: 'retry.max_attempts', message: 'retry.max_attempts must be between 1 and 20, got 0', line: 2 },

  // Input
  { name: 'input id with upper case', src: top('inputs:', '  - {id: Day, type: string}'), field: 'inputs[0].id', message: 'inputs[0].id must start with a lower-case letter and contain only lower-case letters, digits and underscores', line: 3 },
  { name: 'input id with a hyphen', src: top('inputs:', '  - {id: report-day, type: string}'), field: 'inputs[0].id', message: 'got "report-day"', line: 3 },
  { name: 'input id starting with a digit', src: top('inputs:', '  - {id: 1day, type: string}'), field: 'inputs[0].id', message: 'must start with a lower-case letter', line: 3 },
  { name: 'input id of 64 chars', src: top('inputs:', `  - {id: ${x(64)}, type: string}`), field: 'inputs[0].id', message: 'at most 63 characters long, got 64', line: 3 },
  { name: 'input type unknown', src: top('inputs:', '  - {id: a, type: text}'), field: 'inputs[0].type', message: 'must be one of string, int, number, boolean, select, json, got "text"', line: 3 },
  { name: 'input type missing', src: top('inputs:', '  - {id: a}'), field: 'inputs[0].type', message: 'inputs[0].type is required', line: 3 },
  { name: 'input id missing', src: top('inputs:', '  - {type: string}'), field: 'inputs[0].id', message: 'inputs[0].id is required', line: 3 },
  { name: 'int input with a string default', src: top('inputs:', '  - id: a', '    type: int', '    default: "3"'), field: 'inputs[0].default', message: 'inputs[0].default must be an integer, got "3"', line: 5 },
  { name: 'boolean input with a string default', src: top('inputs:', '  - {id: a, type: boolean, default: "yes"}'), field: 'inputs[0].default', message: 'must be true or false, got "yes"', line: 3 },
  { name: 'string input with a number default', src: top('inputs:', '  - {id: a, type: string, default: 5}'), field: 'inputs[0].default', message: 'must be a string, got 5', line: 3 },
  { name: 'select input without values', src: top('inputs:', '  - {id: a, type: select}'), field: 'inputs[0].values', message: 'inputs[0].values is required for a select input', line: 3 },
  { name: 'values on a string input', src: top('inputs:', '  - id: a', '    type: string', '    values: [x]'), field: 'inputs[0].values', message: 'inputs[0].values is not allowed for a string input (only select inputs take it)', line: 5 },
  { name: 'input required not a boolean', src: top('inputs:', '  - {id: a, type: string, required: "yes"}'), field: 'inputs[0].required', message: 'must be true or false, got "yes"', line: 3 },
  { name: 'inputs not a list', src: top('inputs: {a: 1}'), field: 'inputs', message: 'inputs must be a list, got a mapping', line: 2 },

  // Trigger
  { name: 'trigger id with upper case', src: top('triggers:', '  - {id: Nightly, type: webhook}'), field: 'triggers[0].id', message: 'must start with a lower-case letter and contain only lower-case letters, digits, underscores and hyphens', line: 3 },
  { name: 'trigger id of 64 chars', src: top('triggers:', `  - {id: ${x(64)}, type: webhook}`), field: 'triggers[0].id', message: 'at most 63 characters long', line: 3 },
  { name: 'trigger type unknown (type-specific fields not blamed)', src: top('triggers:', '  - {id: t, type: cron, cron: "@daily"}'), field: 'triggers[0].type', message: 'must be one of schedule, webhook, flow, got "cron"', line: 3 },
  { name: 'schedule without cron', src: top('triggers:', '  - id: t', '    type: schedule'), field: 'triggers[0].cron', message: 'triggers[0].cron is required for a schedule trigger', line: 3 },
  { name: 'cron of four fields', src: top('triggers:', '  - {id: t, type: schedule, cron: "* * * *"}'), field: 'triggers[0].cron', message: 'must be a cron expression of five fields', line: 3 },
  { name: 'cron of six fields', src: top('triggers:', '  - {id: t, type: schedule, cron: "0 * * * * *"}'), field: 'triggers[0].cron', message: 'got "0 * * * * *"', line: 3 },
  { name: 'cron macro not in the list', src: top('triggers:', '  - {id: t, type: schedule, cron: "@yearly"}'), field: 'triggers[0].cron', message: 'or one of @hourly, @daily, @weekly, @monthly', line: 3 },
  { name: 'cron with a bad character', src: top('triggers:', '  - {id: t, type: schedule, cron: "0 3 * * 1;2"}'), field: 'triggers[0].cron', message: 'cron expression', line: 3 },
  { name: 'timezone not shaped like a zone', src: top('triggers:', '  - {id: t, type: schedule, cron: "@daily", timezone: "Europe/Par is"}'), field: 'triggers[0].timezone', message: 'must be an IANA time zone name', line: 3 },
  { name: 'catch_up unknown', src: top('triggers:', '  - {id: t, type: schedule, cron: "@daily", catch_up: all}'), field: 'triggers[0].catch_up', message: 'must be one of none, last, got "all"', line: 3 },
  { name: 'flow trigger without flow and states', src: top('triggers:', '  - {id: t, type: flow}'), field: 'triggers[0].flow', message: 'triggers[0].flow is required for a flow trigger', line: 3, count: 2 },
  { name: 'flow trigger without states', src: top('triggers:', '  - {id: t, type: flow, flow: ns/up}'), field: 'triggers[0].states', message: 'triggers[0].states is required for a flow trigger', line: 3 },
  { name: 'flow trigger with a bare flow id', src: top('triggers:', '  - {id: t, type: flow, flow: ingest, states: [SUCCESS]}'), field: 'triggers[0].flow', message: 'must be a flow reference of the form <namespace>/<flow_id>', line: 3 },
  { name: 'flow trigger state unknown', src: top('triggers:', '  - id: t', '    type: flow', '    flow: ns/up', '    states:', '      - SUCCEEDED'), field: 'triggers[0].states[0]', message: 'must be one of SUCCESS, FAILED, TIMED_OUT, CANCELLED, got "SUCCEEDED"', line: 7 },
  { name: 'flow trigger with no states', src: top('triggers:', '  - {id: t, type: flow, flow: ns/up, states: []}'), field: 'triggers[0].states', message: 'must have at least 1 item, got 0', line: 3 },
  { name: 'flow trigger state repeated', src: top('triggers:', '  - {id: t, type: flow, flow: ns/up, states: [FAILED, FAILED]}'), field: 'triggers[0].states', message: 'must not repeat a value: items 0 and 1 are both "FAILED"', line: 3 },
  { name: 'cron on a webhook trigger', src: top('triggers:', '  - id: t', '    type: webhook', '    cron: "@daily"'), field: 'triggers[0].cron', message: 'triggers[0].cron is not allowed for a webhook trigger (only schedule triggers take it)', line: 5 },
  { name: 'states on a schedule trigger', src: top('triggers:', '  - {id: t, type: schedule, cron: "@daily", states: [SUCCESS]}'), field: 'triggers[0].states', message: 'is not allowed for a schedule trigger (only flow triggers take it)', line: 3 },
  { name: 'timezone on a flow trigger', src: top('triggers:', '  - {id: t, type: flow, flow: ns/up, states: [SUCCESS], timezone: UTC}'), field: 'triggers[0].timezone', message: 'is not allowed for a flow trigger (only schedule triggers take it)', line: 3 },
  { name: 'trigger input not a string', src: top('triggers:', '  - id: t', '    type: webhook', '    inputs:', '      n: 5'), field: 'triggers[0].inputs.n', message: 'must be a string, got 5', line: 6 },
  { name: 'trigger type missing', src: top('triggers:', '  - {id: t, cron: "@daily"}'), field: 'triggers[0].type', message: 'triggers[0].type is required', line: 3 },

  // Retry
  {
    name: 'task retry max_attempts 25',
    src: tasks(T, '  - {id: b, type: http, url: u}', '  - {id: c, type: http, url: u}', '  - id: d', '    type: http', '    url: u', '    retry:', '      max_attempts: 25'),
    field: 'tasks[3].retry.max_attempts',
    message: 'tasks[3].retry.max_attempts must be between 1 and 20, got 25',
    line: 10,
  },
  { name: 'retry max_attempts not an integer', src: script('    retry: {max_attempts: "3"}'), field: 'tasks[0].retry.max_attempts', message: 'must be an integer, got "3"', line: 6 },
  { name: 'retry backoff unknown', src: script('    retry: {backoff: linear}'), field: 'tasks[0].retry.backoff', message: 'must be one of fixed, exponential, got "linear"', line: 6 },
  { name: 'retry initial not a duration', src: script('    retry: {initial: 10 s}'), field: 'tasks[0].retry.initial', message: 'must be a duration', line: 6 },
  { name: 'retry max not a duration', src: script('    retry: {max: 5min}'), field: 'tasks[0].retry.max', message: 'got "5min"', line: 6 },

  // Executor
  { name: 'executor type unknown', src: script('    executor: {type: lambda}'), field: 'tasks[0].executor.type', message: 'must be one of process, docker, kubernetes, got "lambda"', line: 6 },
  { name: 'executor pool with upper case', src: script('    executor: {pool: GPU}'), field: 'tasks[0].executor.pool', message: 'must contain only lower-case letters, digits and hyphens, got "GPU"', line: 6 },
  { name: 'executor pool of 64 chars', src: script(`    executor: {pool: ${x(64)}}`), field: 'tasks[0].executor.pool', message: 'at most 63 characters long, got 64', line: 6 },
  { name: 'docker executor without image', src: script('    executor:', '      type: docker'), field: 'tasks[0].executor.image', message: 'tasks[0].executor.image is required for a docker executor', line: 6 },
  { name: 'kubernetes executor without image', src: script('    executor: {type: kubernetes}'), field: 'tasks[0].executor.image', message: 'is required for a kubernetes executor', line: 6 },
  { name: 'flow executor without image', src: top('executor: {type: docker}'), field: 'executor.image', message: 'executor.image is required for a docker executor', line: 2 },
  { name: 'pull unknown', src: script('    executor: {type: docker, image: alpine, pull: sometimes}'), field: 'tasks[0].executor.pull', message: 'must be one of always, if_not_present, never, got "sometimes"', line: 6 },
  { name: 'inject_runner not a boolean', src: script('    executor: {type: docker, image: alpine, inject_runner: "no"}'), field: 'tasks[0].executor.inject_runner', message: 'must be true or false, got "no"', line: 6 },
  { name: 'image on a process executor', src: script('    executor:', '      type: process', '      image: alpine'), field: 'tasks[0].executor.image', message: 'tasks[0].executor.image is not allowed for a process executor (only docker and kubernetes executors take it)', line: 8 },
  { name: 'pull on a kubernetes executor', src: script('    executor: {type: kubernetes, image: alpine, pull: always}'), field: 'tasks[0].executor.pull', message: 'is not allowed for a kubernetes executor (only docker executors take it)', line: 6 },
  { name: 'network on a kubernetes executor', src: script('    executor: {type: kubernetes, image: alpine, network: host}'), field: 'tasks[0].executor.network', message: 'only docker executors take it', line: 6 },
  { name: 'kubernetes settings on a docker executor', src: script('    executor: {type: docker, image: alpine, kubernetes: {}}'), field: 'tasks[0].executor.kubernetes', message: 'is not allowed for a docker executor (only kubernetes executors take it)', line: 6 },

  // Resources, Kubernetes, Toleration
  { name: 'cpu not a quantity', src: script('    executor:', '      type: docker', '      image: alpine', '      resources:', '        limits: {cpu: "1.5."}'), field: 'tasks[0].executor.resources.limits.cpu', message: 'must be a CPU quantity such as 2, 0.5 or 500m, got "1.5."', line: 10 },
  { name: 'cpu as a number', src: script('    executor: {type: docker, image: alpine, resources: {requests: {cpu: 2}}}'), field: 'tasks[0].executor.resources.requests.cpu', message: 'must be a string, got 2 (put it in quotes', line: 6 },
  { name: 'memory with a bad suffix', src: script('    executor: {type: docker, image: alpine, resources: {limits: {memory: 1GB}}}'), field: 'tasks[0].executor.resources.limits.memory', message: 'must be a memory quantity', line: 6 },
  { name: 'node_selector value not a string', src: top('executor:', '  type: kubernetes', '  image: alpine', '  kubernetes:', '    node_selector: {gpu: true}'), field: 'executor.kubernetes.node_selector.gpu', message: 'must be a string, got true', line: 6 },
  { name: 'toleration operator unknown', src: top('executor:', '  type: kubernetes', '  image: alpine', '  kubernetes:', '    tolerations:', '      - key: a', '        operator: In'), field: 'executor.kubernetes.tolerations[0].operator', message: 'must be one of Exists, Equal, got "In"', line: 8 },
  { name: 'toleration effect unknown', src: top('executor: {type: kubernetes, image: a, kubernetes: {tolerations: [{effect: NoRun}]}}'), field: 'executor.kubernetes.tolerations[0].effect', message: 'must be one of NoSchedule, PreferNoSchedule, NoExecute, got "NoRun"', line: 2 },
  { name: 'toleration_seconds not an integer', src: top('executor: {type: kubernetes, image: a, kubernetes: {tolerations: [{toleration_seconds: "60"}]}}'), field: 'executor.kubernetes.tolerations[0].toleration_seconds', message: 'must be an integer, got "60"', line: 2 },
  { name: 'image_pull_secrets item not a string', src: top('executor: {type: kubernetes, image: a, kubernetes: {image_pull_secrets: [1]}}'), field: 'executor.kubernetes.image_pull_secrets[0]', message: 'must be a string, got 1', line: 2 },
  { name: 'tolerations not a list', src: top('executor: {type: kubernetes, image: a, kubernetes: {tolerations: {key: a}}}'), field: 'executor.kubernetes.tolerations', message: 'must be a list, got a mapping', line: 2 },

  // Task
  { name: 'task id with upper case', src: tasks('  - {id: Extract, type: http, url: u}'), field: 'tasks[0].id', message: 'tasks[0].id must start with a lower-case letter and contain only lower-case letters, digits and underscores, got "Extract"', line: 3 },
  { name: 'task id with a hyphen', src: tasks('  - {id: load-db, type: http, url: u}'), field: 'tasks[0].id', message: 'got "load-db"', line: 3 },
  { name: 'task id of 64 chars', src: tasks(`  - {id: ${x(64)}, type: http, url: u}`), field: 'tasks[0].id', message: 'at most 63 characters long, got 64', line: 3 },
  { name: 'task id missing', src: tasks('  - {type: http, url: u}'), field: 'tasks[0].id', message: 'tasks[0].id is required', line: 3 },
  { name: 'task type unknown (type-specific fields not blamed)', src: tasks('  - id: a', '    type: python', '    file: a.py', '    runtime: python'), field: 'tasks[0].type', message: 'must be one of script, command, http, subflow, got "python"', line: 4 },
  { name: 'task type misspelt', src: tasks('  - {id: a, type: scirpt, file: a.py}'), field: 'tasks[0].type', message: '(did you mean "script"?)', line: 3 },
  { name: 'task type missing', src: tasks('  - id: a', '    file: a.py'), field: 'tasks[0].type', message: 'tasks[0].type is required', line: 3 },
  { name: 'executor on an http task', src: tasks('  - id: a', '    type: http', '    url: u', '    executor: {type: process}'), field: 'tasks[0].executor', message: 'tasks[0].executor is not allowed for an http task (only script and command tasks take it)', line: 6 },
  { name: 'executor on a subflow task', src: tasks('  - {id: a, type: subflow, flow: ns/f, executor: {pool: x}}'), field: 'tasks[0].executor', message: 'is not allowed for a subflow task', line: 3 },
  { name: 'script without file', src: tasks(T, '  - id: b', '    type: script'), field: 'tasks[1].file', message: 'tasks[1].file is required for a script task', line: 4 },
  { name: 'command without command', src: tasks('  - {id: a, type: command}'), field: 'tasks[0].command', message: 'tasks[0].command is required for a command task', line: 3 },
  { name: 'http without url', src: tasks('  - {id: a, type: http}'), field: 'tasks[0].url', message: 'tasks[0].url is required for an http task', line: 3 },
  { name: 'subflow without flow', src: tasks('  - {id: a, type: subflow}'), field: 'tasks[0].flow', message: 'tasks[0].flow is required for a subflow task', line: 3 },
  { name: 'runtime unknown', src: script('    runtime: ruby'), field: 'tasks[0].runtime', message: 'must be one of python, bash, bun, node, got "ruby"', line: 6 },
  { name: 'method in lower case', src: tasks('  - {id: a, type: http, url: u, method: get}'), field: 'tasks[0].method', message: 'must be one of GET, POST, PUT, PATCH, DELETE, HEAD, got "get" (did you mean "GET"?)', line: 3 },
  { name: 'run_if unknown', src: script('    run_if: on_success'), field: 'tasks[0].run_if', message: 'must be one of success, failure, always, got "on_success"', line: 6 },
  { name: 'depends_on with a bad id', src: script('    depends_on: [Extract]'), field: 'tasks[0].depends_on[0]', message: 'must start with a lower-case letter', line: 6 },
  { name: 'depends_on repeated', src: script('    depends_on:', '      - b', '      - b'), field: 'tasks[0].depends_on', message: 'must not repeat a value: items 0 and 1 are both "b"', line: 8 },
  { name: 'depends_on not a list', src: script('    depends_on: b'), field: 'tasks[0].depends_on', message: 'must be a list, got "b"', line: 6 },
  { name: 'task timeout not a duration', src: script('    timeout: forever'), field: 'tasks[0].timeout', message: 'must be a duration', line: 6 },
  { name: 'task env value not a string', src: script('    env: {N: 1}'), field: 'tasks[0].env.N', message: 'must be a string, got 1', line: 6 },
  { name: 'expect_status above 599', src: tasks('  - {id: a, type: http, url: u, expect_status: [200, 600]}'), field: 'tasks[0].expect_status[1]', message: 'tasks[0].expect_status[1] must be between 100 and 599, got 600', line: 3 },
  { name: 'expect_status below 100', src: tasks('  - id: a', '    type: http', '    url: u', '    expect_status:', '      - 99'), field: 'tasks[0].expect_status[0]', message: 'must be between 100 and 599, got 99', line: 7 },
  { name: 'expect_status not an integer', src: tasks('  - {id: a, type: http, url: u, expect_status: ["200"]}'), field: 'tasks[0].expect_status[0]', message: 'must be an integer, got "200"', line: 3 },
  { name: 'expect_status empty', src: tasks('  - {id: a, type: http, url: u, expect_status: []}'), field: 'tasks[0].expect_status', message: 'must have at least 1 item, got 0', line: 3 },
  { name: 'url empty', src: tasks('  - {id: a, type: http, url: ""}'), field: 'tasks[0].url', message: 'tasks[0].url must not be empty', line: 3 },
  { name: 'absolute script path', src: tasks('  - {id: a, type: script, file: /etc/job.sh}'), field: 'tasks[0].file', message: 'must be a path relative to the namespace root', line: 3 },
  { name: 'script path escaping the root', src: tasks('  - {id: a, type: script, file: ../job.py}'), field: 'tasks[0].file', message: 'no ".."', line: 3 },
  { name: 'script extension without runtime', src: tasks('  - {id: a, type: script, file: job.rb}'), field: 'tasks[0].file', message: 'must end in .py, .sh, .ts or .js, or the task must set runtime, got "job.rb"', line: 3 },
  { name: 'command empty', src: tasks('  - {id: a, type: command, command: []}'), field: 'tasks[0].command', message: 'must have at least 1 item, got 0', line: 3 },
  { name: 'command as a string', src: tasks('  - {id: a, type: command, command: ls -la}'), field: 'tasks[0].command', message: 'must be a list, got "ls -la"', line: 3 },
  { name: 'workdir escaping the root', src: tasks('  - {id: a, type: command, command: [ls], workdir: a/../../b}'), field: 'tasks[0].workdir', message: 'must be a path relative to the namespace root', line: 3 },
  { name: 'wait not a boolean', src: tasks('  - {id: a, type: subflow, flow: ns/f, wait: "yes"}'), field: 'tasks[0].wait', message: 'must be true or false, got "yes"', line: 3 },
  { name: 'subflow flow not a reference', src: tasks('  - {id: a, type: subflow, flow: "ns/Child"}'), field: 'tasks[0].flow', message: 'must be a flow reference', line: 3 },
  { name: 'files with an absolute key', src: script('    files:', '      /etc/passwd: x'), field: 'tasks[0].files["/etc/passwd"]', message: 'tasks[0].files has an invalid key "/etc/passwd": a key must be a path relative to the namespace root', line: 7 },
  { name: 'files value not a string', src: script('    files: {a.txt: 1}'), field: 'tasks[0].files["a.txt"]', message: 'must be a string, got 1', line: 6 },
];

/** Fields that only some task types take, each put on a type that does not take it. */
const misplaced: Array<[field: string, yamlValue: string, onType: string, takers: string]> = [
  ['url', 'u', 'script', 'only http tasks take it'],
  ['file', 'a.py', 'command', 'only script tasks take it'],
  ['command', '[ls]', 'http', 'only command tasks take it'],
  ['method', 'GET', 'subflow', 'only http tasks take it'],
  ['wait', 'true', 'script', 'only subflow tasks take it'],
  ['files', '{a: b}', 'http', 'only script and command tasks take it'],
  ['runtime', 'node', 'command', 'only script tasks take it'],
  ['args', '[x]', 'command', 'only script tasks take it'],
  ['workdir', 'a', 'script', 'only command tasks take it'],
  ['headers', '{a: b}', 'script', 'only http tasks take it'],
  ['body', 'x', 'command', 'only http tasks take it'],
  ['expect_status', '[200]', 'script', 'only http tasks take it'],
  ['inputs', '{a: b}', 'http', 'only subflow tasks take it'],
  ['flow', 'ns/f', 'script', 'only subflow tasks take it'],
];
const required: Record<string, string> = {
  script: '    file: a.py',
  command: '    command: [ls]',
  http: '    url: u',
  subflow: '    flow: ns/f',
};
for (const [field, yamlValue, onType, takers] of misplaced) {
  cases.push({
    name: `${field} on a ${onType} task`,
    src: tasks('  - id: a', `    type: ${onType}`, required[onType] as string, `    ${field}: ${yamlValue}`),
    field: `tasks[0].${field}`,
    message: `tasks[0].${field} is not allowed for ${onType === 'http' ? 'an' : 'a'} ${onType} task (${takers})`,
    line: 6,
  });
}

describe('validateFlow reports one error per broken rule', () => {
  for (const c of cases) {
    it(c.name, () => {
      const { flow, errors } = validateFlow(`${c.src.join('\n')}\n`);
      assert.equal(flow, undefined);
      const mine = errors.filter((e) => e.field === c.field);
      assert.equal(mine.length, 1, `expected one error on ${c.field}, got ${JSON.stringify(errors, null, 1)}`);
      const [e] = mine;
      assert.ok(e?.message.includes(c.message), `message ${JSON.stringify(e?.message)} lacks ${JSON.stringify(c.message)}`);
      assert.equal(e?.line, c.line, `line of ${JSON.stringify(e)}`);
      assert.equal(typeof e?.column, 'number');
      assert.equal(errors.length, c.count ?? 1, `expected ${c.count ?? 1} errors, got ${JSON.stringify(errors, null, 1)}`);
    });
  }
});
