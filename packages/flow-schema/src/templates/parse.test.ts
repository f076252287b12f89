import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTemplate, MAX_EXPRESSION_DEPTH, parseTemplate, TemplateSyntaxError, type Expr } from './index.js';

/** The one expression of a template that holds exactly one. */
function only(source: string): Expr {
  const exprs = parseTemplate(source).segments.filter((s) => s.kind === 'expression');
  assert.equal(exprs.length, 1, `one expression in ${source}`);
  const seg = exprs[0];
  assert.ok(seg !== undefined && seg.kind === 'expression');
  return seg.expr;
}

function syntaxError(source: string): TemplateSyntaxError {
  try {
    parseTemplate(source);
  } catch (error) {
    assert.ok(error instanceof TemplateSyntaxError, `TemplateSyntaxError for ${source}, got ${String(error)}`);
    assert.equal(error.source, source);
    return error;
  }
  assert.fail(`expected a syntax error for ${JSON.stringify(source)}`);
}

describe('parseTemplate: text without {{', () => {
  for (const source of ['', 'plain', 'one } two }}', '{ single {', 'line\nbreak', '$HOME ${x} %s']) {
    it(`keeps ${JSON.stringify(source)} as one text segment`, () => {
      const t = parseTemplate(source);
      assert.equal(isTemplate(source), false);
      assert.deepEqual(t.segments, source === '' ? [] : [{ kind: 'text', text: source }]);
      assert.deepEqual([t.expressions, t.secretKeys, t.taskRefs, t.roots, t.refs], [[], [], [], [], []]);
    });
  }
});

describe('parseTemplate: paths of every root', () => {
  const cases: [string, string, (string | number)[]][] = [
    ['inputs.name', 'inputs', ['name']],
    ['inputs', 'inputs', []],
    ['inputs.user.address.city', 'inputs', ['user', 'address', 'city']],
    ['vars.region', 'vars', ['region']],
    ['vars', 'vars', []],
    ['labels.team', 'labels', ['team']],
    ['labels["app.kubernetes.io/name"]', 'labels', ['app.kubernetes.io/name']],
    ['execution.id', 'execution', ['id']],
    ['execution.namespace', 'execution', ['namespace']],
    ['execution.flow_id', 'execution', ['flow_id']],
    ['execution.start_date', 'execution', ['start_date']],
    ['trigger.date', 'trigger', ['date']],
    ['flow.id', 'flow', ['id']],
    ['flow.namespace', 'flow', ['namespace']],
    ['tasks.extract.outputs.rows', 'tasks', ['extract', 'outputs', 'rows']],
    ['tasks.extract.outputs', 'tasks', ['extract', 'outputs']],
    ['tasks.extract.outputs.rows[0].name', 'tasks', ['extract', 'outputs', 'rows', 0, 'name']],
    ['tasks["extract"].state', 'tasks', ['extract', 'state']],
    ['tasks.extract.state', 'tasks', ['extract', 'state']],
    ['trigger.body', 'trigger', ['body']],
    ['trigger.body.items[0]', 'trigger', ['body', 'items', 0]],
    ['trigger.body.items[12].id', 'trigger', ['body', 'items', 12, 'id']],
    ['trigger.headers["x-signature"]', 'trigger', ['headers', 'x-signature']],
    ["trigger.headers['x-signature']", 'trigger', ['headers', 'x-signature']],
    ['trigger.headers["X-Signature"]', 'trigger', ['headers', 'x-signature']],
    ['trigger.headers.Authorization', 'trigger', ['headers', 'authorization']],
    ['trigger.headers', 'trigger', ['headers']],
    ['trigger.outputs.count', 'trigger', ['outputs', 'count']],
    ['inputs["a b"]["c\\"d"]', 'inputs', ['a b', 'c"d']],
    ['inputs[0]', 'inputs', [0]],
    ['inputs.constructor', 'inputs', ['constructor']],
    ['item', 'item', []],
    ['item.name', 'item', ['name']],
    ['item["a b"][0]', 'item', ['a b', 0]],
    ['item_index', 'item_index', []],
  ];
  for (const [source, root, path] of cases) {
    it(`{{ ${source} }}`, () => {
      const t = parseTemplate(`{{ ${source} }}`);
      assert.deepEqual(t.refs, [{ root, path, text: source }]);
      assert.deepEqual(t.roots, [root]);
      assert.deepEqual(t.expressions, [source]);
    });
  }
});

