import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plan, PlanInputError, type Plan, type PlanInput, type PlanRun, type PlanTask, type RunIf } from './plan.js';
import { TASK_RUN_STATES, type TaskRunState } from './states.js';

const t = (id: string, dependsOn: string[] = [], runIf: RunIf = 'success', maxAttempts?: number): PlanTask => ({ id, dependsOn, runIf, ...(maxAttempts ? { maxAttempts } : {}) });

/** Attempt-1 runs from `{ task: state }`, with an error named after the task on failures. */
function runs(states: Record<string, TaskRunState>): PlanRun[] {
  return Object.entries(states).map(([taskKey, state]) => ({
    taskKey,
    attempt: 1,
    state,
    ...(state === 'FAILED' || state === 'TIMED_OUT' ? { error: `${taskKey} broke` } : {}),
  }));
}

/** Deep-freezes the input so a planner that mutated it would throw. */
function frozen(input: PlanInput): PlanInput {
  for (const x of input.tasks) (Object.freeze(x.dependsOn), Object.freeze(x));
  for (const r of input.runs) Object.freeze(r);
  (Object.freeze(input.tasks), Object.freeze(input.runs));
  return Object.freeze(input);
}

const planOf = (tasks: PlanTask[], states: Record<string, TaskRunState>, maxParallel = 0, stopping: PlanInput['stopping'] = null): Plan =>
  plan(frozen({ tasks, maxParallel, runs: runs(states), stopping }));

const skipped = (...keys: string[]) => keys.map((taskKey) => ({ taskKey, reason: 'condition_not_met' as const }));

// --- run_if against every pair of ended dependency states -------------------------------------

const ENDED = ['SUCCESS', 'FAILED', 'TIMED_OUT', 'SKIPPED', 'CANCELLED'] as const;

// Rows: first dependency; columns: second dependency, in ENDED order. Q = queued, S = skipped.
const RUN_IF_GRID: Record<Exclude<RunIf, 'expression'>, Record<(typeof ENDED)[number], string>> = {
  //                 SUCCESS FAILED TIMED_OUT SKIPPED CANCELLED
  success: { SUCCESS: 'Q S S S S', FAILED: 'S S S S S', TIMED_OUT: 'S S S S S', SKIPPED: 'S S S S S', CANCELLED: 'S S S S S' },
  failure: { SUCCESS: 'S Q Q S S', FAILED: 'Q Q Q Q Q', TIMED_OUT: 'Q Q Q Q Q', SKIPPED: 'S Q Q S S', CANCELLED: 'S Q Q S S' },
  always: { SUCCESS: 'Q Q Q Q Q', FAILED: 'Q Q Q Q Q', TIMED_OUT: 'Q Q Q Q Q', SKIPPED: 'Q Q Q Q Q', CANCELLED: 'Q Q Q Q Q' },
};

for (const runIf of ['success', 'failure', 'always'] as const) {
  test(`run_if ${runIf}: every pair of ended dependency states decides the task, and the end follows in the same plan`, () => {
    for (const a of ENDED) {
      ENDED.forEach((b, j) => {
        const expected = RUN_IF_GRID[runIf][a].split(' ')[j];
        const p = planOf([t('a'), t('b'), t('c', ['a', 'b'], runIf)], { a, b, c: 'PENDING' });
        const what = `${runIf} with a=${a} b=${b}`;
        if (expected === 'Q') {
          assert.deepEqual(p, { queue: ['c'], retry: [], skip: [], cancel: [] }, what);
        } else {
          const failed = [a, b].findIndex((s) => s === 'FAILED' || s === 'TIMED_OUT');
          const end = failed < 0 ? { state: 'SUCCESS' } : { state: 'FAILED', failedTask: 'ab'[failed], error: `${'ab'[failed]} broke` };
          assert.deepEqual(p, { queue: [], retry: [], skip: skipped('c'), cancel: [], end }, what);
        }
      });
    }
  });
}

