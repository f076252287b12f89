import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseTemplate,
  renderTemplate,
  renderTemplateList,
  renderTemplateMap,
  renderTemplateValue,
  SecretNotFoundError,
  TemplateError,
  TemplateSyntaxError,
  type SecretLookup,
  type TemplateScope,
} from './index.js';

const scope: TemplateScope = {
  inputs: {
    name: 'Ada',
    count: 3,
    ratio: 0.5,
    big: 1e21,
    enabled: true,
    off: false,
    nothing: null,
    tags: ['a', 'b'],
    user: { id: 7, email: 'ada@example.com', address: { city: 'Paris' } },
    empty: {},
    list: [],
    'with space': 'spaced',
    '0': 'zero key',
    text: 'plain "quoted" text',
  },
  vars: { region: 'eu-west-1', 'dash-name': 'dashed' },
  labels: { team: 'data', 'app.kubernetes.io/name': 'etl' },
  execution: { id: 'ex_1', namespace: 'acme.data', flow_id: 'nightly', start_date: '2026-03-29T01:00:04.120Z' },
  flow: { id: 'nightly', namespace: 'acme.data' },
  tasks: {
    extract: { outputs: { count: 2, path: '/tmp/x' }, state: 'SUCCESS' },
    empty: { outputs: {}, state: 'SUCCESS' },
    failed: { outputs: null, state: 'FAILED' },
    nested: {
      outputs: {
        rows: [
          { id: 1, name: 'one' },
          { id: 2, name: 'two' },
        ],
      },
      state: 'SUCCESS',
    },
  },
  trigger: {
    body: { items: [{ id: 'i0' }, { id: 'i1' }], event: 'push', nullish: null },
    headers: { 'x-signature': 'sha256=abc', 'content-type': 'application/json' },
    outputs: { report: 's3://bucket/r.csv' },
    date: '2026-03-29T03:00:00+02:00',
  },
};

const secretValues: Record<string, string> = { API_KEY: 'k-123', DB_PASS: 'p@ss', EMPTY: '' };
const secrets: SecretLookup = (key) => (Object.hasOwn(secretValues, key) ? secretValues[key] : undefined);

function render(source: string, s: TemplateScope = scope): string {
  return renderTemplate(source, s, secrets).text;
}

