import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskRun } from '../api/types.js';
import { isItem, itemCountsText, latestItems, shortItem } from './fan-out.js';

const counts = (c: Partial<NonNullable<TaskRun['item_counts']>>) => ({
  total: 0,
  pending: 0,
  queued: 0,
  running: 0,
  success: 0,
  failed: 0,
  timed_out: 0,
  cancelled: 0,
  skipped: 0,
  ...c,
});
const run = (extra: Partial<TaskRun>) => ({ id: 'r', task_key: 'load', attempt: 1, state: 'SUCCESS', ...extra }) as TaskRun;

describe('fan-out in the CLI', () => {
  it('names the states that have items, ended ones first', () => {
    assert.equal(itemCountsText(run({ fan_out: 50, item_counts: counts({ total: 50, success: 47, failed: 3 }) })), '50 items: 47 success, 3 failed');
    assert.equal(itemCountsText(run({ fan_out: 5, item_counts: counts({ total: 5, running: 2, queued: 1, success: 2 }) })), '5 items: 2 success, 2 running, 1 queued');
    assert.equal(itemCountsText(run({ fan_out: 0, item_counts: counts({}) })), '0 items');
    assert.equal(itemCountsText(run({ fan_out: 1, item_counts: counts({ total: 1, success: 1 }) })), '1 item: 1 success');
    assert.equal(itemCountsText(run({})), '');
  });
  it('takes the latest attempt of each item, by index, and only items of the task', () => {
    const runs = [
      run({ id: 'p' }),
      run({ id: 'b1', item_index: 1, attempt: 1, state: 'FAILED' }),
      run({ id: 'a', item_index: 0 }),
      run({ id: 'b2', item_index: 1, attempt: 2 }),
      run({ id: 'x', task_key: 'other', item_index: 0 }),
    ];
    assert.deepEqual(
      latestItems(runs, 'load').map((r) => r.id),
      ['a', 'b2'],
    );
    assert.equal(isItem(runs[0]), false);
    assert.equal(isItem(runs[2]), true, 'index 0 is an item');
  });
  it('shortens item values', () => {
    assert.equal(shortItem('t01'), 't01');
    assert.equal(shortItem({ name: 'users' }), '{"name":"users"}');
    assert.equal(shortItem('x'.repeat(50), 10), `${'x'.repeat(9)}…`);
  });
});
