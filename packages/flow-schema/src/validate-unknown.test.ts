import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateFlow } from './validate.js';

interface Case {
  level: string;
  src: string[];
  field: string;
  message: string;
  line: number;
  column: number;
}

const T = '  - {id: a, type: http, url: u}';

const cases: Case[] = [
  { level: 'flow', src: ['id: demo', 'tasks:', T, 'schedule: daily'], field: 'schedule', message: 'the flow file has unknown property "schedule"', line: 4, column: 1 },
  {
    level: 'concurrency',
    src: ['id: demo', 'concurrency: {limit: 1, mode: skip}', 'tasks:', T],
    field: 'concurrency.mode',
    message: 'concurrency has unknown property "mode"',
    line: 2,
    column: 25,
  },
  {
    level: 'input',
    src: ['id: demo', 'inputs:', '  - id: a', '    type: string', '    label: A', 'tasks:', T],
    field: 'inputs[0].label',
    message: 'inputs[0] has unknown property "label"',
    line: 5,
    column: 5,
  },
  {
    level: 'schedule trigger',
    src: ['id: demo', 'triggers:', '  - {id: t, type: schedule, cron: "@daily", tz: UTC}', 'tasks:', T],
    field: 'triggers[0].tz',
    message: 'triggers[0] has unknown property "tz"',
    line: 3,
    column: 45,
  },
  {
    level: 'webhook trigger',
    src: ['id: demo', 'triggers:', '  - id: t', '    type: webhook', '    secret: x', 'tasks:', T],
    field: 'triggers[0].secret',
    message: 'triggers[0] has unknown property "secret"',
    line: 5,
    column: 5,
  },
  {
    level: 'flow trigger',
    src: ['id: demo', 'triggers:', '  - id: t', '    type: flow', '    flow: ns/up', '    states: [SUCCESS]', '    stat: x', 'tasks:', T],
    field: 'triggers[0].stat',
    message: 'triggers[0] has unknown property "stat" (did you mean "states"?)',
    line: 7,
    column: 5,
  },
  { level: 'retry', src: ['id: demo', 'retry:', '  attempts: 3', 'tasks:', T], field: 'retry.attempts', message: 'retry has unknown property "attempts"', line: 3, column: 3 },
  {
    level: 'typed executor',
    src: ['id: demo', 'executor:', '  type: docker', '  image: alpine', '  cpus: 2', 'tasks:', T],
    field: 'executor.cpus',
    message: 'executor has unknown property "cpus"',
    line: 5,
    column: 3,
  },
  {
    level: 'untyped executor',
    src: ['id: demo', 'executor:', '  pol: gpu', 'tasks:', T],
    field: 'executor.pol',
    message: 'executor has unknown property "pol" (did you mean "pool"?)',
    line: 3,
    column: 3,
  },
  {
    level: 'resources',
    src: ['id: demo', 'executor:', '  type: docker', '  image: alpine', '  resources:', '    limit: {cpu: "1"}', 'tasks:', T],
    field: 'executor.resources.limit',
    message: 'executor.resources has unknown property "limit" (did you mean "limits"?)',
    line: 6,
    column: 5,
  },
  {
    level: 'resource list',
    src: ['id: demo', 'executor:', '  type: docker', '  image: alpine', '  resources:', '    limits:', '      gpu: "1"', 'tasks:', T],
    field: 'executor.resources.limits.gpu',
    message: 'executor.resources.limits has unknown property "gpu"',
    line: 7,
    column: 7,
  },
  {
    level: 'kubernetes',
    src: ['id: demo', 'executor:', '  type: kubernetes', '  image: alpine', '  kubernetes:', '    namespace: etl', 'tasks:', T],
    field: 'executor.kubernetes.namespace',
    message: 'executor.kubernetes has unknown property "namespace"',
    line: 6,
    column: 5,
  },
  {
    level: 'toleration',
    src: ['id: demo', 'executor:', '  type: kubernetes', '  image: alpine', '  kubernetes:', '    tolerations:', '      - key: a', '        seconds: 5', 'tasks:', T],
    field: 'executor.kubernetes.tolerations[0].seconds',
    message: 'executor.kubernetes.tolerations[0] has unknown property "seconds"',
    line: 8,
    column: 9,
  },
  {
    level: 'script task',
    src: ['id: demo', 'tasks:', '  - id: a', '    type: script', '    file: a.py', '    fiel: b.py'],
    field: 'tasks[0].fiel',
    message: 'tasks[0] has unknown property "fiel" (did you mean "file"?)',
    line: 6,
    column: 5,
  },
  {
    level: 'command task',
    src: ['id: demo', 'tasks:', '  - {id: a, type: command, command: [ls], shell: true}'],
    field: 'tasks[0].shell',
    message: 'tasks[0] has unknown property "shell"',
    line: 3,
    column: 43,
  },
  {
    level: 'http task',
    src: ['id: demo', 'tasks:', '  - {id: a, type: http, url: u, timeout_ms: 5}'],
    field: 'tasks[0].timeout_ms',
    message: 'tasks[0] has unknown property "timeout_ms"',
    line: 3,
    column: 33,
  },
  {
    level: 'subflow task',
    src: ['id: demo', 'tasks:', '  - {id: a, type: subflow, flow: ns/f, namespace: ns}'],
    field: 'tasks[0].namespace',
    message: 'tasks[0] has unknown property "namespace"',
    line: 3,
    column: 40,
  },
  {
    level: 'task without a type',
    src: ['id: demo', 'tasks:', '  - {id: a, file: a.py, descripton: x}'],
    field: 'tasks[0].descripton',
    message: 'tasks[0] has unknown property "descripton"',
    line: 3,
    column: 25,
  },
];

