import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { semanticCases } from '../test/fixtures/semantic-cases.js';
import { validFlows } from '../test/fixtures/valid-flows.js';
import { validateFlow } from './validate.js';

describe('validateFlow reports each semantic rule with its field, message and line', () => {
  for (const c of semanticCases) {
    it(c.name, () => {
      const { flow, errors } = validateFlow(`${c.src.join('\n')}\n`);
      assert.equal(flow, undefined);
      const mine = errors.filter((e) => e.field === c.field);
      assert.equal(mine.length, 1, `expected one error on ${c.field}, got ${JSON.stringify(errors, null, 1)}`);
      const [e] = mine;
      assert.ok(e?.message.includes(c.message), `message ${JSON.stringify(e?.message)} lacks ${JSON.stringify(c.message)}`);
      assert.equal(e?.line, c.line, `line of ${JSON.stringify(e)}`);
      assert.equal(errors.length, c.count ?? 1, `expected ${c.count ?? 1} errors, got ${JSON.stringify(errors, null, 1)}`);
    });
  }
});

describe('validateFlow accepts every valid example flow', () => {
  for (const v of validFlows) {
    it(v.name, () => {
      const { flow, errors } = validateFlow(v.src);
      assert.deepEqual(errors, []);
      assert.ok(flow);
    });
  }
});

describe('semantic errors come in source order and all at once', () => {
  it('reports a cycle, a missing dependency and a bad template together', () => {
    const src = [
      'id: demo',
      'tasks:',
      '  - {id: a, type: http, url: "https://x", depends_on: [b]}',
      '  - {id: b, type: http, url: "https://x", depends_on: [a, nope]}',
      '  - {id: c, type: http, url: "{{ inputs.missing }}"}',
    ].join('\n');
    const { errors } = validateFlow(src);
    assert.deepEqual(
      errors.map((e) => [e.field, e.line]),
      [
        ['tasks[1].depends_on', 4],
        ['tasks[1].depends_on[1]', 4],
        ['tasks[2].url', 5],
      ],
    );
  });
});
