// runnerComplete over real HTTP takes the completions the runner sends, as
// the one wire contract (@svc/api-spec's RunnerCompleteRequest) declares
// them: a task that never ran reports exit_code null (runtime_not_found,
// executor_error), which the gateway once refused with 422, losing the
// report of `svc exec`; a state outside the four end states is refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RunnerCompletion } from '@svc/api-spec';
import { claimRuns, completeRun, saveFlow, startLiveGateway, trigger, waitEnded, type LiveGateway } from './live-helpers.js';

let gw: LiveGateway;

before(async () => {
  gw = await startLiveGateway();
  await saveFlow(gw, 'contract', { id: 'once', tasks: [{ id: 'script', type: 'command', command: ['true'] }] });
});
after(() => gw?.close());

test('a completion with exit_code null (the task never ran) ends the task run with its reason', async () => {
  const id = await trigger(gw, 'contract', 'once');
  const [run] = await claimRuns(gw);
  const body: RunnerCompletion = { state: 'FAILED', reason: 'runtime_not_found', error: 'runtime bun: bun not found on PATH', exit_code: null, outputs: {}, metrics: [] };
  await completeRun(gw, run!, body);
  const ex = await waitEnded(gw, id);
  assert.equal(ex.state, 'FAILED');
  const tr = ex.task_runs.find((t: { task_key: string }) => t.task_key === 'script');
  assert.deepEqual([tr.state, tr.reason, tr.exit_code], ['FAILED', 'runtime_not_found', null]);
});

test('a completion with a state outside SUCCESS, FAILED, TIMED_OUT, CANCELLED is refused with 422', async () => {
  await trigger(gw, 'contract', 'once');
  const [run] = await claimRuns(gw);
  const r = await fetch(`${gw.url}/api/runner/v1/task-runs/${run!.id}/complete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${run!.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ state: 'DONE', exit_code: 0 }),
  });
  assert.equal(r.status, 422, await r.clone().text());
  assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'validation_failed');
  await completeRun(gw, run!);
});
