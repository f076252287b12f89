import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planItems, type ItemRun, type ItemsInput } from './items.js';
import { PlanInputError } from './plan.js';
import type { TaskRunState } from './states.js';

const runs = (...states: TaskRunState[]): ItemRun[] => states.map((state, index) => ({ index, attempt: 1, state }));
const input = (over: Partial<ItemsInput>): ItemsInput => ({
  count: over.runs?.length ?? 0,
  runs: [],
  concurrency: 0,
  budget: Infinity,
  maxAttempts: 1,
  failFast: false,
  stopping: null,
  ...over,
});

describe('planItems', () => {
  it('queues every pending item when nothing bounds them', () => {
    assert.deepEqual(planItems(input({ runs: runs('PENDING', 'PENDING', 'PENDING') })), { queue: [0, 1, 2], retry: [], cancel: [] });
  });

  it('keeps at most for_each_concurrency items queued or running, in index order', () => {
    const p = planItems(input({ runs: runs('SUCCESS', 'RUNNING', 'PENDING', 'PENDING', 'PENDING'), concurrency: 2 }));
    assert.deepEqual(p.queue, [2]);
    const full = planItems(input({ runs: runs('RUNNING', 'QUEUED', 'PENDING'), concurrency: 2 }));
    assert.deepEqual(full.queue, []);
  });

  it("the flow's max_parallel budget bounds what is queued too", () => {
    assert.deepEqual(planItems(input({ runs: runs('PENDING', 'PENDING', 'PENDING'), concurrency: 3, budget: 1 })).queue, [0]);
    assert.deepEqual(planItems(input({ runs: runs('PENDING', 'PENDING'), budget: 0 })).queue, []);
  });

  it('ends SUCCESS when every item succeeded, and at once for no items', () => {
    assert.deepEqual(planItems(input({ runs: runs('SUCCESS', 'SUCCESS') })).end, { state: 'SUCCESS' });
    assert.deepEqual(planItems(input({ count: 0, runs: [] })).end, { state: 'SUCCESS' });
  });

  it('retries a failed item with attempts left; its latest attempt counts', () => {
    const p = planItems(input({ runs: runs('SUCCESS', 'FAILED'), maxAttempts: 2 }));
    assert.deepEqual(p.retry, [{ index: 1, attempt: 2 }]);
    assert.equal(p.end, undefined);
    const second = planItems(
      input({
        count: 2,
        runs: [...runs('SUCCESS', 'FAILED'), { index: 1, attempt: 2, state: 'SUCCESS' }],
        maxAttempts: 2,
      }),
    );
    assert.deepEqual(second, { queue: [], retry: [], cancel: [], end: { state: 'SUCCESS' } });
  });

  it('a failed item fails the parent only after the others end, naming the first failed item', () => {
    const r = runs('SUCCESS', 'FAILED', 'RUNNING', 'FAILED');
    (r[1] as ItemRun).error = 'exit code 3';
    const p = planItems(input({ runs: r }));
    assert.equal(p.end, undefined, 'item 2 still runs');
    const done = planItems(input({ runs: r.map((x) => (x.index === 2 ? { ...x, state: 'SUCCESS' as const } : x)) }));
    assert.deepEqual(done.end, { state: 'FAILED', failedIndex: 1, error: 'item 1 failed: exit code 3' });
  });

  it('without fail_fast the other items still start after a failure', () => {
    assert.deepEqual(planItems(input({ runs: runs('FAILED', 'PENDING', 'PENDING'), concurrency: 1 })).queue, [1]);
  });

  it('fail_fast cancels the items not started and ends once the running ones end', () => {
    const p = planItems(input({ runs: runs('FAILED', 'RUNNING', 'QUEUED', 'PENDING'), failFast: true }));
    assert.deepEqual(
      p.cancel.map((c) => [c.index, c.reason]),
      [
        [2, 'cancelled'],
        [3, 'cancelled'],
      ],
    );
    assert.match(p.cancel[0]!.error, /item 0 failed \(fail_fast\)/);
    assert.deepEqual(p.queue, []);
    assert.equal(p.end, undefined, 'item 1 is still running');
    const later = planItems(input({ runs: runs('FAILED', 'SUCCESS', 'CANCELLED', 'CANCELLED'), failFast: true }));
    assert.deepEqual(later.end?.state, 'FAILED');
    assert.equal(later.end?.failedIndex, 0);
  });

  it('fail_fast waits for a retry: a failure with attempts left is not final', () => {
    const p = planItems(input({ runs: runs('FAILED', 'PENDING'), failFast: true, maxAttempts: 3 }));
    assert.deepEqual(p.retry, [{ index: 0, attempt: 2 }]);
    assert.deepEqual(p.cancel, []);
    assert.deepEqual(p.queue, [1]);
  });

  it('a condition_error is never retried', () => {
    const r: ItemRun[] = [{ index: 0, attempt: 1, state: 'FAILED', reason: 'condition_error' }];
    assert.deepEqual(planItems(input({ runs: r, maxAttempts: 3 })).retry, []);
  });

  it('stopping cancels unstarted items and ends CANCELLED once none runs', () => {
    const p = planItems(input({ runs: runs('SUCCESS', 'RUNNING', 'QUEUED', 'PENDING'), stopping: 'cancel' }));
    assert.deepEqual(
      p.cancel.map((c) => [c.index, c.reason]),
      [
        [2, 'cancelled'],
        [3, 'cancelled'],
      ],
    );
    assert.equal(p.end, undefined);
    const t = planItems(input({ runs: runs('SUCCESS', 'PENDING'), stopping: 'timeout' }));
    assert.deepEqual(t.cancel, [{ index: 1, reason: 'execution_timed_out', error: '' }]);
    assert.deepEqual(t.end, { state: 'CANCELLED' });
  });

  it('refuses runs that do not cover the items', () => {
    assert.throws(() => planItems(input({ count: 2, runs: runs('PENDING') })), PlanInputError);
    assert.throws(() => planItems(input({ count: 1, runs: runs('PENDING', 'PENDING') })), PlanInputError);
  });

  it('never queues more than the concurrency over a whole run (simulation)', () => {
    const states: TaskRunState[] = Array(50).fill('PENDING');
    let maxActive = 0;
    for (let step = 0; step < 200; step++) {
      const p = planItems(input({ runs: states.map((state, index) => ({ index, attempt: 1, state })), concurrency: 4 }));
      for (const i of p.queue) states[i] = 'QUEUED';
      maxActive = Math.max(maxActive, states.filter((s) => s === 'QUEUED' || s === 'RUNNING').length);
      if (p.end) break;
      // The oldest active item moves one step: QUEUED -> RUNNING -> SUCCESS.
      const i = states.findIndex((s) => s === 'QUEUED' || s === 'RUNNING');
      if (i >= 0) states[i] = states[i] === 'QUEUED' ? 'RUNNING' : 'SUCCESS';
    }
    assert.equal(maxActive, 4);
    assert.ok(states.every((s) => s === 'SUCCESS'));
  });
});
