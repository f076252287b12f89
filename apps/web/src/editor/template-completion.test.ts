// Completion inside a flow file's `{{ … }}`: roots and functions, each root's
// fields as the validator knows them (execution.start_date, trigger.date
// among them), and the flow's own input and task ids.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { declaredIds, templateCompletions } from './template-completion.ts';

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
    assert.deepEqual(labels('x: "{{ tasks.extract.'), ['outputs', 'state']);
    assert.equal(templateCompletions('x: "{{ tasks.extract.outputs.', doc), null, 'outputs are data the task writes: nothing known to offer');
  });

  it('reads ids from both list styles, under inputs and tasks only', () => {
    assert.deepEqual(declaredIds(doc), { inputs: ['day', 'region'], tasks: ['extract', 'load'] });
    assert.deepEqual(declaredIds('triggers:\n  - id: tick\ntasks:\n  - id: a\n'), { inputs: [], tasks: ['a'] });
  });
});
