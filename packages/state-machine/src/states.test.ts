import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXECUTION_STATES, isExecutionEnded, isExecutionState, isTaskRunEnded, isTaskRunState, TASK_RUN_STATES } from './states.js';

test('the eight execution states, five of them end states', () => {
  assert.equal(EXECUTION_STATES.length, 8);
  assert.deepEqual(EXECUTION_STATES.filter(isExecutionEnded), ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED']);
});

test('the eight task run states, five of them end states', () => {
  assert.equal(TASK_RUN_STATES.length, 8);
  assert.deepEqual(TASK_RUN_STATES.filter(isTaskRunEnded), ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED']);
});

test('state guards accept only the spec names', () => {
  assert.equal(isExecutionState('CANCELLING'), true);
  assert.equal(isExecutionState('PENDING'), false);
  assert.equal(isTaskRunState('PENDING'), true);
  assert.equal(isTaskRunState('running'), false);
  assert.throws(() => isExecutionEnded('BOGUS' as never), /unexpected execution state/);
});