function templateError(source: string, s: TemplateScope = scope): TemplateError {
  try {
    renderTemplate(source, s, secrets);
  } catch (error) {
    assert.ok(error instanceof TemplateError, `TemplateError for ${source}, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected a TemplateError for ${source}`);
}

describe('renderTemplate: every root', () => {
  const cases: [string, string][] = [
    ['{{ inputs.name }}', 'Ada'],
    ['{{ inputs.user.address.city }}', 'Paris'],
    ['{{ inputs["with space"] }}', 'spaced'],
    ['{{ inputs[0] }}', 'zero key'],
    ['{{ inputs["0"] }}', 'zero key'],
    ['{{ vars.region }}', 'eu-west-1'],
    ['{{ vars["dash-name"] }}', 'dashed'],
    ['{{ labels.team }}', 'data'],
    ["{{ labels['app.kubernetes.io/name'] }}", 'etl'],
    ['{{ execution.id }}', 'ex_1'],
    ['{{ execution.namespace }}', 'acme.data'],
    ['{{ execution.flow_id }}', 'nightly'],
    ['{{ execution.start_date }}', '2026-03-29T01:00:04.120Z'],
    ['{{ trigger.date }}', '2026-03-29T03:00:00+02:00'],
    ['{{ flow.id }}', 'nightly'],
    ['{{ flow.namespace }}', 'acme.data'],
    ['{{ tasks.extract.outputs.count }}', '2'],
    ['{{ tasks.extract.outputs.path }}', '/tmp/x'],
    ['{{ tasks.extract.state }}', 'SUCCESS'],
    ['{{ tasks.failed.state }}', 'FAILED'],
    ['{{ tasks["nested"].outputs.rows[1].name }}', 'two'],
    ['{{ tasks.nested.outputs.rows[0]["id"] }}', '1'],
    ['{{ trigger.body.event }}', 'push'],
    ['{{ trigger.body.items[0].id }}', 'i0'],
    ['{{ trigger.body.items[1]["id"] }}', 'i1'],
    ['{{ trigger.headers["x-signature"] }}', 'sha256=abc'],
    ['{{ trigger.headers["X-Signature"] }}', 'sha256=abc'],
    ["{{ trigger.headers['content-type'] }}", 'application/json'],
    ['{{ trigger.outputs.report }}', 's3://bucket/r.csv'],
  ];
  for (const [source, text] of cases) {
    it(`${source} → ${text}`, () => {
      assert.equal(render(source), text);
    });
  }
});

describe("renderTemplate: a for_each item's roots", () => {
  const items: TemplateScope = { ...scope, item: { name: 'users', shards: [1, 2] }, item_index: 0 };
  it('reads item, its members and item_index', () => {
    assert.equal(render('{{ item.name }}#{{ item_index }}', items), 'users#0');
    assert.equal(render('{{ item.shards[1] }}', items), '2');
    assert.equal(render('{{ item }}', items), '{"name":"users","shards":[1,2]}');
    assert.equal(render('{{ item }}/{{ item_index }}', { item: 'eu-west-1', item_index: 3 }), 'eu-west-1/3');
  });
  it('writes an item that is null as empty text, or its default()', () => {
    assert.equal(render('[{{ item }}]', { item: null, item_index: 1 }), '[]');
    assert.equal(render("{{ default(item, 'none') }}", { item: null, item_index: 1 }), 'none');
  });
});

describe('renderTemplateValue: one expression gives its value, not text', () => {
  it('keeps a list, a number, an object and null as they are', () => {
    assert.deepEqual(renderTemplateValue('{{ inputs.tags }}', scope).value, ['a', 'b']);
    assert.deepEqual(renderTemplateValue(' {{ inputs.count }}\n', scope).value, 3);
    assert.deepEqual(renderTemplateValue('{{ tasks.nested.outputs.rows[0] }}', scope).value, { id: 1, name: 'one' });
    assert.equal(renderTemplateValue('{{ inputs.nothing }}', scope).value, null);
  });
  it('gives text for anything else, and reports secrets read', () => {
    assert.equal(renderTemplateValue('n={{ inputs.count }}', scope).value, 'n=3');
    assert.equal(renderTemplateValue('{{ inputs.count }}{{ inputs.count }}', scope).value, '33');
    assert.deepEqual(renderTemplateValue("{{ secret('API_KEY') }}", scope, secrets), { value: 'k-123', secretKeysUsed: ['API_KEY'] });
  });
});

describe('renderTemplate: how values are written', () => {
  const cases: [string, string][] = [
    ['{{ inputs.text }}', 'plain "quoted" text'],
    ['{{ inputs.count }}', '3'],
    ['{{ inputs.ratio }}', '0.5'],
    ['{{ inputs.big }}', '1e+21'],
    ['{{ inputs.enabled }}', 'true'],
    ['{{ inputs.off }}', 'false'],
    ['{{ inputs.nothing }}', ''],
    ["{{ default(execution.flow_id, 'adhoc') }}", 'nightly'],
    ['[{{ trigger.body.nullish }}]', '[]'],
    ['{{ inputs.tags }}', '["a","b"]'],
    ['{{ inputs.user.address }}', '{"city":"Paris"}'],
    ['{{ inputs.empty }}', '{}'],
    ['{{ inputs.list }}', '[]'],
    ['{{ tasks.nested.outputs.rows[0] }}', '{"id":1,"name":"one"}'],
    ['{{ vars }}', '{"region":"eu-west-1","dash-name":"dashed"}'],
    ["{{ 'lit' }}", 'lit'],
    ['{{ 42 }}', '42'],
    ['{{ -1.5 }}', '-1.5'],
    ['{{ true }}', 'true'],
    ['{{ null }}', ''],
    ['{{ json(inputs.name) }}', '"Ada"'],
    ['{{ json(inputs.text) }}', '"plain \\"quoted\\" text"'],
    ['{{ json(inputs.count) }}', '3'],
    ['{{ json(inputs.nothing) }}', 'null'],
    ['{{ json(inputs.tags) }}', '["a","b"]'],
    ['{{ json(trigger.body.items) }}', '[{"id":"i0"},{"id":"i1"}]'],
    ['{{ json(json(inputs.name)) }}', '"\\"Ada\\""'],
    ["{{ default(inputs.missing, 'fallback') }}", 'fallback'],
    ["{{ default(inputs.nothing, 'was null') }}", 'was null'],
    ["{{ default(inputs.name, 'unused') }}", 'Ada'],
    ["{{ default(inputs.off, 'unused') }}", 'false'],
    ['{{ default(inputs.user.address.zip, 0) }}', '0'],
    ['{{ default(tasks.unknown.outputs.x, tasks.extract.outputs.count) }}', '2'],
    ['{{ default(inputs.a, default(inputs.b, "c")) }}', 'c'],
    ['{{ default(inputs.missing, null) }}', ''],
    ['{{ json(default(inputs.missing, null)) }}', 'null'],
    ["{{ default(json(inputs.missing), 'j') }}", 'j'],
  ];
  for (const [source, text] of cases) {
    it(`${source} → ${JSON.stringify(text)}`, () => {
      assert.equal(render(source), text);
    });
  }
});

describe('renderTemplate: text around expressions', () => {
  const cases: [string, string][] = [
    ['no braces at all', 'no braces at all'],
    ['', ''],
    ['Hello {{ inputs.name }}!', 'Hello Ada!'],
    ['{{ inputs.name }}{{ inputs.count }}', 'Ada3'],
    ['{{inputs.name}}-{{ vars.region }}-{{\ttasks.extract.state\n}}', 'Ada-eu-west-1-SUCCESS'],
    ["a {{ '{{' }} b }} c", 'a {{ b }} c'],
    ['{ not } a { template }', '{ not } a { template }'],
    ['line 1\n{{ inputs.name }}\nline 3\n', 'line 1\nAda\nline 3\n'],
    ["{{ 'a\\nb' }}", 'a\nb'],
  ];
  for (const [source, text] of cases) {
    it(`${JSON.stringify(source)} → ${JSON.stringify(text)}`, () => {
      assert.equal(render(source), text);
    });
  }

  it('returns a source with no {{ unchanged without reading the scope', () => {
    const source = 'static text } }}';
    const result = renderTemplate(source, {}, () => assert.fail('no secret lookup'));
    assert.equal(result.text, source);
    assert.deepEqual(result.secretKeysUsed, []);
  });

  it('renders a parsed template many times with different scopes', () => {
    const t = parseTemplate('{{ inputs.name }}');
    assert.equal(renderTemplate(t, { inputs: { name: 'a' } }).text, 'a');
    assert.equal(renderTemplate(t, { inputs: { name: 'b' } }).text, 'b');
  });

  it('writes a null execution.flow_id as empty text, or its default()', () => {
    const adhoc: TemplateScope = { execution: { id: 'e', namespace: 'n', flow_id: null, start_date: '2026-01-01T00:00:00Z' } };
    assert.equal(render('[{{ execution.flow_id }}]', adhoc), '[]');
    assert.equal(render("{{ default(execution.flow_id, 'adhoc') }}", adhoc), 'adhoc');
  });

  it('throws TemplateSyntaxError when given a string that does not parse', () => {
    assert.throws(() => renderTemplate('{{ inputs.', scope), TemplateSyntaxError);
  });
});

describe('renderTemplate: secrets', () => {
  it('writes the secret value and reports its key', () => {
    assert.deepEqual(renderTemplate("Bearer {{ secret('API_KEY') }}", scope, secrets), { text: 'Bearer k-123', secretKeysUsed: ['API_KEY'] });
  });

  it('reports keys once each, in order of first use', () => {
    const r = renderTemplate("{{ secret('DB_PASS') }}:{{ secret('API_KEY') }}:{{ secret(\"DB_PASS\") }}", scope, secrets);
    assert.deepEqual(r, { text: 'p@ss:k-123:p@ss', secretKeysUsed: ['DB_PASS', 'API_KEY'] });
  });

  it('an empty secret value is a value', () => {
    assert.deepEqual(renderTemplate("[{{ secret('EMPTY') }}]", scope, secrets), { text: '[]', secretKeysUsed: ['EMPTY'] });
  });

  it('reports only the secrets actually read (an unused default fallback is not)', () => {
    const r = renderTemplate("{{ default(inputs.name, secret('API_KEY')) }}", scope, secrets);
    assert.deepEqual(r, { text: 'Ada', secretKeysUsed: [] });
    const used = renderTemplate("{{ default(inputs.missing, secret('API_KEY')) }}", scope, secrets);
    assert.deepEqual(used, { text: 'k-123', secretKeysUsed: ['API_KEY'] });
  });

  it('json() of a secret quotes it and still reports it', () => {
    assert.deepEqual(renderTemplate("{{ json(secret('DB_PASS')) }}", scope, secrets), { text: '"p@ss"', secretKeysUsed: ['DB_PASS'] });
  });

  const missing: [string, string, string][] = [
    ["{{ secret('NOPE') }}", 'NOPE', "secret('NOPE')"],
    ['ok {{ secret(\'API_KEY\') }} {{ secret("GONE") }}', 'GONE', 'secret("GONE")'],
    ["{{ default(inputs.missing, secret('NOPE')) }}", 'NOPE', "default(inputs.missing, secret('NOPE'))"],
    ["{{ default(secret('NOPE'), 'x') }}", 'NOPE', "default(secret('NOPE'), 'x')"],
    ["{{ secret('constructor') }}", 'constructor', "secret('constructor')"],
  ];
  for (const [source, key, expression] of missing) {
    it(`${source}: SecretNotFoundError for ${key}`, () => {
      assert.throws(
        () => renderTemplate(source, scope, secrets),
        (error: unknown) => {
          assert.ok(error instanceof SecretNotFoundError);
          assert.equal(error.key, key);
          assert.equal(error.expression, expression);
          assert.equal(error.reason, 'secret_not_found');
          assert.equal(error.message, `{{ ${expression} }}: secret "${key}" not found`);
          return true;
        },
      );
    });
  }

  it('with no lookup, every secret is not found', () => {
    assert.throws(() => renderTemplate("{{ secret('API_KEY') }}", scope), SecretNotFoundError);
  });
});

describe('renderTemplate: paths that do not resolve', () => {
  const cases: [source: string, message: string, s?: TemplateScope][] = [
    ['{{ inputs.missing }}', '{{ inputs.missing }}: inputs has no input "missing" (inputs: 0, name, count, ratio, big, enabled, off, nothing, tags, user, … 4 more)'],
    ['{{ inputs.user.phone }}', '{{ inputs.user.phone }}: inputs.user has no key "phone" (keys: id, email, address)'],
    ['{{ inputs.user.address.zip }}', '{{ inputs.user.address.zip }}: inputs.user.address has no key "zip" (keys: city)'],
    ['{{ inputs.empty.x }}', '{{ inputs.empty.x }}: inputs.empty has no key "x" (keys: none)'],
    ['{{ inputs.name.first }}', '{{ inputs.name.first }}: inputs.name is a string, it has no key "first"'],
    ['{{ inputs.count[0] }}', '{{ inputs.count[0] }}: inputs.count is a number, it has no key [0]'],
    ['{{ inputs.enabled.x }}', '{{ inputs.enabled.x }}: inputs.enabled is a boolean, it has no key "x"'],
    ['{{ inputs.nothing.x }}', '{{ inputs.nothing.x }}: inputs.nothing is null, it has no key "x"'],
    ['{{ inputs.tags[2] }}', '{{ inputs.tags[2] }}: inputs.tags has 2 items, no index 2'],
    ['{{ inputs.list[0] }}', '{{ inputs.list[0] }}: inputs.list has 0 items, no index 0'],
    ['{{ inputs.tags.length }}', '{{ inputs.tags.length }}: inputs.tags is a list: use an index such as inputs.tags[0], not "length"'],
    ['{{ inputs.tags["0"] }}', '{{ inputs.tags["0"] }}: inputs.tags is a list: use an index such as inputs.tags[0], not "0"'],
    ['{{ vars.nope }}', '{{ vars.nope }}: vars has no variable "nope" (variables: region, dash-name)'],
    ['{{ labels.owner }}', '{{ labels.owner }}: labels has no label "owner" (labels: team, app.kubernetes.io/name)'],
    ['{{ tasks.extract.outputs.rows }}', '{{ tasks.extract.outputs.rows }}: task "extract" has no output "rows" (outputs: count, path)'],
    ['{{ tasks.empty.outputs.x }}', '{{ tasks.empty.outputs.x }}: task "empty" has no output "x" (outputs: none)'],
    ['{{ tasks.failed.outputs.x }}', '{{ tasks.failed.outputs.x }}: task "failed" has no outputs'],
    [
      '{{ tasks.load.outputs.x }}',
      '{{ tasks.load.outputs.x }}: task "load" is not available: it is not an upstream task that has ended (available: extract, empty, failed, nested)',
    ],
    ['{{ tasks.nested.outputs.rows[5] }}', '{{ tasks.nested.outputs.rows[5] }}: tasks.nested.outputs.rows has 2 items, no index 5'],
    ['{{ tasks.nested.outputs.rows[0].email }}', '{{ tasks.nested.outputs.rows[0].email }}: tasks.nested.outputs.rows[0] has no key "email" (keys: id, name)'],
    ['{{ trigger.body.items[2] }}', '{{ trigger.body.items[2] }}: trigger.body.items has 2 items, no index 2'],
    ['{{ trigger.body.ref }}', '{{ trigger.body.ref }}: trigger.body has no key "ref" (keys: items, event, nullish)'],
    ['{{ trigger.headers["x-missing"] }}', '{{ trigger.headers["x-missing"] }}: trigger.headers has no header "x-missing" (headers: x-signature, content-type)'],
    ['{{ trigger.outputs.nope }}', '{{ trigger.outputs.nope }}: trigger.outputs has no output "nope" (outputs: report)'],
    ['{{ json(inputs.nope) }}', '{{ json(inputs.nope) }}: inputs has no input "nope" (inputs: 0, name, count, ratio, big, enabled, off, nothing, tags, user, … 4 more)'],
    ['x {{ inputs.name }} {{ inputs.x.y }}', '{{ inputs.x.y }}: inputs has no input "x" (inputs: 0, name, count, ratio, big, enabled, off, nothing, tags, user, … 4 more)'],
    // Roots the caller did not provide.
    ['{{ inputs.a }}', '{{ inputs.a }}: inputs is not available here', {}],
    ['{{ vars.a }}', '{{ vars.a }}: vars is not available here', {}],
    ['{{ labels.a }}', '{{ labels.a }}: labels is not available here', {}],
    ['{{ execution.id }}', '{{ execution.id }}: execution is not available here', {}],
    ['{{ flow.id }}', '{{ flow.id }}: flow is not available here', {}],
    ['{{ tasks.a.state }}', '{{ tasks.a.state }}: task "a" is not available: it is not an upstream task that has ended (available: none)', {}],
    ['{{ tasks.a.state }}', '{{ tasks.a.state }}: task "a" has no state', { tasks: { a: {} } }],
    ['{{ trigger.body }}', '{{ trigger.body }}: trigger is not available: the execution was not started by a trigger', {}],
    ['{{ trigger.body.x }}', '{{ trigger.body.x }}: trigger.body is not available for this trigger', { trigger: { headers: {} } }],
    ['{{ trigger.headers.a }}', '{{ trigger.headers.a }}: trigger.headers is not available for this trigger', { trigger: { body: {} } }],
    ['{{ trigger.date }}', '{{ trigger.date }}: trigger.date is not available: the execution was not started by a schedule', { trigger: { body: {} } }],
    ['{{ trigger.body.x }}', '{{ trigger.body.x }}: trigger.body is a string, it has no key "x"', { trigger: { body: 'raw text' } }],
    ['{{ item }}', '{{ item }}: item is only defined in a task with for_each', {}],
    ['{{ item_index }}', '{{ item_index }}: item_index is only defined in a task with for_each', { item: 'a' }],
    ['{{ item.name }}', '{{ item.name }}: item is a string, it has no key "name"', { item: 'a', item_index: 0 }],
    ['{{ item.nope }}', '{{ item.nope }}: item has no key "nope" (keys: name)', { item: { name: 'users' }, item_index: 0 }],
  ];
  for (const [source, message, s] of cases) {
    it(`${source} fails: ${message}`, () => {
      const error = templateError(source, s);
      assert.equal(error.message, message);
      assert.equal(error.reason, 'template_error');
      assert.equal(error.expression, source.slice(source.lastIndexOf('{{') + 2, source.lastIndexOf('}}')).trim());
    });
  }
});
