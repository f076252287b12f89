import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseOutputs } from './outputs.js';

test('merges outputs and collects metrics, later lines winning', () => {
  const r = parseOutputs(
    [
      '{"outputs": {"a": 1, "b": "x"}}',
      '',
      '{"metrics": [{"name": "rows", "value": 42, "tags": {"table": "users"}}, {"name": "t", "value": 1.5}]}',
      '{"outputs": {"a": 2}, "metrics": [{"name": "n", "value": 0}]}',
    ].join('\n'),
  );
  assert.deepEqual(r.outputs, { a: 2, b: 'x' });
  assert.deepEqual(r.metrics, [
    { name: 'rows', value: 42, tags: { table: 'users' } },
    { name: 't', value: 1.5 },
    { name: 'n', value: 0 },
  ]);
  assert.deepEqual(r.warnings, []);
});

test('a bad line is ignored whole and becomes a warning naming its line', () => {
  const r = parseOutputs(
    ['not json', '{"outputs": {"ok": true}}', '[1,2]', '{"outputs": {"half": 1}, "metrics": [{"name": "x", "value": "NaN"}]}', '{"other": 1}', '{"outputs": []}'].join('\n'),
  );
  assert.deepEqual(r.outputs, { ok: true });
  assert.deepEqual(r.metrics, []);
  assert.equal(r.warnings.length, 5);
  assert.match(r.warnings[0]!, /^\[svc\] outputs line 1 ignored: not valid JSON$/);
  assert.match(r.warnings[1]!, /^\[svc\] outputs line 3 ignored: not a JSON object/);
  assert.match(r.warnings[2]!, /^\[svc\] outputs line 4 ignored: metrics\[0\]: "value"/);
  assert.match(r.warnings[3]!, /^\[svc\] outputs line 5 ignored: unknown key "other"/);
  assert.match(r.warnings[4]!, /^\[svc\] outputs line 6 ignored: "outputs" must be an object/);
});

test('a line nesting deeper than the service stores is ignored with a warning, the rest kept', () => {
  const deep = '{"outputs": {"d": ' + '['.repeat(200) + ']'.repeat(200) + '}}';
  const r = parseOutputs(['{"outputs": {"a": 1}}', deep].join('\n'));
  assert.deepEqual(r.outputs, { a: 1 });
  assert.deepEqual(r.warnings, ['[svc] outputs line 2 ignored: nests deeper than 64 levels']);
});
