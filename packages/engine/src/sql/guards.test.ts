import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLAIMS_TASK_RUN, DEQUEUES_EXECUTION, ENDS_EXECUTION, ENDS_TASK_RUN, executionFrom, QUEUES_TASK_RUN, STOPS_UNSTARTED_TASK_RUN, taskRunFrom } from './guards.js';

test("the guards of the state-changing statements are the transition tables' own states", () => {
  assert.equal(ENDS_TASK_RUN, "('RUNNING')");
  assert.equal(CLAIMS_TASK_RUN, "('QUEUED')");
  assert.equal(QUEUES_TASK_RUN, "('PENDING')");
  assert.equal(STOPS_UNSTARTED_TASK_RUN, "('PENDING', 'QUEUED')");
  assert.equal(taskRunFrom('cancel'), "('PENDING', 'QUEUED', 'RUNNING')");
  assert.equal(ENDS_EXECUTION, "('RUNNING', 'CANCELLING')");
  assert.equal(DEQUEUES_EXECUTION, "('QUEUED')");
  assert.equal(executionFrom('cancel'), "('QUEUED', 'RUNNING', 'CANCELLING')");
});

test('events no state allows give no guard rather than one that matches nothing', () => {
  assert.throws(() => taskRunFrom('claim', 'create'), /at least one state/);
});
