import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonNestsDeeper, MAX_JSON_DEPTH } from './json-depth.js';

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

test('nesting is measured over arrays and objects, up to the limit inclusive', () => {
  assert.equal(jsonNestsDeeper(nested(MAX_JSON_DEPTH)), false);
  assert.equal(jsonNestsDeeper(nested(MAX_JSON_DEPTH + 1)), true);
  assert.equal(jsonNestsDeeper('{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1)), true);
  assert.equal(jsonNestsDeeper('{"a":[{"b":[1,2,{"c":{}}]}]}', 6), false);
  assert.equal(jsonNestsDeeper('{"a":[{"b":[1,2,{"c":{}}]}]}', 5), true);
  assert.equal(jsonNestsDeeper('[[],[],[],[]]', 2), false, 'siblings do not add up');
});

test('brackets inside strings, escaped quotes included, do not count', () => {
  assert.equal(jsonNestsDeeper(JSON.stringify({ s: '[[[[[[[[[[' }), 2), false);
  assert.equal(jsonNestsDeeper(JSON.stringify({ s: 'a"[[[[[[\\"[[[[' }), 2), false);
  assert.equal(jsonNestsDeeper(JSON.stringify(['\\', [[[]]]]), 4), false);
  assert.equal(jsonNestsDeeper(JSON.stringify(['\\', [[[]]]]), 3), true);
});
