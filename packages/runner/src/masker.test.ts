import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineMasker, maskValuesForLines } from './masker.js';

test('masks every occurrence of every value', () => {
  const m = new LineMasker(['s3cret', 'tok']);
  assert.equal(m.mask('a s3cret b tok c s3cret'), 'a *** b *** c ***');
});

test('the longest value wins where values overlap, so no tail of a secret leaks', () => {
  const m = new LineMasker(['abc', 'abcdef']);
  assert.equal(m.mask('xabcdefx abc'), 'x***x ***');
});

test('empty values are ignored and regex characters are literal', () => {
  const m = new LineMasker(['', 'a.b*c', '(x)']);
  assert.equal(m.mask('a.b*c axbbc (x) x'), '*** axbbc *** x');
  assert.equal(new LineMasker(['']).mask('unchanged'), 'unchanged');
  assert.equal(new LineMasker([]).mask('unchanged'), 'unchanged');
});

test('straddleStart finds a value that a cut would split', () => {
  const m = new LineMasker(['SECRET']);
  const text = 'xxxxSECRETyyyy';
  assert.equal(m.straddleStart(text, 6), 4);
  assert.equal(m.straddleStart(text, 4), -1); // cut right before it
  assert.equal(m.straddleStart(text, 10), -1); // cut right after it
});

test('lines of a multi-line secret are masked one by one', () => {
  const values = maskValuesForLines(['-----BEGIN KEY-----\nAAAABBBB\n}\n-----END KEY-----']);
  const m = new LineMasker(values);
  assert.equal(m.mask('key line AAAABBBB here'), 'key line *** here');
  assert.equal(m.mask('}'), '}', 'short lines are left alone');
});