describe('validateFlow rejects unknown properties at every level', () => {
  for (const c of cases) {
    it(c.level, () => {
      const { flow, errors } = validateFlow(`${c.src.join('\n')}\n`);
      assert.equal(flow, undefined);
      const e = errors.find((x) => x.field === c.field);
      assert.ok(e, `no error on ${c.field}: ${JSON.stringify(errors)}`);
      assert.ok(e.message.includes(c.message), `message ${JSON.stringify(e.message)} lacks ${JSON.stringify(c.message)}`);
      assert.deepEqual([e.line, e.column], [c.line, c.column]);
      // The task without a type also gets "type is required"; every other case has exactly one error.
      assert.equal(errors.length, c.level === 'task without a type' ? 2 : 1, JSON.stringify(errors));
    });
  }
});

describe('validateFlow error placement and wording', () => {
  it('reports errors in source order with JSON pointers', () => {
    const { errors } = validateFlow('id: demo\ntasks:\n  - {id: B, type: http, url: u}\n  - {id: a, type: http}\nmax_parallel: -1\n');
    assert.deepEqual(
      errors.map((e) => [e.line, e.pointer]),
      [
        [3, '/tasks/0/id'],
        [4, '/tasks/1/url'],
        [5, '/max_parallel'],
      ],
    );
  });

  it('places an error under an alias at the alias', () => {
    const src = ['id: demo', 'tasks:', '  - {id: a, type: http, url: u, retry: &r {max_attempts: 99}}', '  - {id: b, type: http, url: u, retry: *r}'].join('\n');
    const { errors } = validateFlow(src);
    assert.deepEqual(
      errors.map((e) => [e.field, e.line]),
      [
        ['tasks[0].retry.max_attempts', 3],
        ['tasks[1].retry.max_attempts', 4],
      ],
    );
  });

  it('merges several problems of one field into one message', () => {
    const { errors } = validateFlow(`id: ${'A'.repeat(70)}\ntasks:\n${T}\n`);
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? '', /^id must contain only .*, and must be at most 63 characters long, got 70$|^id must be at most 63 .*, and must contain only/);
  });

  it('quotes keys that are not identifiers in the field path', () => {
    const { errors } = validateFlow(`id: demo\nlabels:\n  app.kubernetes.io/name: 1\n  "7": x\ntasks:\n${T}\n`);
    assert.deepEqual(
      errors.map((e) => [e.field, e.pointer, e.line]),
      [['labels["app.kubernetes.io/name"]', '/labels/app.kubernetes.io~1name', 3]],
    );
  });

  it('says what a non-mapping file is', () => {
    assert.equal(validateFlow('- a\n- b\n').errors[0]?.message, 'the flow file must be a mapping, got a list');
  });

  it('columns are 1-based and ignore a byte order mark', () => {
    const { errors } = validateFlow('\ufeffid: Demo\ntasks:\n' + T + '\n');
    assert.deepEqual([errors[0]?.line, errors[0]?.column], [1, 5]);
  });

  it('handles CRLF line endings', () => {
    const { errors } = validateFlow('id: demo\r\ntasks:\r\n  - {id: a, type: http}\r\n');
    assert.deepEqual([errors[0]?.field, errors[0]?.line, errors[0]?.column], ['tasks[0].url', 3, 5]);
  });
});
