import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QUANTITY_PATTERN, compareQuantities, parseQuantity, quantityScaled } from './quantity.js';
import { QUANTITY_EXAMPLES } from './quantity-examples.js';

test('every Kubernetes quantity example parses to the value Kubernetes gives it, and every refused text is refused', () => {
  for (const [text, want] of QUANTITY_EXAMPLES) {
    assert.equal(parseQuantity(text)?.nanos.toString() ?? null, want, JSON.stringify(text));
  }
});

test('the JSON Schema pattern accepts exactly the texts the parser accepts', () => {
  const pattern = new RegExp(QUANTITY_PATTERN, 'u');
  for (const [text, want] of QUANTITY_EXAMPLES) assert.equal(pattern.test(text), want !== null, JSON.stringify(text));
});

test('scaled values round away from zero: bytes, millicores and nano CPUs', () => {
  const q = (t: string) => parseQuantity(t)!;
  assert.equal(quantityScaled(q('512Mi'), 0), 536870912n);
  assert.equal(quantityScaled(q('1.5'), 0), 2n);
  assert.equal(quantityScaled(q('0.1n'), 0), 1n);
  assert.equal(quantityScaled(q('-1.5'), 0), -2n);
  assert.equal(quantityScaled(q('250m'), 3), 250n);
  assert.equal(quantityScaled(q('0.5'), 9), 500000000n);
  assert.equal(quantityScaled(q('1k'), 0), 1000n);
});

test('quantities compare by value, whatever their suffix', () => {
  const cmp = (a: string, b: string) => compareQuantities(parseQuantity(a)!, parseQuantity(b)!);
  assert.equal(cmp('1Ki', '1k'), 1);
  assert.equal(cmp('1000m', '1'), 0);
  assert.equal(cmp('1e3', '1k'), 0);
  assert.equal(cmp('500m', '.5'), 0);
  assert.equal(cmp('1Gi', '1G'), 1);
});
