import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXECUTION_STATES, type ExecutionState, TASK_RUN_STATES, type TaskRunState } from './states.js';
import { canRerun, canRestart, EXECUTION_EVENTS, nextExecutionState, nextTaskRunState, TASK_RUN_EVENTS, type TransitionResult } from './transitions.js';

// Cell notation: `→S` the state becomes S; `=S` it stays S (changed: false);
// ` (r)` the reason recorded, `()` an emptied reason; `✗r` refused with r.
function cell(r: TransitionResult<string, string>): string {
  if (!r.ok) return `✗${r.refusal}`;
  return `${r.changed ? '→' : '='}${r.to}${r.reason === undefined ? '' : ` (${r.reason})`}`;
}

// Refusal shorthands, to keep the grids one row per state.
const XE = '✗execution_ended';
const XX = '✗execution_exists';
const XN = '✗execution_not_created';
const XQ = '✗execution_not_queued';
const XR = '✗execution_not_running';
const XC = '✗execution_not_cancelling';
const XG = '✗execution_cancelling';

const EXECUTION_COLUMNS = ['start', 'queue', 'skip', 'dequeue', 'cancel', 'cancel_done', 'time_out', 'succeed', 'fail', 'pause', 'resume'];
const EXECUTION_GRID: Record<ExecutionState | 'new', string[]> = {
  //          start       queue                       skip                         dequeue     cancel                 cancel_done           time_out              succeed      fail   pause   resume
  new: ['→RUNNING', '→QUEUED (concurrency_limit)', '→SKIPPED (concurrency_limit)', XN, XN, XN, XN, XN, XN, XN, XN],
  QUEUED: [XX, XX, XX, '→RUNNING', '→CANCELLED (cancelled)', XC, XR, XR, XR, XR, XR],
  RUNNING: [XX, XX, XX, XQ, '→CANCELLING', XC, '→TIMED_OUT (timeout)', '→SUCCESS', '→FAILED', '=RUNNING (paused)', '=RUNNING ()'],
  CANCELLING: [XX, XX, XX, XQ, '=CANCELLING', '→CANCELLED (cancelled)', '=CANCELLING', XG, XG, XG, XG],
  SUCCESS: [XE, XE, XE, XE, XE, XE, XE, XE, XE, XE, XE],
  FAILED: [XE, XE, XE, XE, XE, XE, XE, XE, XE, XE, XE],
  TIMED_OUT: [XE, XE, XE, XE, XE, XE, XE, XE, XE, XE, XE],
  CANCELLED: [XE, XE, XE, XE, XE, XE, XE, XE, XE, XE, XE],
  SKIPPED: [XE, XE, XE, XE, XE, XE, XE, XE, XE, XE, XE],
};

const TE = '✗task_run_ended';
const TX = '✗task_run_exists';
const TN = '✗task_run_not_created';
const TP = '✗task_run_not_pending';
const TQ = '✗task_run_not_queued';
const TR = '✗task_run_not_running';

const TASK_RUN_COLUMNS = [
  ...['create', 'reuse', 'queue', 'skip', 'condition_error', 'claim', 'no_instance', 'no_slot', 'succeed', 'fail', 'time_out', 'cancel', 'lose', 'shutdown'],
  ...['await_approval', 'approve', 'reject', 'approval_timeout', 'approval_timeout_skip', 'hold', 'release'],
];
// The columns of the approval gate and pause events (extensions), after the spec's.
const P7 = (x: string) => [x, x, x, x, x, x, x];
const TP7 = [...Array(5).fill('✗task_run_not_pending'), '✗task_run_not_queued', '✗task_run_not_queued'];
const TASK_RUN_GRID: Record<TaskRunState | 'new', string[]> = {
  //        create      reuse                queue       skip                             condition_error                claim       no_instance                       no_slot       succeed     fail        time_out                cancel                   lose               shutdown
  new: ['→PENDING', '→SUCCESS (reused)', '→QUEUED', TN, TN, TN, TN, TN, TN, TN, TN, TN, TN, TN, ...P7(TN)],
  PENDING: [
    ...[TX, TX, '→QUEUED', '→SKIPPED (condition_not_met)', '→FAILED (condition_error)', TQ, TQ, TQ, TR, TR, TR, '→CANCELLED (cancelled)', TR, TR],
    ...['=PENDING (awaiting_approval)', '=PENDING ()', '→FAILED (rejected)', '→FAILED (approval_timed_out)', '→SKIPPED (approval_timed_out)', TQ, TQ],
  ],
  QUEUED: [
    ...[TX, TX, TP, TP, TP, '→RUNNING', '=QUEUED (no_instance_for_pool)', '=QUEUED ()', TR, TR, TR, '→CANCELLED (cancelled)', TR, TR],
    ...[TP, TP, TP, TP, TP, '=QUEUED (paused)', '=QUEUED ()'],
  ],
  RUNNING: [TX, TX, TP, TP, TP, TQ, TQ, TQ, '→SUCCESS', '→FAILED', '→TIMED_OUT (timeout)', '→CANCELLED (cancelled)', '→FAILED (lost)', '→FAILED (instance_shutdown)', ...TP7],
  SUCCESS: [TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, ...P7(TE)],
  FAILED: [TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, ...P7(TE)],
  TIMED_OUT: [TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, ...P7(TE)],
  CANCELLED: [TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, ...P7(TE)],
  SKIPPED: [TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, TE, ...P7(TE)],
};

