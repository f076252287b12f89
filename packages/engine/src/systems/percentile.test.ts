import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kth, percentilesCont } from './percentile.js';

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

/** `values` cut into sorted runs of random lengths (some empty). */
function runsOf(values: number[], rnd: () => number): Float64Array[] {
  const runs: Float64Array[] = [];
  for (let i = 0; i < values.length;) {
    const len = Math.floor(rnd() * 40);
    runs.push(Float64Array.from(values.slice(i, i + len)).sort());
    i += len;
  }
  return runs;
}

test('percentile_cont of known values: interpolation between the two values around p * (n - 1)', () => {
  const one = (xs: number[], p: number) => percentilesCont([Float64Array.from(xs).sort()], [p])[0];
  assert.deepEqual(percentilesCont([], [0.5, 0.95]), [null, null]);
  assert.deepEqual(percentilesCont([new Float64Array(0)], [0.5]), [null]);
  assert.equal(one([7], 0.95), 7);
  assert.equal(one([500, 300], 0.5), 400);
  assert.equal(one([500, 300], 0.95), 490);
  assert.equal(one([500, 100, 300, 200], 0.5), 250);
  assert.equal(one([1, 2, 3, 4, 5], 0.5), 3);
  assert.deepEqual(percentilesCont([Float64Array.of(300), Float64Array.of(100, 500)], [0.5, 0.95]), [300, 480]);
});

test('the k-th value and percentile_cont over sorted runs agree with a full sort: random, sorted, all equal, few distinct, large', () => {
  const rnd = lcg(17);
  const shapes: number[][] = [];
  for (const n of [1, 2, 3, 10, 101, 1000, 4097]) {
    shapes.push(Array.from({ length: n }, () => Math.floor(rnd() * 60_000)));
    shapes.push(Array.from({ length: n }, (_, i) => i));
    shapes.push(Array.from({ length: n }, () => 42));
    shapes.push(Array.from({ length: n }, () => Math.floor(rnd() * 3)));
    shapes.push(Array.from({ length: n }, () => Math.floor(rnd() * 2 ** 52)));
  }
  for (const values of shapes) {
    const runs = runsOf(values, rnd);
    const sorted = [...values].sort((a, b) => a - b);
    for (const k of [0, values.length >> 1, values.length - 1]) assert.equal(kth(runs, k), sorted[k]);
    const ps = [0, 0.25, 0.5, 0.95, 0.99, 1];
    assert.deepEqual(
      percentilesCont(runs, ps),
      ps.map((p) => reference(values, p)),
      `n=${values.length}`,
    );
  }
  assert.throws(() => kth([Float64Array.of(1)], 1), RangeError);
});
