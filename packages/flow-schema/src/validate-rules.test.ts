import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { schemaCases as cases } from '../test/fixtures/schema-cases.js';
import { validateFlow } from './validate.js';

describe('validateFlow reports one error per broken rule', () => {
  for (const c of cases) {
    it(c.name, () => {
      const { flow, errors } = validateFlow(`${c.src.join('\n')}\n`);
      assert.equal(flow, undefined);
      const mine = errors.filter((e) => e.field === c.field);
      assert.equal(mine.length, 1, `expected one error on ${c.field}, got ${JSON.stringify(errors, null, 1)}`);
      const [e] = mine;
      assert.ok(e?.message.includes(c.message), `message ${JSON.stringify(e?.message)} lacks ${JSON.stringify(c.message)}`);
      assert.equal(e?.line, c.line, `line of ${JSON.stringify(e)}`);
      assert.equal(typeof e?.column, 'number');
      assert.equal(errors.length, c.count ?? 1, `expected ${c.count ?? 1} errors, got ${JSON.stringify(errors, null, 1)}`);
    });
  }
});
