import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FlowDefinition } from './flow-definition.js';
import { FlowInvalidError } from './flow-error.js';
import { assertValidFlow, createFlowValidator, validateFlow, validateFlowValue } from './validate.js';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

function assertValid(src: string): FlowDefinition {
  const { flow, errors } = validateFlow(src);
  assert.deepEqual(errors, []);
  assert.ok(flow);
  return flow;
}

describe('validateFlow accepts valid flows', () => {
  it('a script task (runtime from the extension, and an explicit one)', () => {
    const flow = assertValid(
      lines(
        'id: nightly-report',
        'inputs: [{id: day, type: string}]',
        'tasks:',
        '  - id: extract',
        '    type: script',
        '    file: scripts/extract.py',
        '    args: ["--date", "{{ inputs.day }}"]',
        '    files: {"config/app.json": "{}"}',
        '    executor: {type: docker, image: "python:3.12", pull: never, inject_runner: false, network: host}',
        '  - id: ruby',
        '    type: script',
        '    file: scripts/job.rb',
        '    runtime: bash',
      ),
    );
    assert.equal(flow.tasks[0]?.type, 'script');
  });

  it('a command task', () => {
    assertValid(
      lines(
        'id: c',
        'tasks:',
        '  - id: load',
        '    type: command',
        '    command: [psql, -f, load.sql]',
        '    workdir: etl',
        '    files: {"etl/load.sql": "select 1"}',
        '    executor: {type: process, pool: etl-pool}',
      ),
    );
  });

  it('an http task', () => {
    assertValid(
      lines(
        'id: h',
        'inputs: [{id: day, type: string}]',
        'tasks:',
        '  - id: notify',
        '    type: http',
        '    method: POST',
        '    url: "https://hooks.example.com/{{ inputs.day }}"',
        '    headers: {Authorization: "Bearer {{ secret(\'TOKEN\') }}"}',
        '    body: "{}"',
        '    expect_status: [200, 201, 204]',
      ),
    );
  });

  it('a subflow task', () => {
    assertValid(lines('id: s', 'tasks:', '  - id: child', '    type: subflow', '    flow: company.data/load-warehouse', '    inputs: {table: users}', '    wait: false'));
  });

  it('each trigger type', () => {
    assertValid(
      lines(
        'id: t',
        'inputs: [{id: ref, type: string, required: false}, {id: rows, type: int, default: 0}]',
        'triggers:',
        '  - id: nightly',
        '    type: schedule',
        '    cron: "0 3 * * MON-FRI"',
        '    timezone: America/Argentina/Buenos_Aires',
        '    catch_up: none',
        '  - id: hourly',
        '    type: schedule',
        '    cron: "@hourly"',
        '  - id: github-push',
        '    type: webhook',
        '    inputs: {ref: "{{ trigger.body.ref }}"}',
        '  - id: after_ingest',
        '    type: flow',
        '    flow: data/ingest',
        '    states: [SUCCESS, FAILED, TIMED_OUT, CANCELLED]',
        '    inputs: {rows: "{{ trigger.outputs.rows }}"}',
        'tasks:',
        '  - {id: a, type: http, url: "http://127.0.0.1/"}',
      ),
    );
  });

  it('a flow using every top-level field', () => {
    const flow = assertValid(
      lines(
        'id: full',
        'description: Everything at once.',
        'labels: {team: data, "app.kubernetes.io/name": full}',
        'inputs:',
        '  - {id: day, type: string, required: true, description: Day to process}',
        '  - {id: count, type: int, default: 3}',
        '  - {id: ratio, type: number, default: 0.5}',
        '  - {id: dry_run, type: boolean, default: false}',
        '  - {id: region, type: select, values: [eu, us], default: eu}',
        '  - {id: extra, type: json, default: {a: [1, 2]}}',
        'variables: {bucket: reports}',
        'env: {LOG_LEVEL: info}',
        'concurrency: {limit: 1, behavior: skip}',
        'max_parallel: 4',
        'timeout: 1h30m',
        'retry: {max_attempts: 3, backoff: exponential, initial: 500ms, max: 1.5m}',
        'executor:',
        '  type: kubernetes',
        '  image: python:3.12',
        '  resources: {requests: {cpu: 250m, memory: 256Mi}, limits: {cpu: "1.5", memory: 1Gi}}',
        '  kubernetes:',
        '    service_account: etl',
        '    node_selector: {"kubernetes.io/arch": amd64}',
        '    tolerations: [{key: dedicated, operator: Equal, value: etl, effect: NoSchedule, toleration_seconds: 60}]',
        '    image_pull_secrets: [regcred]',
        '    labels: {team: data}',
        '    annotations: {note: hi}',
        'tasks:',
        '  - id: a',
        '    type: script',
        '    file: a.sh',
        '    depends_on: []',
        '    run_if: always',
        '    timeout: 24h',
        '    retry: {max_attempts: 20}',
        '    env: {X: "1"}',
        '    executor: {pool: gpu}',
        'outputs: {url: "{{ tasks.a.outputs.url }}"}',
      ),
    );
    assert.equal(flow.inputs?.length, 6);
  });

  it('200 tasks (the upper bound)', () => {
    const tasks = Array.from({ length: 200 }, (_, i) => `  - {id: t${i}, type: http, url: "http://x/"}`);
    assertValid(lines('id: many', 'tasks:', ...tasks));
  });

  it('a 63-character id and 20 labels (the upper bounds)', () => {
    const labels = Array.from({ length: 20 }, (_, i) => `l${i}: v`).join(', ');
    assertValid(lines(`id: ${'a'.repeat(63)}`, `labels: {${labels}}`, 'tasks:', `  - {id: ${'t'.repeat(63)}, type: http, url: u}`));
  });

  it('an executor without type takes any executor field', () => {
    assertValid(lines('id: x', 'executor: {image: alpine, pull: always, kubernetes: {service_account: a}}', 'tasks:', '  - {id: a, type: script, file: a.py}'));
  });

  it('durations of every unit', () => {
    for (const d of ['10ns', '10us', '10µs', '10μs', '10ms', '1.5s', '2m', '3h', '1h2m3s4ms']) {
      assertValid(lines('id: x', `timeout: ${d}`, 'tasks:', '  - {id: a, type: script, file: a.py}'));
    }
  });

  it('a typed FlowDefinition literal passes the schema (types and schema agree)', () => {
    const flow: FlowDefinition = {
      id: 'typed',
      inputs: [{ id: 'region', type: 'select', values: ['eu'], default: 'eu' }],
      triggers: [{ id: 'up', type: 'flow', flow: 'ns/up', states: ['SUCCESS'] }],
      executor: { type: 'docker', image: 'alpine' },
      tasks: [
        { id: 'a', type: 'script', file: 'a.py', executor: { type: 'kubernetes', image: 'x', kubernetes: { tolerations: [{ operator: 'Exists' }] } } },
        { id: 'b', type: 'command', command: ['true'], depends_on: ['a'] },
        { id: 'c', type: 'http', url: 'http://x', method: 'HEAD', expect_status: [204] },
        { id: 'd', type: 'subflow', flow: 'ns/child', wait: true },
      ],
    };
    assert.deepEqual(validateFlowValue(flow).errors, []);
  });

  it('assertValidFlow returns the flow or throws FlowInvalidError with every error', () => {
    assert.equal(assertValidFlow(lines('id: x', 'tasks:', '  - {id: a, type: http, url: u}')).id, 'x');
    assert.throws(
      () => assertValidFlow(lines('id: X', 'tasks: []'), 'ns/x.flow.yaml'),
      (err: unknown) => err instanceof FlowInvalidError && err.errors.length === 2 && /^ns\/x\.flow\.yaml:1:5: /.test(err.message),
    );
  });

  it('separate validators give the same answers', () => {
    const a = createFlowValidator();
    const b = createFlowValidator();
    const src = lines('id: x', 'tasks:', '  - {id: a, type: http}');
    assert.deepEqual(a.validate(src), b.validate(src));
    assert.equal(a.validate(src).errors.length, 1);
  });
});
