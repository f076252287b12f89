// Docker's limits read the flow's quantities as Kubernetes reads them, so a
// task gets the same memory and CPU under either executor.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QUANTITY_EXAMPLES, parseQuantity, quantityScaled } from '@svc/vocabulary';
import { memoryBytes, nanoCpus } from './container-task.js';

test("Docker's Memory and NanoCpus are Kubernetes' value of every example quantity, rounded up; a refused or negative text throws", () => {
  for (const [text, want] of QUANTITY_EXAMPLES) {
    if (want === null || want.startsWith('-')) {
      assert.throws(() => memoryBytes(text), /not a memory quantity/, JSON.stringify(text));
      assert.throws(() => nanoCpus(text), /not a cpu quantity/, JSON.stringify(text));
      continue;
    }
    const q = parseQuantity(text)!;
    assert.equal(memoryBytes(text), Number(quantityScaled(q, 0)), JSON.stringify(text));
    assert.equal(nanoCpus(text), Number(quantityScaled(q, 9)), JSON.stringify(text));
  }
});

test('k is 1000 and Ki 1024; K is refused, as Kubernetes refuses it', () => {
  assert.equal(memoryBytes('1k'), 1000);
  assert.equal(memoryBytes('1Ki'), 1024);
  assert.equal(memoryBytes('512Mi'), 536_870_912);
  assert.equal(memoryBytes('1e3'), 1000);
  assert.equal(memoryBytes('0.5'), 1);
  assert.throws(() => memoryBytes('1K'), /not a memory quantity: 1K/);
  assert.equal(nanoCpus('500m'), 500_000_000);
  assert.equal(nanoCpus('.5'), 500_000_000);
  assert.equal(nanoCpus('1n'), 1);
});
