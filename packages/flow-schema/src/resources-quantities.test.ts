import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QUANTITY_EXAMPLES, parseQuantity } from '@svc/vocabulary';
import { QUANTITY_PATTERN } from './schema/patterns.js';
import { validateFlow, validateFlowValue } from './validate.js';

const flowWith = (resources: unknown) => ({ id: 'q', tasks: [{ id: 'a', type: 'command', command: ['true'], executor: { type: 'kubernetes', image: 'alpine', resources } }] });

describe("a flow's resources take exactly the quantities Kubernetes takes", () => {
  it('the schema pattern and the parser agree on every Kubernetes example', () => {
    const pattern = new RegExp(QUANTITY_PATTERN, 'u');
    for (const [text, want] of QUANTITY_EXAMPLES) {
      assert.equal(pattern.test(text), want !== null, `pattern: ${JSON.stringify(text)}`);
      assert.equal(parseQuantity(text) !== null, want !== null, `parser: ${JSON.stringify(text)}`);
    }
  });

  it('a flow validates with every example Kubernetes would take as a resource, for cpu and memory alike', () => {
    for (const [text, want] of QUANTITY_EXAMPLES) {
      for (const name of ['cpu', 'memory']) {
        const { errors } = validateFlowValue(flowWith({ limits: { [name]: text } }));
        // The API server refuses a negative resource, though the grammar reads one.
        const takes = want !== null && !want.startsWith('-');
        assert.equal(errors.length === 0, takes, `${name}: ${JSON.stringify(text)}: ${errors.map((e) => e.message).join('; ')}`);
      }
    }
  });

  it('K (upper case) and 1Kb are refused with the grammar in the message, k and 1e3 taken', () => {
    const { errors } = validateFlowValue(flowWith({ limits: { memory: '1K' } }));
    assert.match(errors[0]?.message ?? '', /must be a Kubernetes quantity such as .*suffixes n, u, m, k, M, G, T, P, E, Ki/);
    assert.equal(validateFlowValue(flowWith({ limits: { memory: '1Kb' } })).errors.length, 1);
    assert.deepEqual(validateFlowValue(flowWith({ limits: { memory: '1k', cpu: '1e3' } })).errors, []);
  });

  it('a negative quantity and a request above its limit are refused, with the line', () => {
    const src = [
      'id: q',
      'tasks:',
      '  - id: a',
      '    type: command',
      '    command: ["true"]',
      '    executor:',
      '      type: kubernetes',
      '      image: alpine',
      '      resources:',
      '        requests: {cpu: "2", memory: "-1Mi"}',
      '        limits: {cpu: 1500m}',
      '',
    ].join('\n');
    const { errors } = validateFlow(src);
    assert.deepEqual(
      errors.map((e) => [e.field, e.message, e.line]),
      [
        ['tasks[0].executor.resources.requests.cpu', 'tasks[0].executor.resources.requests.cpu (2) must not be more than tasks[0].executor.resources.limits.cpu (1500m)', 10],
        ['tasks[0].executor.resources.requests.memory', 'tasks[0].executor.resources.requests.memory must not be negative, got "-1Mi"', 10],
      ],
    );
  });
});