test('a dependency still PENDING, QUEUED or RUNNING leaves the task undecided, whatever the other one and run_if', () => {
  for (const runIf of ['success', 'failure', 'always'] as const) {
    for (const open of ['PENDING', 'QUEUED', 'RUNNING'] as const) {
      for (const other of TASK_RUN_STATES) {
        for (const [a, b] of [
          [open, other],
          [other, open],
        ]) {
          // a and b get a dependency of their own, so a PENDING one is not queued by this plan.
          const p = planOf([t('root'), t('a', ['root']), t('b', ['root']), t('c', ['a', 'b'], runIf)], { root: 'RUNNING', a, b, c: 'PENDING' });
          const what = `${runIf} with a=${a} b=${b}`;
          assert.deepEqual(p, { queue: [], retry: [], skip: [], cancel: [] }, what);
        }
      }
    }
  }
});

test('tasks without dependencies are queued at once, whatever their run_if', () => {
  const p = planOf([t('a'), t('b', [], 'failure'), t('c', [], 'always')], { a: 'PENDING', b: 'PENDING', c: 'PENDING' });
  assert.deepEqual(p, { queue: ['a', 'b', 'c'], retry: [], skip: [], cancel: [] });
});

// --- graphs ------------------------------------------------------------------------------------

test('a chain runs one task after the other and ends SUCCESS', () => {
  const tasks = [t('a'), t('b', ['a']), t('c', ['b'])];
  assert.deepEqual(planOf(tasks, { a: 'PENDING', b: 'PENDING', c: 'PENDING' }).queue, ['a']);
  assert.deepEqual(planOf(tasks, { a: 'SUCCESS', b: 'PENDING', c: 'PENDING' }).queue, ['b']);
  assert.deepEqual(planOf(tasks, { a: 'SUCCESS', b: 'SUCCESS', c: 'PENDING' }), { queue: ['c'], retry: [], skip: [], cancel: [] });
  assert.deepEqual(planOf(tasks, { a: 'SUCCESS', b: 'SUCCESS', c: 'SUCCESS' }), { queue: [], retry: [], skip: [], cancel: [], end: { state: 'SUCCESS' } });
});

test('a failure at the head of a chain skips the rest in one plan and ends FAILED', () => {
  const p = planOf([t('a'), t('b', ['a']), t('c', ['b'])], { a: 'FAILED', b: 'PENDING', c: 'PENDING' });
  assert.deepEqual(p, { queue: [], retry: [], skip: skipped('b', 'c'), cancel: [], end: { state: 'FAILED', failedTask: 'a', error: 'a broke' } });
});

test('skips cascade whatever the task list order, and are listed in that order', () => {
  const p = planOf([t('d', ['c']), t('c', ['b']), t('b', ['a']), t('a')], { a: 'TIMED_OUT', b: 'PENDING', c: 'PENDING', d: 'PENDING' });
  assert.deepEqual(p, { queue: [], retry: [], skip: skipped('d', 'c', 'b'), cancel: [], end: { state: 'FAILED', failedTask: 'a', error: 'a broke' } });
});

test('a cascade of skips can make an always task runnable in the same plan', () => {
  // a fails; b (success) is skipped; c (failure on b) is skipped, since SKIPPED is no failure; d (always on c) runs.
  const tasks = [t('a'), t('b', ['a']), t('c', ['b'], 'failure'), t('d', ['c'], 'always')];
  const p = planOf(tasks, { a: 'FAILED', b: 'PENDING', c: 'PENDING', d: 'PENDING' });
  assert.deepEqual(p, { queue: ['d'], retry: [], skip: skipped('b', 'c'), cancel: [] });
});

