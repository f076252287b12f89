// Retries with real processes: each attempt is its own task run (attempts
// 1..n, SVC_ATTEMPT set), the next attempt waits the backoff (fixed or
// exponential, capped by max), the flow's retry policy applies to tasks and a
// task's own overrides it, TIMED_OUT attempts are retried too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { flow, ms, run, runsOf, sh } from './engine-support.js';

let s: Stack;
const NS = 'retry';

before(async () => {
  s = await startStack();
  await s.saveFlow(NS, {
    // Fails attempts 1 and 2 (with a stderr line), succeeds on 3.
    'third.flow.yaml': flow({
      id: 'third',
      tasks: [
        {
          id: 'flaky',
          type: 'command',
          retry: { max_attempts: 3, backoff: 'fixed', initial: '300ms' },
          command: sh(
            `printf '{"outputs": {"attempt": "%s"}}\\n' "$SVC_ATTEMPT" >> "$SVC_OUTPUTS"; [ "$SVC_ATTEMPT" -ge 3 ] || { echo "attempt $SVC_ATTEMPT failed" >&2; exit 3; }`,
          ),
        },
        { id: 'after', type: 'command', depends_on: ['flaky'], command: ['true'] },
      ],
    }),
    'always.flow.yaml': flow({
      id: 'always',
      tasks: [
        {
          id: 'broken',
          type: 'command',
          retry: { max_attempts: 4, backoff: 'exponential', initial: '200ms', max: '500ms' },
          command: sh('echo "no luck $SVC_ATTEMPT" >&2; exit 1'),
        },
      ],
    }),
    'policy.flow.yaml': flow({
      id: 'policy',
      retry: { max_attempts: 2, initial: '200ms' },
      tasks: [
        { id: 'inherits', type: 'command', command: ['false'] },
        { id: 'own', type: 'command', retry: { max_attempts: 3 }, command: ['false'] },
        { id: 'once', type: 'command', retry: { max_attempts: 1 }, command: ['false'] },
      ],
    }),
    'noretry.flow.yaml': flow({ id: 'noretry', tasks: [{ id: 'fails', type: 'command', command: sh('echo boom >&2; exit 2') }] }),
    'slow.flow.yaml': flow({
      id: 'slow',
      tasks: [{ id: 'sleepy', type: 'command', timeout: '1s', retry: { max_attempts: 2, initial: '200ms' }, command: ['sleep', '30'] }],
    }),
  });
});
after(() => s.stop());

/** not_before of each attempt after the first, minus the end of the attempt before it (the backoff the engine chose). */
async function backoffs(executionId: string, key: string): Promise<number[]> {
  const r = await s.db.query(`SELECT attempt, ended_at, not_before FROM task_runs WHERE execution_id = $1 AND task_key = $2 ORDER BY attempt`, [executionId, key]);
  const out: number[] = [];
  for (let i = 1; i < r.rows.length; i++) out.push(r.rows[i].not_before.getTime() - r.rows[i - 1].ended_at.getTime());
  return out;
}

test('a failing task is retried as attempts 1..n, each waiting the fixed backoff, until one succeeds', async () => {
  const e = await s.trigger(NS, 'third');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  const runs = runsOf(done, 'flaky');
  assert.deepEqual(
    runs.map((r) => r.attempt),
    [1, 2, 3],
  );
  assert.deepEqual(
    runs.map((r) => r.state),
    ['FAILED', 'FAILED', 'SUCCESS'],
  );
  assert.deepEqual(
    runs.map((r) => r.reason),
    ['exit_code', 'exit_code', ''],
  );
  assert.equal(runs[0].error, 'exit code 3: attempt 1 failed');
  assert.equal(runs[1].error, 'exit code 3: attempt 2 failed');
  assert.deepEqual(
    runs.map((r) => r.exit_code),
    [3, 3, 0],
  );
  // The task saw its attempt number.
  assert.deepEqual(
    runs.map((r) => r.outputs?.attempt),
    ['1', '2', '3'],
  );
  assert.equal(new Set(runs.map((r) => r.id)).size, 3, 'one task run row per attempt');
  for (let i = 1; i < runs.length; i++) {
    const gap = ms(runs[i].started_at) - ms(runs[i - 1].ended_at);
    assert.ok(gap >= 300, `attempt ${i + 1} started ${gap} ms after attempt ${i} ended, before the 300ms backoff`);
  }
  assert.deepEqual(await backoffs(e.id, 'flaky'), [300, 300]);
  // The downstream task ran once, after the successful attempt.
  assert.equal(runsOf(done, 'after').length, 1);
  assert.ok(ms(run(done, 'after').started_at) >= ms(runs[2].ended_at));
});

test('exponential backoff doubles from initial and is capped by max; the execution fails with the last attempt', async () => {
  const e = await s.trigger(NS, 'always');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'FAILED');
  const runs = runsOf(done, 'broken');
  assert.deepEqual(
    runs.map((r) => r.attempt),
    [1, 2, 3, 4],
  );
  assert.ok(runs.every((r) => r.state === 'FAILED' && r.reason === 'exit_code'));
  assert.deepEqual(await backoffs(e.id, 'broken'), [200, 400, 500]);
  for (const [i, want] of [200, 400, 500].entries()) {
    const gap = ms(runs[i + 1].started_at) - ms(runs[i].ended_at);
    assert.ok(gap >= want, `attempt ${i + 2} started ${gap} ms after the previous one ended, expected at least ${want}`);
  }
  assert.equal(done.error, 'exit code 1: no luck 4');
  assert.match(done.reason, /broken/);
});

test("the flow's retry policy applies to every task and a task's own retry overrides it field by field", async () => {
  const e = await s.trigger(NS, 'policy');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'FAILED');
  assert.deepEqual(
    runsOf(done, 'inherits').map((r) => r.attempt),
    [1, 2],
  );
  assert.deepEqual(
    runsOf(done, 'own').map((r) => r.attempt),
    [1, 2, 3],
  );
  assert.deepEqual(
    runsOf(done, 'once').map((r) => r.attempt),
    [1],
  );
  // `own` names no initial: the flow's 200ms applies.
  assert.deepEqual(await backoffs(e.id, 'own'), [200, 200]);
});

test('without a retry policy a failed task has one attempt (max_attempts defaults to 1)', async () => {
  const e = await s.trigger(NS, 'noretry');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'FAILED');
  const runs = runsOf(done, 'fails');
  assert.equal(runs.length, 1);
  assert.equal(runs[0].state, 'FAILED');
  assert.equal(runs[0].reason, 'exit_code');
  assert.equal(runs[0].exit_code, 2);
  assert.equal(runs[0].error, 'exit code 2: boom');
  assert.equal(done.error, 'exit code 2: boom');
});

test('a TIMED_OUT attempt is retried like a failed one', async () => {
  const e = await s.trigger(NS, 'slow');
  const done = await s.waitEnded(e.id);
  const runs = runsOf(done, 'sleepy');
  assert.deepEqual(
    runs.map((r) => [r.attempt, r.state, r.reason]),
    [
      [1, 'TIMED_OUT', 'timeout'],
      [2, 'TIMED_OUT', 'timeout'],
    ],
  );
  for (const r of runs) assert.ok(r.duration_ms >= 900 && r.duration_ms < 5000, `attempt ran ${r.duration_ms} ms with a 1s timeout`);
  assert.equal(done.state, 'FAILED');
});