describe('parseTemplate: literals', () => {
  const cases: [string, unknown][] = [
    ["'single'", 'single'],
    ['"double"', 'double'],
    ["''", ''],
    ["'it\\'s'", "it's"],
    ['"say \\"hi\\""', 'say "hi"'],
    ["'a\\\\b'", 'a\\b'],
    ["'tab\\tnew\\nret\\r'", 'tab\tnew\nret\r'],
    ["'\\u00e9\\/'", 'é/'],
    ["'\"'", '"'],
    ['"\'"', "'"],
    ["'}}'", '}}'],
    ["'{{'", '{{'],
    ['0', 0],
    ['42', 42],
    ['-7', -7],
    ['3.25', 3.25],
    ['1e3', 1000],
    ['2.5E-1', 0.25],
    ['true', true],
    ['false', false],
    ['null', null],
  ];
  for (const [source, value] of cases) {
    it(`{{ ${source} }} is ${JSON.stringify(value)}`, () => {
      assert.deepEqual(only(`{{ ${source} }}`), { kind: 'literal', value });
    });
  }
});

describe('parseTemplate: segments, whitespace and escapes', () => {
  it('keeps the text around and between expressions', () => {
    const t = parseTemplate('a {{ inputs.x }}-{{vars.y}} z');
    assert.deepEqual(
      t.segments.map((s) => (s.kind === 'text' ? s.text : `<${s.expression}@${s.offset}>`)),
      ['a ', '<inputs.x@2>', '-', '<vars.y@17>', ' z'],
    );
  });

  it('joins adjacent expressions with no text between them', () => {
    const t = parseTemplate('{{inputs.a}}{{inputs.b}}');
    assert.deepEqual(
      t.segments.map((s) => s.kind),
      ['expression', 'expression'],
    );
  });

  for (const source of ['{{inputs.x}}', '{{ inputs.x }}', '{{   inputs.x\t}}', '{{\n  inputs.x\n}}', '{{ inputs . x }}', '{{ inputs [ "x" ] }}']) {
    it(`reads ${JSON.stringify(source)} as inputs.x`, () => {
      const t = parseTemplate(source);
      assert.deepEqual(
        t.refs.map((r) => [r.root, r.path]),
        [['inputs', ['x']]],
      );
    });
  }

  it("writes a literal {{ as {{ '{{' }}", () => {
    const t = parseTemplate("a {{ '{{' }} b }}");
    assert.deepEqual(t.segments[1], { kind: 'expression', expression: "'{{'", offset: 2, expr: { kind: 'literal', value: '{{' } });
    assert.deepEqual(t.segments[2], { kind: 'text', text: ' b }}' });
  });

  it('does not end an expression at a }} inside quotes', () => {
    assert.deepEqual(only('{{ default(inputs.x, "}}") }}'), {
      kind: 'default',
      value: { kind: 'path', ref: { root: 'inputs', path: ['x'], text: 'inputs.x' }, offset: 11 },
      fallback: { kind: 'literal', value: '}}' },
    });
  });

  it('keeps multi-line text as it is', () => {
    const t = parseTemplate('line1\n{{ inputs.a }}\nline3\n');
    assert.deepEqual(t.segments[0], { kind: 'text', text: 'line1\n' });
    assert.deepEqual(t.segments[2], { kind: 'text', text: '\nline3\n' });
  });

  it('isTemplate is true as soon as there is a {{', () => {
    assert.equal(isTemplate('a {{ inputs.x }}'), true);
    assert.equal(isTemplate('a {{'), true);
    assert.equal(isTemplate('a { {'), false);
  });
});

describe('parseTemplate: functions', () => {
  it('secret() with single or double quotes', () => {
    assert.deepEqual(only("{{ secret('API_KEY') }}"), { kind: 'secret', key: 'API_KEY', offset: 3 });
    assert.deepEqual(only('{{secret("db.password")}}'), { kind: 'secret', key: 'db.password', offset: 2 });
  });

  it('json() of a path', () => {
    assert.deepEqual(only('{{ json(trigger.body) }}'), {
      kind: 'json',
      arg: { kind: 'path', ref: { root: 'trigger', path: ['body'], text: 'trigger.body' }, offset: 8 },
    });
  });

  it('default() nests and takes any expression as fallback', () => {
    const e = only("{{ default(inputs.a, default(vars.b, secret('C'))) }}");
    assert.equal(e.kind, 'default');
    assert.deepEqual(parseTemplate("{{ default(inputs.a, default(vars.b, secret('C'))) }}").secretKeys, ['C']);
  });

  it(`accepts calls nested ${MAX_EXPRESSION_DEPTH - 1} deep`, () => {
    const depth = MAX_EXPRESSION_DEPTH - 1;
    assert.doesNotThrow(() => parseTemplate(`{{ ${'json('.repeat(depth)}inputs${')'.repeat(depth)} }}`));
  });
});