test('a diamond waits for both branches, then follows run_if', () => {
  const diamond = (runIf: RunIf) => [t('a'), t('b', ['a']), t('c', ['a']), t('d', ['b', 'c'], runIf)];
  assert.deepEqual(planOf(diamond('success'), { a: 'SUCCESS', b: 'PENDING', c: 'PENDING', d: 'PENDING' }).queue, ['b', 'c']);
  assert.deepEqual(planOf(diamond('success'), { a: 'SUCCESS', b: 'SUCCESS', c: 'RUNNING', d: 'PENDING' }), { queue: [], retry: [], skip: [], cancel: [] });
  assert.deepEqual(planOf(diamond('success'), { a: 'SUCCESS', b: 'SUCCESS', c: 'SUCCESS', d: 'PENDING' }).queue, ['d']);
  assert.deepEqual(planOf(diamond('success'), { a: 'SUCCESS', b: 'FAILED', c: 'SUCCESS', d: 'PENDING' }), {
    queue: [],
    retry: [],
    skip: skipped('d'),
    cancel: [],
    end: { state: 'FAILED', failedTask: 'b', error: 'b broke' },
  });
  assert.deepEqual(planOf(diamond('failure'), { a: 'SUCCESS', b: 'FAILED', c: 'SUCCESS', d: 'PENDING' }).queue, ['d']);
  // a fails: both branches are skipped, so a failure handler at the bottom sees only SKIPPED and is skipped too.
  assert.deepEqual(planOf(diamond('failure'), { a: 'FAILED', b: 'PENDING', c: 'PENDING', d: 'PENDING' }).skip, skipped('b', 'c', 'd'));
  assert.deepEqual(planOf(diamond('always'), { a: 'FAILED', b: 'PENDING', c: 'PENDING', d: 'PENDING' }), { queue: ['d'], retry: [], skip: skipped('b', 'c'), cancel: [] });
});

test('a dependency id that names no task counts as never ended', () => {
  const tasks = [t('a'), t('b', ['a', 'ghost'], 'always')];
  assert.deepEqual(planOf(tasks, { a: 'SUCCESS', b: 'PENDING' }), { queue: [], retry: [], skip: [], cancel: [] });
  assert.deepEqual(planOf(tasks, { a: 'SUCCESS', b: 'PENDING' }, 0, 'cancel'), {
    queue: [],
    retry: [],
    skip: [],
    cancel: [{ taskKey: 'b', reason: 'cancelled' }],
    end: { state: 'CANCELLED' },
  });
});

// --- max_parallel ------------------------------------------------------------------------------

test('max_parallel 1 queues only the first candidate, and nothing while one runs', () => {
  const tasks = [t('a'), t('b'), t('c')];
  assert.deepEqual(planOf(tasks, { a: 'PENDING', b: 'PENDING', c: 'PENDING' }, 1).queue, ['a']);
  assert.deepEqual(planOf(tasks, { a: 'RUNNING', b: 'PENDING', c: 'PENDING' }, 1).queue, []);
  assert.deepEqual(planOf(tasks, { a: 'QUEUED', b: 'PENDING', c: 'PENDING' }, 1).queue, []);
  assert.deepEqual(planOf(tasks, { a: 'SUCCESS', b: 'PENDING', c: 'PENDING' }, 1).queue, ['b']);
});

test('max_parallel 2 counts QUEUED and RUNNING runs and picks candidates in task list order', () => {
  const tasks = [t('x', ['y']), t('y'), t('z'), t('w')];
  assert.deepEqual(planOf(tasks, { x: 'PENDING', y: 'RUNNING', z: 'PENDING', w: 'PENDING' }, 2).queue, ['z']);
  assert.deepEqual(planOf(tasks, { x: 'PENDING', y: 'SUCCESS', z: 'PENDING', w: 'PENDING' }, 2).queue, ['x', 'z']);
  assert.deepEqual(planOf(tasks, { x: 'PENDING', y: 'QUEUED', z: 'RUNNING', w: 'PENDING' }, 2).queue, []);
});

test('max_parallel 0 is unlimited', () => {
  const tasks = Array.from({ length: 50 }, (_, i) => t(`t${i}`));
  const p = planOf(tasks, Object.fromEntries(tasks.map((x) => [x.id, 'PENDING' as const])), 0);
  assert.equal(p.queue.length, 50);
});

