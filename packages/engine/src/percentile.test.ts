import assert from 'node:assert/strict';
import { test } from 'node:test';
import { percentileCont, percentilesCont, select } from './percentile.js';

/** percentile_cont as PostgreSQL computes it, over a full sort (the reference). */
function reference(values: number[], p: number): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const pos = p * (s.length - 1);
  const first = Math.floor(pos);
  const second = Math.ceil(pos);
  return second === first ? s[first]! : s[first]! + (pos - first) * (s[second]! - s[first]!);
}

// A small deterministic generator (no randomness from outside).
function lcg(seed: number) {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

test('percentile_cont of known values: interpolation between the two values around p * (n - 1)', () => {
  assert.equal(percentileCont(new Float64Array([]), 0.5), null);
  assert.deepEqual(percentilesCont(new Float64Array([]), [0.5, 0.95]), [null, null]);
  assert.equal(percentileCont(new Float64Array([7]), 0.95), 7);
  assert.equal(percentileCont(new Float64Array([500, 300]), 0.5), 400);
  assert.equal(percentileCont(new Float64Array([500, 300]), 0.95), 490);
  assert.equal(percentileCont(new Float64Array([500, 100, 300, 200]), 0.5), 250);
  assert.equal(percentileCont(new Float64Array([1, 2, 3, 4, 5]), 0.5), 3);
});

test('select and percentileCont agree with a full sort on many shapes: random, sorted, reversed, all equal, few distinct', () => {
  const rnd = lcg(17);
  const shapes: number[][] = [];
  for (const n of [1, 2, 3, 10, 101, 1000, 4097]) {
    shapes.push(Array.from({ length: n }, () => Math.floor(rnd() * 60_000)));
    shapes.push(Array.from({ length: n }, (_, i) => i));
    shapes.push(Array.from({ length: n }, (_, i) => n - i));
    shapes.push(Array.from({ length: n }, () => 42));
    shapes.push(Array.from({ length: n }, () => Math.floor(rnd() * 3)));
    shapes.push(Array.from({ length: n }, () => Math.floor(rnd() * 2 ** 40)));
  }
  for (const values of shapes) {
    const sorted = [...values].sort((a, b) => a - b);
    for (const k of [0, values.length >> 1, values.length - 1]) assert.equal(select(Float64Array.from(values), k), sorted[k]);
    for (const p of [0, 0.5, 0.95, 0.99, 1]) assert.equal(percentileCont(Float64Array.from(values), p), reference(values, p), `n=${values.length} p=${p}`);
    // Several at once, on one array (each selection looks right of the previous one only).
    const ps = [0.95, 0.5, 0.25, 0.5];
    assert.deepEqual(percentilesCont(Float64Array.from(values), ps), ps.map((p) => reference(values, p)), `n=${values.length}`);
  }
});

test('select leaves the array partitioned around k', () => {
  const rnd = lcg(5);
  const a = Float64Array.from({ length: 999 }, () => Math.floor(rnd() * 50));
  const v = select(a, 300);
  for (let i = 0; i < 300; i++) assert.ok(a[i]! <= v);
  for (let i = 301; i < a.length; i++) assert.ok(a[i]! >= v);
  assert.throws(() => select(a, 999), RangeError);
});