describe('parseTemplate: what it reports', () => {
  it('lists secret keys once each, in order of first use, including inside calls', () => {
    const t = parseTemplate("{{ secret('B') }} {{ secret('A') }} {{ secret(\"B\") }} {{ json(secret('C')) }} {{ default(inputs.x, secret('A')) }}");
    assert.deepEqual(t.secretKeys, ['B', 'A', 'C']);
  });

  it('lists the tasks referenced, once per task and expression', () => {
    const t = parseTemplate('{{ tasks.a.outputs.x }} {{ tasks.b.state }} {{ tasks.a.outputs.x }} {{ default(tasks.c.outputs.y, tasks.a.outputs.z) }}');
    assert.deepEqual(t.taskRefs, [
      { taskId: 'a', expression: 'tasks.a.outputs.x' },
      { taskId: 'b', expression: 'tasks.b.state' },
      { taskId: 'c', expression: 'default(tasks.c.outputs.y, tasks.a.outputs.z)' },
      { taskId: 'a', expression: 'default(tasks.c.outputs.y, tasks.a.outputs.z)' },
    ]);
  });

  it('lists roots once each and every expression in order', () => {
    const t = parseTemplate('{{ vars.a }}{{ inputs.b }}{{ vars.c }}{{ 1 }}');
    assert.deepEqual(t.roots, ['vars', 'inputs']);
    assert.deepEqual(t.expressions, ['vars.a', 'inputs.b', 'vars.c', '1']);
    assert.deepEqual(
      t.refs.map((r) => r.text),
      ['vars.a', 'inputs.b', 'vars.c'],
    );
  });

  it('keeps the source', () => {
    const source = 'x {{ inputs.a }}';
    assert.equal(parseTemplate(source).source, source);
  });
});