test('skips are not limited by max_parallel', () => {
  const tasks = [t('a'), t('b', ['a']), t('c', ['a']), t('d')];
  assert.deepEqual(planOf(tasks, { a: 'FAILED', b: 'PENDING', c: 'PENDING', d: 'RUNNING' }, 1), { queue: [], retry: [], skip: skipped('b', 'c'), cancel: [] });
});

// --- retries -----------------------------------------------------------------------------------

test('retries: the latest attempt wins', () => {
  const tasks = [t('a'), t('b', ['a'])];
  const b1: PlanRun = { taskKey: 'b', attempt: 1, state: 'PENDING' };
  // Attempt 2 listed first: the planner must not rely on the order of runs.
  const waiting = plan({ tasks, maxParallel: 0, runs: [{ taskKey: 'a', attempt: 2, state: 'QUEUED' }, { taskKey: 'a', attempt: 1, state: 'FAILED', error: 'first' }, b1] });
  assert.deepEqual(waiting, { queue: [], retry: [], skip: [], cancel: [] });
  const retried = plan({ tasks, maxParallel: 0, runs: [{ taskKey: 'a', attempt: 2, state: 'SUCCESS' }, { taskKey: 'a', attempt: 1, state: 'FAILED', error: 'first' }, b1] });
  assert.deepEqual(retried, { queue: ['b'], retry: [], skip: [], cancel: [] });
  const exhausted = plan({
    tasks,
    maxParallel: 0,
    runs: [
      { taskKey: 'a', attempt: 1, state: 'FAILED', error: 'first' },
      { taskKey: 'a', attempt: 3, state: 'TIMED_OUT', error: 'third' },
      { taskKey: 'a', attempt: 2, state: 'FAILED', error: 'second' },
      b1,
    ],
  });
  assert.deepEqual(exhausted, { queue: [], retry: [], skip: skipped('b'), cancel: [], end: { state: 'FAILED', failedTask: 'a', error: 'third' } });
});

test('a retry waiting in QUEUED counts against max_parallel', () => {
  const p = plan({
    tasks: [t('a'), t('b')],
    maxParallel: 1,
    runs: [
      { taskKey: 'a', attempt: 1, state: 'FAILED' },
      { taskKey: 'a', attempt: 2, state: 'QUEUED' },
      { taskKey: 'b', attempt: 1, state: 'PENDING' },
    ],
  });
  assert.deepEqual(p.queue, []);
});

test('an execution whose earlier attempt failed but latest succeeded ends SUCCESS', () => {
  const p = plan({
    tasks: [t('a')],
    maxParallel: 0,
    runs: [
      { taskKey: 'a', attempt: 1, state: 'FAILED' },
      { taskKey: 'a', attempt: 2, state: 'SUCCESS' },
    ],
  });
  assert.deepEqual(p.end, { state: 'SUCCESS' });
});

// --- end of an execution -----------------------------------------------------------------------

test('a failure handler that succeeds keeps the execution FAILED', () => {
  const p = planOf([t('a'), t('on_fail', ['a'], 'failure')], { a: 'FAILED', on_fail: 'SUCCESS' });
  assert.deepEqual(p.end, { state: 'FAILED', failedTask: 'a', error: 'a broke' });
});

test('only SUCCESS and SKIPPED tasks end SUCCESS', () => {
  assert.deepEqual(planOf([t('a'), t('b', ['a'], 'failure')], { a: 'SUCCESS', b: 'PENDING' }), { queue: [], retry: [], skip: skipped('b'), cancel: [], end: { state: 'SUCCESS' } });
  assert.deepEqual(planOf([t('a'), t('b')], { a: 'SKIPPED', b: 'SKIPPED' }).end, { state: 'SUCCESS' });
});