test('the expected grids cover exactly the cross product of states and events', () => {
  assert.deepEqual(EXECUTION_COLUMNS, [...EXECUTION_EVENTS]);
  assert.deepEqual(Object.keys(EXECUTION_GRID), ['new', ...EXECUTION_STATES]);
  for (const row of Object.values(EXECUTION_GRID)) assert.equal(row.length, EXECUTION_EVENTS.length);
  assert.deepEqual(TASK_RUN_COLUMNS, [...TASK_RUN_EVENTS]);
  assert.deepEqual(Object.keys(TASK_RUN_GRID), ['new', ...TASK_RUN_STATES]);
  for (const row of Object.values(TASK_RUN_GRID)) assert.equal(row.length, TASK_RUN_EVENTS.length);
});

for (const from of ['new', ...EXECUTION_STATES] as const) {
  EXECUTION_EVENTS.forEach((event, i) => {
    const expected = EXECUTION_GRID[from][i];
    test(`execution ${from} + ${event} ⇒ ${expected}`, () => {
      assert.equal(cell(nextExecutionState(from, event)), expected);
    });
  });
}

for (const from of ['new', ...TASK_RUN_STATES] as const) {
  TASK_RUN_EVENTS.forEach((event, i) => {
    const expected = TASK_RUN_GRID[from][i];
    test(`task run ${from} + ${event} ⇒ ${expected}`, () => {
      assert.equal(cell(nextTaskRunState(from, event)), expected);
    });
  });
}

test('cancel of an ended execution is refused with the 409 code execution_ended', () => {
  for (const s of ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'] as const) {
    assert.deepEqual(nextExecutionState(s, 'cancel'), { ok: false, refusal: 'execution_ended' });
  }
});

test('cancel while CANCELLING is accepted without a change of state', () => {
  assert.deepEqual(nextExecutionState('CANCELLING', 'cancel'), { ok: true, to: 'CANCELLING', changed: false });
});

test('every ok result of a move that keeps the state says changed: false, and only those', () => {
  for (const from of EXECUTION_STATES) {
    for (const e of EXECUTION_EVENTS) {
      const r = nextExecutionState(from, e);
      if (r.ok) assert.equal(r.changed, r.to !== from, `${from} + ${e}`);
    }
  }
  for (const from of TASK_RUN_STATES) {
    for (const e of TASK_RUN_EVENTS) {
      const r = nextTaskRunState(from, e);
      if (r.ok) assert.equal(r.changed, r.to !== from, `${from} + ${e}`);
    }
  }
});

test('rerun is allowed from FAILED, TIMED_OUT, CANCELLED and SUCCESS only', () => {
  assert.deepEqual(EXECUTION_STATES.filter(canRerun), ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED']);
});

test('restart from failed is allowed from FAILED, TIMED_OUT and CANCELLED only', () => {
  assert.deepEqual(EXECUTION_STATES.filter(canRestart), ['FAILED', 'TIMED_OUT', 'CANCELLED']);
});

test('an unknown state or event fails loudly rather than being refused', () => {
  assert.throws(() => nextExecutionState('BOGUS' as never, 'cancel'), /unexpected execution state/);
  assert.throws(() => nextExecutionState('toString' as never, 'cancel'), /unexpected execution state/);
  assert.throws(() => nextExecutionState('new', 'toString' as never), /unexpected execution event/);
  assert.throws(() => nextTaskRunState('RUNNING', 'bogus' as never), /unexpected task run event/);
  assert.throws(() => nextTaskRunState('new', 'bogus' as never), /unexpected task run event/);
  assert.throws(() => canRerun('BOGUS' as never), /unexpected execution state/);
});
