// Cancel at each state, over HTTP with real processes (spec's transition
// table): QUEUED → CANCELLED at once; RUNNING → CANCELLING → CANCELLED with
// the task's process group killed (SIGTERM, then SIGKILL after the kill
// delay, 1 s in this stack); CANCELLING again → no change; an ended
// execution → 409 execution_ended. Each cancel writes an audit event.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { alive, auditOf, flow, ms, pidFrom, run, sh, tmpDir, until } from './engine-support.js';

let s: Stack;
const NS = 'cncl';

before(async () => {
  s = await startStack();
  await s.saveFlow(NS, {
    // `polite` dies on SIGTERM; the shell and `stubborn` ignore it (an ignored
    // signal stays ignored across exec), so only the group SIGKILL ends them.
    'stuck.flow.yaml': flow({
      id: 'stuck',
      inputs: [{ id: 'dir', type: 'string' }],
      tasks: [
        {
          id: 'work',
          type: 'command',
          command: sh(
            'sleep 301 & echo $! > "{{ inputs.dir }}/polite"; trap "" TERM; sleep 302 & echo $! > "{{ inputs.dir }}/stubborn"; echo $$ > "{{ inputs.dir }}/shell"; wait; wait',
          ),
        },
        { id: 'later', type: 'command', depends_on: ['work'], command: ['true'] },
        { id: 'parallel', type: 'command', command: ['sleep', '300'] },
      ],
    }),
    'single.flow.yaml': flow({
      id: 'single',
      concurrency: { limit: 1 },
      tasks: [{ id: 'block', type: 'command', command: ['sleep', '300'] }],
    }),
    // Fails, then waits the default 10 s backoff before attempt 2.
    'backoff.flow.yaml': flow({ id: 'backoff', tasks: [{ id: 'flaky', type: 'command', retry: { max_attempts: 3 }, command: ['false'] }] }),
    'quick.flow.yaml': flow({ id: 'quick', tasks: [{ id: 'a', type: 'command', command: ['true'] }] }),
  });
});
after(() => s.stop());

test('cancelling a QUEUED execution (held by its concurrency limit) ends it CANCELLED at once, without task runs', async () => {
  const first = await s.trigger(NS, 'single');
  await s.waitFor(first.id, (e) => e.task_runs.some((t: any) => t.state === 'RUNNING'));
  const queued = await s.trigger(NS, 'single');
  assert.equal(queued.state, 'QUEUED');
  assert.deepEqual(queued.task_runs, []);

  const r = await s.api('POST', `/api/v1/executions/${queued.id}/cancel`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.state, 'CANCELLED');
  assert.equal(typeof r.body.ended_at, 'string');
  assert.deepEqual(r.body.task_runs, []);
  assert.equal((await auditOf(s.api, 'execution.cancel', queued.id)).length, 1);

  // The running one is cancelled too; nothing else starts in its place.
  const c = await s.api('POST', `/api/v1/executions/${first.id}/cancel`);
  assert.equal(c.status, 200);
  assert.equal((await s.waitEnded(first.id)).state, 'CANCELLED');
  const again = (await s.api('GET', `/api/v1/executions/${queued.id}`)).body;
  assert.equal(again.state, 'CANCELLED');
  assert.deepEqual(again.task_runs, []);
});

test('cancelling a RUNNING execution moves it to CANCELLING, kills the process group, then ends it CANCELLED', async () => {
  const d = tmpDir();
  const e = await s.trigger(NS, 'stuck', { inputs: { dir: d } });
  const [polite, stubborn, shell] = (await Promise.all(['polite', 'stubborn', 'shell'].map((f) => pidFrom(path.join(d, f))))) as [number, number, number];
  await s.waitFor(e.id, (x) => run(x, 'work').state === 'RUNNING' && run(x, 'parallel').state === 'RUNNING');
  assert.ok(alive(polite) && alive(stubborn) && alive(shell));

  const t0 = Date.now();
  const r = await s.api('POST', `/api/v1/executions/${e.id}/cancel`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  // The shell ignores SIGTERM, so the run outlives the request: the execution is CANCELLING.
  assert.equal(r.body.state, 'CANCELLING');
  assert.equal(run(r.body, 'later').state, 'CANCELLED', 'a task that never started is cancelled at once');
  assert.equal(run(r.body, 'later').reason, 'cancelled');

  // Cancel again while CANCELLING: no change.
  const historyBefore = (await s.db.query(`SELECT count(*)::int AS n FROM execution_history WHERE execution_id = $1`, [e.id])).rows[0].n;
  const again = await s.api('POST', `/api/v1/executions/${e.id}/cancel`);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(again.body.state, 'CANCELLING');
  const stateRows = await s.db.query(`SELECT to_state FROM execution_history WHERE execution_id = $1 AND task_run_id IS NULL ORDER BY at`, [e.id]);
  assert.equal(stateRows.rows.filter((x) => x.to_state === 'CANCELLING').length, 1, 'the second cancel wrote no second CANCELLING');
  assert.ok(historyBefore > 0);

  // SIGTERM ends the polite child at once; the rest need the group SIGKILL.
  await until('the polite child to die on SIGTERM', () => !alive(polite), 5000);
  const done = await s.waitEnded(e.id);
  const took = Date.now() - t0;
  assert.equal(done.state, 'CANCELLED');
  assert.equal(run(done, 'work').state, 'CANCELLED');
  assert.equal(run(done, 'work').reason, 'cancelled');
  assert.equal(run(done, 'parallel').state, 'CANCELLED');
  assert.ok(took >= 900, `the SIGTERM-ignoring task ended after ${took} ms, before the 1 s kill delay`);
  assert.ok(took < 10_000, `cancel took ${took} ms`);
  await until('the SIGTERM-ignoring processes to be killed', () => !alive(stubborn) && !alive(shell), 5000);
  assert.ok(ms(done.ended_at) >= ms(run(done, 'work').ended_at));

  // Both cancel requests were audited.
  const audit = await auditOf(s.api, 'execution.cancel', e.id);
  assert.equal(audit.length, 2);
  assert.equal(audit[0].action, 'execution.cancel');
  assert.equal(audit[0].target, `execution:${e.id}`);
});

test('cancelling an execution whose task waits out a retry backoff cancels the queued attempt at once', async () => {
  const e = await s.trigger(NS, 'backoff');
  const waiting = await s.waitFor(e.id, (x) => x.task_runs.length === 2);
  assert.equal(waiting.task_runs.find((t: any) => t.attempt === 2).state, 'QUEUED');
  const r = await s.api('POST', `/api/v1/executions/${e.id}/cancel`);
  assert.equal(r.status, 200);
  assert.equal(r.body.state, 'CANCELLED', 'nothing runs, so the execution ends at once');
  const second = r.body.task_runs.find((t: any) => t.attempt === 2);
  assert.equal(second.state, 'CANCELLED');
  assert.equal(second.reason, 'cancelled');
  assert.equal(r.body.task_runs.length, 2, 'no further attempt');
});

test('cancelling an ended execution answers 409 execution_ended and changes nothing', async () => {
  const e = await s.trigger(NS, 'quick');
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS');
  const r = await s.api('POST', `/api/v1/executions/${e.id}/cancel`);
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'execution_ended');
  assert.deepEqual((await s.api('GET', `/api/v1/executions/${e.id}`)).body, done);

  const missing = await s.api('POST', '/api/v1/executions/01nonexistent0000000000000/cancel');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'execution_not_found');
});