test('the error is the first failing task in task list order, not in run order', () => {
  const tasks = [t('a'), t('b'), t('c')];
  const p = plan({
    tasks,
    maxParallel: 0,
    runs: [
      { taskKey: 'c', attempt: 1, state: 'FAILED', error: 'c broke' },
      { taskKey: 'b', attempt: 1, state: 'TIMED_OUT', error: 'b timed out' },
      { taskKey: 'a', attempt: 1, state: 'SUCCESS' },
    ],
  });
  assert.deepEqual(p.end, { state: 'FAILED', failedTask: 'b', error: 'b timed out' });
});

test('a failing run without an error gives an empty error', () => {
  const p = plan({ tasks: [t('a')], maxParallel: 0, runs: [{ taskKey: 'a', attempt: 1, state: 'FAILED' }] });
  assert.deepEqual(p.end, { state: 'FAILED', failedTask: 'a', error: '' });
});

test('no end while any task has not ended', () => {
  for (const open of ['PENDING', 'QUEUED', 'RUNNING'] as const) {
    const p = planOf([t('a'), t('b', ['a'], 'always')], { a: 'FAILED', b: open });
    assert.equal(p.end, undefined, open);
  }
});

// --- stopping ----------------------------------------------------------------------------------

const mixed = { a: 'SUCCESS', b: 'RUNNING', c: 'QUEUED', d: 'PENDING', e: 'PENDING', f: 'FAILED' } as const;
const mixedTasks = [t('a'), t('b'), t('c'), t('d', ['a']), t('e', ['b']), t('f')];

test('cancel: pending and queued runs are cancelled, nothing is queued, and the execution waits for the running one', () => {
  assert.deepEqual(planOf(mixedTasks, mixed, 0, 'cancel'), {
    queue: [],
    retry: [],
    skip: [],
    cancel: [
      { taskKey: 'c', reason: 'cancelled' },
      { taskKey: 'd', reason: 'cancelled' },
      { taskKey: 'e', reason: 'cancelled' },
    ],
  });
});

test('cancel: once nothing runs the execution ends CANCELLED, even with a failed task', () => {
  assert.deepEqual(planOf(mixedTasks, { ...mixed, b: 'CANCELLED', c: 'CANCELLED', d: 'CANCELLED', e: 'CANCELLED' }, 0, 'cancel'), {
    queue: [],
    retry: [],
    skip: [],
    cancel: [],
    end: { state: 'CANCELLED' },
  });
  assert.deepEqual(planOf(mixedTasks, { ...mixed, b: 'SUCCESS' }, 0, 'cancel').end, { state: 'CANCELLED' });
});

test('timeout: pending and queued runs are cancelled with execution_timed_out, and the execution ends TIMED_OUT after the running one', () => {
  const waiting = planOf(mixedTasks, mixed, 0, 'timeout');
  assert.deepEqual(waiting.cancel, [
    { taskKey: 'c', reason: 'execution_timed_out' },
    { taskKey: 'd', reason: 'execution_timed_out' },
    { taskKey: 'e', reason: 'execution_timed_out' },
  ]);
  assert.equal(waiting.end, undefined);
  assert.deepEqual(planOf(mixedTasks, { ...mixed, b: 'TIMED_OUT' }, 0, 'timeout').end, { state: 'TIMED_OUT' });
});

test('stopping with every task ended ends at once', () => {
  assert.deepEqual(planOf([t('a')], { a: 'SUCCESS' }, 0, 'timeout'), { queue: [], retry: [], skip: [], cancel: [], end: { state: 'TIMED_OUT' } });
});

test('stopping cancels a waiting retry attempt', () => {
  const p = plan({
    tasks: [t('a')],
    maxParallel: 0,
    stopping: 'cancel',
    runs: [
      { taskKey: 'a', attempt: 1, state: 'FAILED' },
      { taskKey: 'a', attempt: 2, state: 'QUEUED' },
    ],
  });
  assert.deepEqual(p, { queue: [], retry: [], skip: [], cancel: [{ taskKey: 'a', reason: 'cancelled' }], end: { state: 'CANCELLED' } });
});