describe('parseTemplate: syntax errors', () => {
  const roots = 'roots: inputs, vars, labels, execution, flow, tasks, trigger, item, item_index';
  const cases: [source: string, message: string, offset: number, expression: string | undefined][] = [
    ['hello {{ inputs.x', 'unterminated {{ at column 7', 6, undefined],
    ['hello {{', 'unterminated {{ at column 7', 6, undefined],
    ['{{ inputs.', 'unterminated {{ at column 1', 0, undefined],
    ["{{ secret('A'", 'unterminated {{ at column 1', 0, undefined],
    ['{{ default(inputs.a,', 'unterminated {{ at column 1', 0, undefined],
    ['a\nb {{ inputs.x', 'unterminated {{ at line 2, column 3', 4, undefined],
    ['{{ inputs.x }} {{ inputs.y', 'unterminated {{ at column 16', 15, undefined],
    ["{{ 'abc }}", 'unterminated string at column 4', 3, undefined],
    ['{{ "abc\\" }}', 'unterminated string at column 4', 3, undefined],
    ['{{ }}', 'empty expression {{ }} at column 1', 0, ''],
    ['ab {{}}', 'empty expression {{ }} at column 4', 3, ''],
    ['{{ inpts.x }}', `unknown root "inpts" in {{ inpts.x }} (${roots})`, 3, 'inpts.x'],
    ['{{ outputs.x }}', `unknown root "outputs" in {{ outputs.x }} (${roots})`, 3, 'outputs.x'],
    ['{{ constructor }}', `unknown root "constructor" in {{ constructor }} (${roots})`, 3, 'constructor'],
    ['{{ __proto__.x }}', `unknown root "__proto__" in {{ __proto__.x }} (${roots})`, 3, '__proto__.x'],
    ['{{ Inputs.x }}', `unknown root "Inputs" in {{ Inputs.x }} (${roots})`, 3, 'Inputs.x'],
    ["{{ secret('A' }}", `expected ")" after secret('A' in {{ secret('A' }}`, 14, "secret('A'"],
    ['{{ secret(inputs.k) }}', `secret() takes one quoted key, e.g. secret('API_KEY'), not "inputs" in {{ secret(inputs.k) }}`, 10, 'secret(inputs.k)'],
    ['{{ secret(1) }}', `secret() takes one quoted key, e.g. secret('API_KEY'), not 1 in {{ secret(1) }}`, 10, 'secret(1)'],
    ['{{ secret() }}', `secret() takes one quoted key, e.g. secret('API_KEY'), not ")" in {{ secret() }}`, 10, 'secret()'],
    ["{{ secret('') }}", "secret() needs a non-empty key in {{ secret('') }}", 10, "secret('')"],
    ["{{ secret('A', 'B') }}", `expected ")" after secret('A' in {{ secret('A', 'B') }} (secret() takes one argument)`, 13, "secret('A', 'B')"],
    ["{{ secret('A').x }}", `unexpected "." after secret('A') in {{ secret('A').x }}`, 14, "secret('A').x"],
    ['{{ json() }}', 'expected a value, got ")", after json( in {{ json() }}', 8, 'json()'],
    ['{{ json(inputs, 1) }}', 'expected ")" after json(inputs in {{ json(inputs, 1) }} (json() takes one argument)', 14, 'json(inputs, 1)'],
    ['{{ default(inputs.x) }}', 'expected "," after default(inputs.x in {{ default(inputs.x) }}', 19, 'default(inputs.x)'],
    [
      '{{ default(inputs.x, 1, 2) }}',
      'expected ")" after default(inputs.x, 1 in {{ default(inputs.x, 1, 2) }} (default() takes a value and a fallback)',
      22,
      'default(inputs.x, 1, 2)',
    ],
    ['{{ upper(inputs.x) }}', 'unknown function "upper" in {{ upper(inputs.x) }} (functions: secret, json, default)', 3, 'upper(inputs.x)'],
    ['{{ inputs(1) }}', 'unknown function "inputs" in {{ inputs(1) }} (functions: secret, json, default)', 3, 'inputs(1)'],
    ['{{ inputs.x() }}', 'unexpected "(" after inputs.x in {{ inputs.x() }}', 11, 'inputs.x()'],
    ['{{ inputs.a + 1 }}', 'unexpected character "+" at column 13 in {{ inputs.a + 1 }}', 12, 'inputs.a + 1'],
    ['{{ inputs.a = 1 }}', 'unexpected character "=" at column 13 in {{ inputs.a = 1 }}', 12, 'inputs.a = 1'],
    ['{{ inputs.a | upper }}', 'unexpected character "|" at column 13 in {{ inputs.a | upper }}', 12, 'inputs.a | upper'],
    ['{{ inputs.a inputs.b }}', 'unexpected "inputs" after inputs.a in {{ inputs.a inputs.b }}', 12, 'inputs.a inputs.b'],
    ['{{ 1 2 }}', 'unexpected 2 after 1 in {{ 1 2 }}', 5, '1 2'],
    ['{{ inputs. }}', 'expected a name, got "}}", after inputs. in {{ inputs. }}', 11, 'inputs.'],
    ['{{ inputs.1 }}', 'expected a name, got 1, after inputs. in {{ inputs.1 }}', 10, 'inputs.1'],
    ['{{ .x }}', 'expected a value, got ".", at the start of {{ .x }}', 3, '.x'],
    ['{{ inputs[x] }}', 'expected a quoted name or an index, got "x", after inputs[ in {{ inputs[x] }}', 10, 'inputs[x]'],
    ['{{ inputs["x" }}', 'expected "]" after inputs["x" in {{ inputs["x" }}', 14, 'inputs["x"'],
    ['{{ inputs[-1] }}', 'an index must be a whole number of 0 or more, not -1 in {{ inputs[-1] }}', 10, 'inputs[-1]'],
    ['{{ inputs[1.5] }}', 'an index must be a whole number of 0 or more, not 1.5 in {{ inputs[1.5] }}', 10, 'inputs[1.5]'],
    ['{{ 1abc }}', 'invalid number "1abc" at column 4 in {{ 1abc }}', 3, '1abc'],
    ['{{ "\\q" }}', 'unknown escape "\\q" at column 5 in {{ "\\q" }}', 4, '"\\q"'],
    ['{{ "\\u12" }}', '\\u needs four hex digits at column 5 in {{ "\\u12" }}', 4, '"\\u12"'],
    ['{{ {{ x }} }}', 'unexpected character "{" at column 4 in {{ {{ x }}', 3, '{{ x'],
    ['{{ inputs.x } y', 'unexpected character "}" at column 13 in {{ inputs.x } y', 12, undefined],
    ['{{ inputs.é }}', 'unexpected character "é" at column 11 in {{ inputs.é }}', 10, 'inputs.é'],
    ['{{ execution.foo }}', 'unknown field "foo" of execution in {{ execution.foo }} (fields: id, namespace, flow_id, start_date)', 13, 'execution.foo'],
    ['{{ execution }}', 'execution needs a field in {{ execution }} (fields: id, namespace, flow_id, start_date)', 3, 'execution'],
    ['{{ execution.id.x }}', 'execution.id is a string and has no member "x" in {{ execution.id.x }}', 16, 'execution.id.x'],
    ['{{ flow.name }}', 'unknown field "name" of flow in {{ flow.name }} (fields: id, namespace)', 8, 'flow.name'],
    ['{{ flow[0] }}', 'unknown field [0] of flow in {{ flow[0] }} (fields: id, namespace)', 8, 'flow[0]'],
    ['{{ tasks }}', 'tasks needs a task id and a field in {{ tasks }} (e.g. tasks.extract.outputs.rows)', 3, 'tasks'],
    ['{{ tasks.a }}', 'tasks.a needs a field in {{ tasks.a }} (fields: outputs, state, approval, files)', 9, 'tasks.a'],
    ['{{ tasks.a.output.x }}', 'unknown field "output" of tasks.a in {{ tasks.a.output.x }} (fields: outputs, state, approval, files)', 11, 'tasks.a.output.x'],
    ['{{ tasks[0].state }}', 'a task id is a name, not [0] in {{ tasks[0].state }} (e.g. tasks.extract.outputs.rows)', 9, 'tasks[0].state'],
    ['{{ tasks.a.state.x }}', 'tasks.a.state is a string and has no member "x" in {{ tasks.a.state.x }}', 17, 'tasks.a.state.x'],
    ['{{ trigger }}', 'trigger needs a field in {{ trigger }} (fields: body, headers, outputs, date)', 3, 'trigger'],
    ['{{ trigger.query }}', 'unknown field "query" of trigger in {{ trigger.query }} (fields: body, headers, outputs, date)', 11, 'trigger.query'],
    ['{{ trigger.date.x }}', 'trigger.date is a string and has no member "x" in {{ trigger.date.x }}', 16, 'trigger.date.x'],
    ['{{ execution.start_date[0] }}', 'execution.start_date is a string and has no member [0] in {{ execution.start_date[0] }}', 24, 'execution.start_date[0]'],
    ['{{ trigger.headers.a.b }}', 'trigger.headers.a is a string and has no member "b" in {{ trigger.headers.a.b }}', 21, 'trigger.headers.a.b'],
    ['{{ vars.a.b }}', 'vars.a is a string and has no member "b" in {{ vars.a.b }}', 10, 'vars.a.b'],
    ['{{ labels.team[0] }}', 'labels.team is a string and has no member [0] in {{ labels.team[0] }}', 15, 'labels.team[0]'],
    ['{{ item_index.x }}', 'item_index is a number and has no member "x" in {{ item_index.x }}', 14, 'item_index.x'],
    ['{{ item_index[0] }}', 'item_index is a number and has no member [0] in {{ item_index[0] }}', 14, 'item_index[0]'],
    ['ok {{ inputs.a }} then {{ nope }}', `unknown root "nope" in {{ nope }} (${roots})`, 26, 'nope'],
    ['line 1\n  {{ foo }}', `unknown root "foo" in {{ foo }} (${roots})`, 12, 'foo'],
    ['x\n{{ inputs.a ! }}', 'unexpected character "!" at line 2, column 13 in {{ inputs.a ! }}', 14, 'inputs.a !'],
  ];
  for (const [source, message, offset, expression] of cases) {
    it(`${JSON.stringify(source)}: ${message}`, () => {
      const error = syntaxError(source);
      assert.equal(error.message, message);
      assert.equal(error.offset, offset);
      assert.equal(error.expression, expression);
      assert.equal(error.name, 'TemplateSyntaxError');
    });
  }

  it(`refuses calls nested ${MAX_EXPRESSION_DEPTH + 1} deep`, () => {
    const depth = MAX_EXPRESSION_DEPTH + 1;
    const error = syntaxError(`{{ ${'json('.repeat(depth)}inputs${')'.repeat(depth)} }}`);
    assert.match(error.message, new RegExp(`^expression nested deeper than ${MAX_EXPRESSION_DEPTH} calls in \\{\\{ json\\(`));
  });

  it('survives deeply nested input without a stack overflow', () => {
    const error = syntaxError(`{{ ${'default('.repeat(100_000)}`);
    assert.match(error.message, /nested deeper/);
  });
});

describe('parseTemplate: size', () => {
  // How fast (linear in the length, microseconds per typical template) is
  // measured by bench/templates.bench.mjs, not here.
  it('parses a long template with 20,000 expressions', () => {
    const t = parseTemplate('x {{ tasks.a.outputs.rows[0]["k"] }} '.repeat(20_000));
    assert.equal(t.expressions.length, 20_000);
    assert.deepEqual(t.taskRefs, [{ taskId: 'a', expression: 'tasks.a.outputs.rows[0]["k"]' }], 'one per task and expression');
  });
});
