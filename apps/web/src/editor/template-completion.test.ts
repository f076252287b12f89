// Completion inside a flow file's `{{ … }}`: roots and functions, each root's
// fields as the validator knows them (execution.start_date, trigger.date
// among them), the flow's own input and task ids, and item and item_index
// only where the validator accepts them (a task with for_each).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { declaredIds, inForEachTask, templateCompletions } from './template-completion.ts';

const doc = [
  'id: nightly',
  'inputs:',
  '  - id: day',
  '    type: string',
  '  - {id: region, type: string}',
  'tasks:',
  '  - id: extract',
  '    type: command',
  '    command: [echo, "{{ inputs.day }}"]',
  '  - {id: load, type: command, command: [true], depends_on: [extract]}',
].join('\n');

const labels = (before: string) => templateCompletions(before, doc)?.options.map((o) => o.label);

describe('template completion', () => {
  it('offers the roots and functions right inside the braces, nothing outside them', () => {
    assert.deepEqual(labels('    command: ["{{ '), ['inputs', 'vars', 'labels', 'execution', 'flow', 'tasks', 'trigger', 'secret', 'json', 'default']);
    assert.equal(templateCompletions('    command: ["{{ sec')?.options.find((o) => o.label === 'secret')?.apply, 'secret(');
    assert.equal(templateCompletions('    command: ["{{ sec')?.from, '    command: ["{{ '.length);
    assert.equal(templateCompletions('    command: [echo]'), null);
    assert.equal(templateCompletions('    command: ["{{ inputs.day }} '), null);
  });

  it('offers execution.start_date and trigger.date with what they hold', () => {
    const ex = templateCompletions('  env: {A: "{{ execution.', doc)!;
    assert.deepEqual(
      ex.options.map((o) => o.label),
      ['id', 'namespace', 'flow_id', 'start_date'],
    );
    assert.match(ex.options.find((o) => o.label === 'start_date')!.detail!, /RFC 3339/);
    const tr = templateCompletions('    inputs: {day: "{{ trigger.da', doc)!;
    assert.deepEqual(
      tr.options.map((o) => o.label),
      ['body', 'headers', 'outputs', 'date'],
    );
    assert.equal(tr.from, '    inputs: {day: "{{ trigger.'.length);
    assert.match(tr.options.find((o) => o.label === 'date')!.detail!, /schedule's offset/);
  });

  it("offers the flow's inputs and tasks, and a task's fields", () => {
    assert.deepEqual(labels('x: "{{ inputs.'), ['day', 'region']);
    assert.deepEqual(labels('x: "{{ tasks.'), ['extract', 'load']);
    assert.deepEqual(labels('x: "{{ tasks.extract.'), ['outputs', 'state', 'approval', 'files']);
    assert.deepEqual(labels('x: "{{ tasks.extract.approval.'), ['status', 'by', 'at', 'comment', 'inputs']);
    assert.equal(templateCompletions('x: "{{ tasks.extract.outputs.', doc), null, 'outputs are data the task writes: nothing known to offer');
  });

  it('offers item and item_index only in a task with for_each, and not in its for_each value', () => {
    const fan = [
      'id: fan',
      'env: {A: "{{ inputs.x }}"}',
      'tasks:',
      '  - {id: list, type: script, file: list.py}',
      '  - id: load',
      '    type: command',
      '    command: [echo, "{{ item }}"]',
      '    for_each: "{{ tasks.list.outputs.tables }}"',
      '    env: {N: "{{ item_index }}"}',
      '  - {id: ping, type: http, url: "https://x/{{ item }}", for_each: [a, b]}',
      '  - id: report',
      '    type: command',
      '    command: [echo, "{{ tasks.load.outputs }}"]',
      'outputs:',
      '  n: "{{ tasks.load.outputs }}"',
    ].join('\n');
    const roots = (before: string, line: number) =>
      templateCompletions(before, fan, line)
        ?.options.filter((o) => o.type === 'variable')
        .map((o) => o.label);
    const all = ['inputs', 'vars', 'labels', 'execution', 'flow', 'tasks', 'trigger'];
    assert.deepEqual(roots('    command: [echo, "{{ ', 6), [...all, 'item', 'item_index'], 'a line of the task before its for_each');
    assert.deepEqual(roots('    env: {N: "{{ ', 8), [...all, 'item', 'item_index'], 'a line after it');
    assert.deepEqual(roots('  - {id: ping, type: http, url: "https://x/{{ ', 9), [...all, 'item', 'item_index'], 'a flow-style task');
    assert.deepEqual(roots('    for_each: "{{ ', 7), all, 'the for_each value itself');
    assert.deepEqual(roots('    command: [echo, "{{ ', 12), all, 'a task without for_each');
    assert.deepEqual(roots('  n: "{{ ', 14), all, 'flow outputs');
    assert.deepEqual(roots('env: {A: "{{ ', 1), all, 'flow env');
    assert.deepEqual(roots('    command: [echo, "{{ ', -1), all, 'no line given');
    assert.match(templateCompletions('    command: [echo, "{{ ', fan, 6)!.options.find((o) => o.label === 'item_index')!.detail!, /0-based index/);
    assert.equal(inForEachTask(fan, 4), true);
    assert.equal(inForEachTask(fan, 3), false);
    assert.equal(inForEachTask(fan, 10), false);
  });

  it('reads ids from both list styles, under inputs and tasks only', () => {
    assert.deepEqual(declaredIds(doc), { inputs: ['day', 'region'], tasks: ['extract', 'load'] });
    assert.deepEqual(declaredIds('triggers:\n  - id: tick\ntasks:\n  - id: a\n'), { inputs: [], tasks: ['a'] });
  });
});