// --- inputs ------------------------------------------------------------------------------------

test('retry: a failed or timed-out latest attempt with attempts left gets the next attempt, and its dependents wait', () => {
  for (const failed of ['FAILED', 'TIMED_OUT'] as const) {
    const tasks = [t('a', [], 'success', 3), t('b', ['a']), t('h', ['a'], 'failure')];
    const p = plan(
      frozen({
        tasks,
        maxParallel: 0,
        runs: [
          { taskKey: 'a', attempt: 2, state: failed, error: 'x' },
          { taskKey: 'b', attempt: 1, state: 'PENDING' },
          { taskKey: 'h', attempt: 1, state: 'PENDING' },
        ],
      }),
    );
    assert.deepEqual(p, { queue: [], retry: [{ taskKey: 'a', attempt: 3 }], skip: [], cancel: [] }, failed);
  }
});

test('retry: the last attempt failing is final: dependents are decided and the execution ends', () => {
  const tasks = [t('a', [], 'success', 3), t('b', ['a']), t('h', ['a'], 'failure')];
  const p = plan(
    frozen({
      tasks,
      maxParallel: 0,
      runs: [
        { taskKey: 'a', attempt: 3, state: 'FAILED', error: 'x' },
        { taskKey: 'b', attempt: 1, state: 'PENDING' },
        { taskKey: 'h', attempt: 1, state: 'PENDING' },
      ],
    }),
  );
  assert.deepEqual(p, { queue: ['h'], retry: [], skip: skipped('b'), cancel: [] });
});

test('retry: no attempts are made past max_attempts 1 (the default), nor while stopping', () => {
  assert.deepEqual(planOf([t('a')], { a: 'FAILED' }).end, { state: 'FAILED', failedTask: 'a', error: 'a broke' });
  const p = plan(frozen({ tasks: [t('a', [], 'success', 5)], maxParallel: 0, runs: [{ taskKey: 'a', attempt: 1, state: 'FAILED' }], stopping: 'cancel' }));
  assert.deepEqual(p, { queue: [], retry: [], skip: [], cancel: [], end: { state: 'CANCELLED' } });
});

test('retry: a retried attempt counts against max_parallel, but is made even when the limit is reached', () => {
  const tasks = [t('a', [], 'success', 2), t('b'), t('c')];
  const p = plan(
    frozen({
      tasks,
      maxParallel: 1,
      runs: [
        { taskKey: 'a', attempt: 1, state: 'FAILED' },
        { taskKey: 'b', attempt: 1, state: 'RUNNING' },
        { taskKey: 'c', attempt: 1, state: 'PENDING' },
      ],
    }),
  );
  assert.deepEqual(p, { queue: [], retry: [{ taskKey: 'a', attempt: 2 }], skip: [], cancel: [] });
});

test('broken input invariants throw PlanInputError with the problem named', () => {
  const problem = (input: PlanInput) => {
    try {
      plan(input);
    } catch (err) {
      assert.ok(err instanceof PlanInputError);
      return err.problem;
    }
    return 'no error';
  };
  assert.equal(problem({ tasks: [t('a'), t('b')], maxParallel: 0, runs: runs({ a: 'PENDING' }) }), 'task_without_run');
  assert.equal(problem({ tasks: [t('a')], maxParallel: 0, runs: runs({ a: 'PENDING', z: 'PENDING' }) }), 'run_of_unknown_task');
  assert.equal(problem({ tasks: [t('a')], maxParallel: -1, runs: runs({ a: 'PENDING' }) }), 'bad_max_parallel');
  assert.equal(problem({ tasks: [t('a')], maxParallel: 1.5, runs: runs({ a: 'PENDING' }) }), 'bad_max_parallel');
});

// --- run_if as an expression ------------------------------------------------------------------

