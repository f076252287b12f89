// for_each: the items renderForEach gives the engine (a literal list as
// written, a template's list as the value it names, a list written as JSON
// text parsed), the errors it gives instead (not a list, too many items, a
// template that does not resolve), and the fields listed as extensions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flowExtensions } from './extensions.js';
import type { FlowTask } from './flow-definition.js';
import { FOR_EACH_MAX_ITEMS, renderForEach } from './index.js';
import type { TemplateScope } from './templates/index.js';
import { validateFlow } from './validate.js';

const task = (forEach: FlowTask['for_each']): FlowTask => ({ id: 'load', type: 'command', command: ['echo', '{{ item }}'], for_each: forEach });

const tables = [{ name: 'users', rows: 3 }, { name: 'orders' }];
const scope: TemplateScope = {
  inputs: { regions: ['eu', 'us'], empty: [], one: 'eu', count: 3, nothing: null, config: { a: 1 } },
  vars: { shards: '[1, 2, 3]', plain: 'a,b' },
  tasks: { list: { outputs: { tables, as_text: JSON.stringify(tables), huge: Array.from({ length: FOR_EACH_MAX_ITEMS + 1 }, (_, i) => i) }, state: 'SUCCESS' } },
};

describe('renderForEach', () => {
  it('gives a literal list as written, an empty one too', () => {
    assert.deepEqual(renderForEach(task(['a', { b: 1 }, 3]), scope), { ok: true, items: ['a', { b: 1 }, 3] });
    assert.deepEqual(renderForEach(task([]), scope), { ok: true, items: [] });
  });

  it("gives the list an expression names, as values (an upstream task's output, an input)", () => {
    assert.deepEqual(renderForEach(task('{{ tasks.list.outputs.tables }}'), scope), { ok: true, items: tables });
    assert.deepEqual(renderForEach(task('  {{ inputs.regions }}\n'), scope), { ok: true, items: ['eu', 'us'] });
    assert.deepEqual(renderForEach(task('{{ inputs.empty }}'), scope), { ok: true, items: [] });
    assert.deepEqual(renderForEach(task('{{ default(inputs.missing, inputs.regions) }}'), scope), { ok: true, items: ['eu', 'us'] });
  });

  it('parses a string that is JSON text of a list (a variable, an output written as text)', () => {
    assert.deepEqual(renderForEach(task('{{ vars.shards }}'), scope), { ok: true, items: [1, 2, 3] });
    assert.deepEqual(renderForEach(task('{{ tasks.list.outputs.as_text }}'), scope), { ok: true, items: tables });
  });

  it('refuses a value that is not a list, saying what it got', () => {
    assert.deepEqual(renderForEach(task('{{ inputs.one }}'), scope), { ok: false, error: 'for_each of task load must be a list; got string "eu"' });
    assert.deepEqual(renderForEach(task('{{ vars.plain }}'), scope), { ok: false, error: 'for_each of task load must be a list; got string "a,b"' });
    assert.deepEqual(renderForEach(task('{{ inputs.count }}'), scope), { ok: false, error: 'for_each of task load must be a list; got number 3' });
    assert.deepEqual(renderForEach(task('{{ inputs.nothing }}'), scope), { ok: false, error: 'for_each of task load must be a list; got null null' });
    assert.deepEqual(renderForEach(task('{{ inputs.config }}'), scope), { ok: false, error: 'for_each of task load must be a list; got object {"a":1}' });
    const big = { text: 'x'.repeat(200) };
    assert.deepEqual(renderForEach(task('{{ inputs.big }}'), { inputs: { big } }), {
      ok: false,
      error: `for_each of task load must be a list; got object ${JSON.stringify(big).slice(0, 80)}`,
    });
  });

  it(`refuses more than ${FOR_EACH_MAX_ITEMS} items`, () => {
    assert.deepEqual(renderForEach(task('{{ tasks.list.outputs.huge }}'), scope), { ok: false, error: 'for_each of task load has 10001 items; at most 10000' });
    const max = renderForEach(task(Array.from({ length: FOR_EACH_MAX_ITEMS }, (_, i) => i)), scope);
    assert.ok(max.ok && max.items.length === FOR_EACH_MAX_ITEMS);
  });

  it("gives a template's error with the task's id", () => {
    assert.deepEqual(renderForEach(task('{{ tasks.list.outputs.tabels }}'), scope), {
      ok: false,
      error: 'for_each of task load: {{ tasks.list.outputs.tabels }}: task "list" has no output "tabels" (outputs: tables, as_text, huge)',
    });
    assert.deepEqual(renderForEach(task('{{ tasks.other.outputs.x }}'), scope), {
      ok: false,
      error: 'for_each of task load: {{ tasks.other.outputs.x }}: task "other" is not available: it is not an upstream task that has ended (available: list)',
    });
    const secret = renderForEach(task("{{ secret('K') }}"), scope);
    assert.deepEqual(secret, { ok: false, error: `for_each of task load: {{ secret('K') }}: secret "K" not found` });
    assert.match((renderForEach(task('{{ inputs.x'), scope) as { error: string }).error, /^for_each of task load: unterminated \{\{/);
    assert.match((renderForEach(task('a {{ inputs.regions }}'), scope) as { error: string }).error, /^for_each of task load: must be one \{\{ expression \}\}/);
  });

  it('reads any object the engine passes as the scope, and says when the task has no for_each', () => {
    assert.deepEqual(renderForEach(task('{{ inputs.l }}'), { inputs: { l: [1] }, somethingElse: true }), { ok: true, items: [1] });
    assert.deepEqual(renderForEach({ id: 'x', type: 'command', command: ['echo'] }, scope), { ok: false, error: 'task x has no for_each' });
  });
});

describe('for_each in a flow', () => {
  const src = (extra: string) =>
    [
      'id: fan',
      'tasks:',
      '  - {id: list, type: script, file: list.py}',
      '  - id: load',
      '    type: command',
      '    command: [echo, "{{ item.name }}", "{{ item_index }}"]',
      '    depends_on: [list]',
      '    for_each: "{{ tasks.list.outputs.tables }}"',
      extra,
      '',
    ].join('\n');

  it('is valid with its options, and each field is listed as an extension with its line', () => {
    const { flow, errors, extensions } = validateFlow(src('    for_each_concurrency: 4\n    fail_fast: true'));
    assert.deepEqual(errors, []);
    assert.ok(flow);
    assert.deepEqual(
      extensions?.map((e) => [e.field, e.what, e.line]),
      [
        ['tasks[1].for_each', 'for_each (a fan-out over a list)', 8],
        ['tasks[1].for_each_concurrency', 'for_each_concurrency', 9],
        ['tasks[1].fail_fast', 'fail_fast', 10],
      ],
    );
    assert.deepEqual(flowExtensions({ id: 'x', tasks: [{ id: 'a', type: 'command', command: ['echo'] }] }), []);
  });

  it('refuses item in the for_each and in a downstream task in one pass', () => {
    const { errors } = validateFlow(src('  - {id: report, type: command, command: [echo, "{{ item }}"], depends_on: [load]}').replace('tasks.list.outputs.tables', 'item'));
    assert.deepEqual(
      errors.map((e) => [e.field, e.line]),
      [
        ['tasks[1].for_each', 8],
        ['tasks[2].command[1]', 9],
      ],
    );
  });
});
