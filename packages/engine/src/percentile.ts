// Exact percentiles with PostgreSQL's percentile_cont semantics, computed
// over durations the dashboard fetched (its rollup keeps every duration, so
// no sketch and no approximation): the value at position p * (n - 1) of the
// sorted values, interpolated linearly between the two values around it, in
// the very float operations PostgreSQL uses (float8_lerp), so the results are
// the same numbers, bit for bit.
//
// Selection instead of a sort: a 30-day dashboard holds ~400,000 durations;
// on the benchmark machine (busy), sorting them (Float64Array.prototype.sort)
// took 50 to 70 ms, selecting their median 6 to 13 ms.

/**
 * percentile_cont of `values` (any order) at each fraction of `ps`, or null
 * for each when there are no values. Reorders `values` in place.
 */
export function percentilesCont(values: Float64Array, ps: readonly number[]): (number | null)[] {
  const n = values.length;
  if (n === 0) return ps.map(() => null);
  const positions = ps.map((p) => p * (n - 1));
  const ranks = [...new Set(positions.flatMap((pos) => [Math.floor(pos), Math.ceil(pos)]))].sort((a, b) => a - b);
  const at = new Map<number, number>();
  // Each selection leaves larger values to the right of its rank: the next rank is looked for there only.
  let left = 0;
  for (const r of ranks) {
    at.set(r, select(values.subarray(left), r - left));
    left = r + 1;
  }
  return positions.map((pos) => {
    const first = Math.floor(pos);
    const lo = at.get(first)!;
    const hi = at.get(Math.ceil(pos))!;
    return first === pos ? lo : lo + (pos - first) * (hi - lo);
  });
}

/** percentile_cont(p) of `values` (any order), or null when there are none. Reorders `values` in place. */
export function percentileCont(values: Float64Array, p: number): number | null {
  return percentilesCont(values, [p])[0]!;
}

/**
 * The k-th smallest value (from 0), leaving `a` partitioned around it:
 * a[i] <= a[k] left of k and a[i] >= a[k] right of it. Quickselect with a
 * median-of-three pivot and a three-way partition, so runs of equal values
 * (durations repeat) cost nothing extra.
 */
export function select(a: Float64Array, k: number): number {
  if (!(k >= 0 && k < a.length)) throw new RangeError(`select: k=${k} outside 0..${a.length - 1}`);
  let left = 0;
  let right = a.length - 1;
  while (left < right) {
    const pivot = median3(a[left]!, a[(left + right) >>> 1]!, a[right]!);
    // Three-way partition of [left, right]: < pivot | == pivot | > pivot.
    let lt = left;
    let gt = right;
    let i = left;
    while (i <= gt) {
      const v = a[i]!;
      if (v < pivot) {
        a[i] = a[lt]!;
        a[lt] = v;
        lt++;
        i++;
      } else if (v > pivot) {
        a[i] = a[gt]!;
        a[gt] = v;
        gt--;
      } else i++;
    }
    if (k < lt) right = lt - 1;
    else if (k > gt) left = gt + 1;
    else return pivot;
  }
  return a[k]!;
}

function median3(x: number, y: number, z: number): number {
  if (x < y) return y < z ? y : x < z ? z : x;
  return x < z ? x : y < z ? z : y;
}