test('an expression condition is decided once its dependencies succeeded: true queues, false skips, an error fails without retry', () => {
  const tasks = [t('a'), t('c', ['a'], 'expression', 3)];
  const asked: string[] = [];
  const withCondition = (outcome: NonNullable<PlanInput['condition']>) => (states: Record<string, TaskRunState>) =>
    plan(frozen({ tasks, maxParallel: 0, runs: runs(states), condition: (id) => (asked.push(id), outcome(id)) }));
  assert.deepEqual(withCondition(() => ({ ok: true, value: true }))({ a: 'SUCCESS', c: 'PENDING' }), { queue: ['c'], retry: [], skip: [], cancel: [] });
  assert.deepEqual(asked, ['c'], 'decided once per plan, though the planner looks at the task twice');
  assert.deepEqual(withCondition(() => ({ ok: true, value: false }))({ a: 'SUCCESS', c: 'PENDING' }), {
    queue: [],
    retry: [],
    skip: [{ taskKey: 'c', reason: 'condition_not_met', conditionFalse: true }],
    cancel: [],
    end: { state: 'SUCCESS' },
  });
  const failed = withCondition(() => ({ ok: false, error: 'run_if {{ x }}: No such key: x' }))({ a: 'SUCCESS', c: 'PENDING' });
  assert.deepEqual(failed, {
    queue: [],
    retry: [],
    skip: [],
    fail: [{ taskKey: 'c', reason: 'condition_error', error: 'run_if {{ x }}: No such key: x' }],
    cancel: [],
    end: { state: 'FAILED', failedTask: 'c', error: 'run_if {{ x }}: No such key: x' },
  });
  // The next plan sees the run FAILED condition_error: no retry, though the task has attempts left.
  const after = plan(frozen({ tasks, maxParallel: 0, runs: [...runs({ a: 'SUCCESS' }), { taskKey: 'c', attempt: 1, state: 'FAILED', reason: 'condition_error', error: 'e' }] }));
  assert.deepEqual(after.retry, []);
  assert.equal(after.end?.state, 'FAILED');
});

test('an expression condition is not asked when a dependency did not succeed (skipped as under success), and a skip cascades', () => {
  const asked: string[] = [];
  const p = plan(
    frozen({
      tasks: [t('a'), t('c', ['a'], 'expression'), t('d', ['c'])],
      maxParallel: 0,
      runs: runs({ a: 'FAILED', c: 'PENDING', d: 'PENDING' }),
      condition: (id) => (asked.push(id), { ok: true, value: true }),
    }),
  );
  assert.deepEqual(asked, []);
  assert.deepEqual(p.skip, skipped('c', 'd'));
  assert.deepEqual(p.end, { state: 'FAILED', failedTask: 'a', error: 'a broke' });
});

test('an expression condition on a task without dependencies is decided at once', () => {
  const p = plan(
    frozen({ tasks: [t('a', [], 'expression'), t('b', ['a'])], maxParallel: 0, runs: runs({ a: 'PENDING', b: 'PENDING' }), condition: () => ({ ok: true, value: false }) }),
  );
  assert.deepEqual(p.skip, [
    { taskKey: 'a', reason: 'condition_not_met', conditionFalse: true },
    { taskKey: 'b', reason: 'condition_not_met' },
  ]);
  assert.deepEqual(p.end, { state: 'SUCCESS' });
});

// --- approval gates and pause (extensions) --------------------------------------------------

const gated = (id: string, dependsOn: string[] = []): PlanTask => ({ id, dependsOn, runIf: 'success', approval: true });

test('a gated task waits once its dependencies succeeded, holding no max_parallel slot', () => {
  const tasks = [t('build'), gated('deploy', ['build']), t('other', ['build'])];
  const p = plan(frozen({ tasks, maxParallel: 1, runs: runs({ build: 'SUCCESS', deploy: 'PENDING', other: 'PENDING' }) }));
  assert.deepEqual(p.await, ['deploy']);
  // The one slot goes to `other`: the waiting run takes none.
  assert.deepEqual(p.queue, ['other']);
  assert.equal(p.end, undefined);
});

