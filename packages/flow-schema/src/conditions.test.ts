import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileCondition, ConditionError, evaluateCondition, isConditionExpression } from './conditions.js';
import { flowExtensions } from './extensions.js';
import { validateFlow } from './validate.js';

const scope = {
  inputs: { env: 'prod', limit: 2.5, list: ['a', 'b'] },
  tasks: { check: { outputs: { rows: 3, name: 'x' }, state: 'SUCCESS' } },
  labels: { team: 'data' },
};
const decide = (runIf: string) => evaluateCondition(compileCondition(runIf), scope);

describe('run_if expressions', () => {
  it('tells the expression form from the keywords', () => {
    assert.equal(isConditionExpression('success'), false);
    assert.equal(isConditionExpression(undefined), false);
    assert.equal(isConditionExpression("{{ inputs.env == 'prod' }}"), true);
    assert.equal(isConditionExpression('  {{ true }}\n'), true);
  });

  it('decides over inputs, task outputs and states, and labels', () => {
    assert.deepEqual(decide("{{ inputs.env == 'prod' && tasks.check.outputs.rows > 0 }}"), { ok: true, value: true });
    assert.deepEqual(decide("{{ inputs.env == 'dev' || tasks.check.outputs.rows > 5 }}"), { ok: true, value: false });
    // Whole JSON numbers are ints, so arithmetic with an int literal type-checks; others stay doubles.
    assert.deepEqual(decide('{{ tasks.check.outputs.rows + 1 == 4 }}'), { ok: true, value: true });
    assert.deepEqual(decide('{{ inputs.limit > 2.0 }}'), { ok: true, value: true });
    assert.deepEqual(decide("{{ tasks['check'].state == 'SUCCESS' && labels.team == 'data' }}"), { ok: true, value: true });
    assert.deepEqual(decide("{{ size(inputs.list) == 2 && 'b' in inputs.list }}"), { ok: true, value: true });
  });

  it('reports a missing key or a non-bool result as an error, never as false', () => {
    const missing = decide('{{ tasks.check.outputs.nope > 0 }}');
    assert.equal(missing.ok, false);
    assert.match(!missing.ok ? missing.error : '', /run_if \{\{ tasks\.check\.outputs\.nope > 0 \}\}: No such key: nope/);
    const notBool = decide('{{ inputs.env }}');
    assert.deepEqual(notBool, { ok: false, error: 'run_if {{ inputs.env }} gave "prod", not true or false' });
  });

  it('gives no way out of the data: no prototype, no constructor, no unknown name', () => {
    for (const e of ['{{ inputs.__proto__ == null }}', "{{ inputs['constructor'] == null }}"]) {
      const r = decide(e);
      assert.equal(r.ok, false, e);
    }
    assert.throws(
      () => compileCondition('{{ process.env.HOME == "x" }}'),
      (err: unknown) => err instanceof ConditionError && /Unknown variable: process/.test(err.message),
    );
    assert.throws(() => compileCondition("{{ vars.region == 'eu' }}"), /Unknown variable: vars/);
  });

  it('places a syntax error by line and column of the run_if value', () => {
    assert.throws(
      () => compileCondition("{{ inputs.env ==\n  'prod' && }}"),
      (err: unknown) => err instanceof ConditionError && err.line === 2 && err.column > 10 && /Unexpected token/.test(err.message),
    );
    assert.throws(() => compileCondition('{{ 1 + 2 }}'), /is of type int, not bool/);
    assert.throws(() => compileCondition('{{   }}'), /the expression is empty/);
  });

  it('lists the tasks it reads', () => {
    assert.deepEqual(compileCondition("{{ tasks.a.outputs.n > 0 && tasks['b_2'].state == 'SUCCESS' }}").taskRefs, ['a', 'b_2']);
  });
});

describe('run_if expressions at save', () => {
  const flow = (runIf: string, extra = '') =>
    validateFlow(
      [
        'id: cond',
        'inputs:',
        '  - {id: env, type: string}',
        'tasks:',
        '  - {id: check, type: command, command: [echo]}',
        `  - {id: load, type: command, command: [echo], depends_on: [check], run_if: ${JSON.stringify(runIf)}}`,
        extra,
      ].join('\n'),
    );

  it('accepts an expression over upstream tasks, and the keywords as before', () => {
    assert.deepEqual(flow("{{ inputs.env == 'prod' && tasks.check.outputs.rows > 0 }}").errors, []);
    assert.deepEqual(flow('always').errors, []);
  });

  it('refuses a syntax error with its place, a task not upstream, and a value neither keyword nor expression', () => {
    const syntax = flow('{{ inputs.env == }}').errors;
    assert.equal(syntax.length, 1);
    assert.equal(syntax[0]!.field, 'tasks[1].run_if');
    assert.equal(syntax[0]!.line, 6);
    assert.match(syntax[0]!.message, /has an expression error at column \d+: Unexpected token/);
    const later = flow("{{ tasks.report.state == 'SUCCESS' }}", '  - {id: report, type: command, command: [echo], depends_on: [load]}').errors;
    assert.match(later[0]!.message, /reads task "report", which is not upstream of "load"/);
    assert.match(flow("{{ tasks.chek.state == 'SUCCESS' }}").errors[0]!.message, /which the flow does not have \(did you mean "check"\?\)/);
    assert.match(flow('sometimes').errors[0]!.message, /must be success, failure, always, or one \{\{ expression \}\}/);
  });

  it('is listed as an extension of the specification', () => {
    const ok = flow("{{ inputs.env == 'prod' }}").flow!;
    assert.deepEqual(flowExtensions(ok), [{ pointer: '/tasks/1/run_if', field: 'tasks[1].run_if', what: 'run_if as an {{ expression }}' }]);
    assert.deepEqual(flowExtensions(flow('failure').flow!), []);
    assert.deepEqual(
      flow("{{ inputs.env == 'prod' }}").extensions?.map((e) => [e.field, e.line]),
      [['tasks[1].run_if', 6]],
      'validateFlow lists them with their lines',
    );
  });
});