test('a waiting run is not asked again, and an approved one is queued', () => {
  const tasks = [t('build'), gated('deploy', ['build'])];
  const base = runs({ build: 'SUCCESS', deploy: 'PENDING' });
  const waiting = plan(frozen({ tasks, maxParallel: 0, runs: base.map((r) => (r.taskKey === 'deploy' ? { ...r, gate: 'awaiting' as const } : r)) }));
  assert.equal(waiting.await, undefined);
  assert.deepEqual(waiting.queue, []);
  assert.equal(waiting.end, undefined);
  const approved = plan(frozen({ tasks, maxParallel: 0, runs: base.map((r) => (r.taskKey === 'deploy' ? { ...r, gate: 'approved' as const } : r)) }));
  assert.deepEqual(approved.queue, ['deploy']);
});

test('a gated task whose dependency failed is skipped, never asked', () => {
  const p = planOf([t('build'), gated('deploy', ['build'])], { build: 'FAILED', deploy: 'PENDING' });
  assert.equal(p.await, undefined);
  assert.deepEqual(p.skip, skipped('deploy'));
  assert.equal(p.end?.state, 'FAILED');
});

test('a rejected gate (FAILED rejected) runs the failure branch', () => {
  const tasks = [gated('deploy'), t('rollback', ['deploy'], 'failure'), t('announce', ['deploy'])];
  const p = plan(
    frozen({
      tasks,
      maxParallel: 0,
      runs: [{ taskKey: 'deploy', attempt: 1, state: 'FAILED', reason: 'rejected', error: 'rejected' }, ...runs({ rollback: 'PENDING', announce: 'PENDING' })],
    }),
  );
  assert.deepEqual(p.queue, ['rollback']);
  assert.deepEqual(p.skip, skipped('announce'));
});

test('cancel while a gate waits cancels the waiting run and ends the execution', () => {
  const p = plan(
    frozen({
      tasks: [t('build'), gated('deploy', ['build'])],
      maxParallel: 0,
      runs: [...runs({ build: 'SUCCESS' }), { taskKey: 'deploy', attempt: 1, state: 'PENDING', gate: 'awaiting' }],
      stopping: 'cancel',
    }),
  );
  assert.deepEqual(p.cancel, [{ taskKey: 'deploy', reason: 'cancelled' }]);
  assert.equal(p.end?.state, 'CANCELLED');
});

test('paused: nothing is queued, retried or put to wait, and the execution does not end on a failure with attempts left', () => {
  const tasks = [t('a'), t('b', ['a']), gated('c', ['a']), t('d', [], 'success', 3)];
  const p = plan(frozen({ tasks, maxParallel: 0, runs: runs({ a: 'SUCCESS', b: 'PENDING', c: 'PENDING', d: 'FAILED' }), paused: true }));
  assert.deepEqual(p.queue, []);
  assert.deepEqual(p.retry, []);
  assert.equal(p.await, undefined);
  assert.equal(p.end, undefined);
  // Skips still apply, and the end of an execution with nothing left to start.
  const q = plan(frozen({ tasks: [t('a'), t('b', ['a'])], maxParallel: 0, runs: runs({ a: 'FAILED', b: 'PENDING' }), paused: true }));
  assert.deepEqual(q.skip, skipped('b'));
  assert.equal(q.end?.state, 'FAILED');
});

test('a rejected or timed-out gate is never retried', () => {
  for (const reason of ['rejected', 'approval_timed_out']) {
    const p = plan(frozen({ tasks: [{ ...gated('deploy'), maxAttempts: 3 }], maxParallel: 0, runs: [{ taskKey: 'deploy', attempt: 1, state: 'FAILED', reason, error: 'no' }] }));
    assert.deepEqual(p.retry, [], reason);
    assert.equal(p.end?.state, 'FAILED', reason);
  }
});
