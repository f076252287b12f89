// Why a run waits, as the execution page says it: a PENDING task waiting for
// its dependencies (named, with their states), one waiting under the flow's
// max_parallel (naming the tasks that hold it), a retry in its backoff (when it
// runs, attempt n of m), and a QUEUED execution held by its flow's concurrency
// limit (naming the execution that holds it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { components } from '@svc/api-spec';
import { browserSkipReason, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.waits';
type Run = components['schemas']['TaskRun'];
const runs = (e: Pick<components['schemas']['Execution'], 'task_runs'>) => e.task_runs;

// One place: `first` runs, `second` (independent) waits for the place, `third` for `first`.
const SERIAL = JSON.stringify({
  id: 'serial',
  max_parallel: 1,
  tasks: [
    { id: 'first', type: 'command', command: ['sleep', '300'] },
    { id: 'second', type: 'command', command: ['sleep', '1'] },
    { id: 'third', type: 'command', depends_on: ['first'], command: ['sleep', '1'] },
  ],
});
// Fails at once; the next attempt waits ten minutes.
const FLAKY = JSON.stringify({
  id: 'flaky',
  tasks: [{ id: 'fetch', type: 'command', retry: { max_attempts: 3, backoff: 'fixed', initial: '10m' }, command: ['sh', '-c', 'echo boom >&2; exit 3'] }],
});
const SINGLE = JSON.stringify({
  id: 'single',
  concurrency: { limit: 1 },
  tasks: [{ id: 'hold', type: 'command', command: ['sleep', '300'] }],
});

describe('why a run waits', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'serial.flow.yaml': SERIAL, 'flaky.flow.yaml': FLAKY, 'single.flow.yaml': SINGLE });
  });
  after(async () => ui?.stop());

  it('names the dependencies a PENDING task waits for, and the tasks holding max_parallel', async () => {
    const page = ui.admin;
    const ex = await ui.stack.trigger(NS, 'serial');
    await ui.stack.waitFor(ex.id, (e) => runs(e).some((r) => r.task_key === 'first' && r.state === 'RUNNING'), 90_000);
    await page.goto(`/executions/${ex.id}`);
    await waitState(page, 'RUNNING');
    const why = page.getByTestId('task-wait');
    const deps = why.locator('[data-wait=dependencies]');
    await deps.waitFor();
    assert.equal(await deps.innerText(), 'third waits for its dependencies: first (RUNNING).');
    const place = why.locator('[data-wait=max_parallel]');
    assert.equal(await place.innerText(), "second waits for a place: the flow's max_parallel (1) is reached by first.");
    await shot(page, 'waits-01-dependencies-and-max-parallel');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await waitState(page, 'CANCELLED', 90_000);
    await why.waitFor({ state: 'detached' });
  });

  it('says when a retry in backoff runs, and which attempt of how many it is', async () => {
    const page = ui.admin;
    const ex = await ui.stack.trigger(NS, 'flaky');
    const waiting = await ui.stack.waitFor(ex.id, (e) => runs(e).some((r) => r.attempt === 2), 90_000);
    const failed = waiting.task_runs.find((r: Run) => r.attempt === 1);
    assert.equal(failed.state, 'FAILED');
    await page.goto(`/executions/${ex.id}`);
    await waitState(page, 'RUNNING');
    const retry = page.getByTestId('task-wait').locator('[data-wait=retry_backoff]');
    await retry.waitFor();
    // Told only once the flow's definition (the retry policy) is known: never with the defaults' 1 attempt.
    const text = await retry.innerText();
    assert.match(text, /^fetch retries at .+ \(in (9m [0-5]?\ds|10m 0s)\): attempt 2 of 3, after attempt 1 ended FAILED/);
    // The time named is the failed attempt's end plus the 10 minute backoff, as this browser writes times.
    const due = await page.evaluate((end) => new Date(Date.parse(end) + 600_000).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' }), failed.ended_at as string);
    assert.ok(text.includes(`retries at ${due} `), `${text} names ${due}`);
    // Not also told as a slot wait: the run is held by its backoff.
    assert.equal(await page.getByTestId('task-wait').locator('[data-wait=slots]').count(), 0);
    await shot(page, 'waits-02-retry-backoff');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await waitState(page, 'CANCELLED', 90_000);
  });

  it("names the executions holding a QUEUED execution's flow concurrency limit", async () => {
    const page = ui.admin;
    const holder = await ui.stack.trigger(NS, 'single');
    await ui.stack.waitFor(holder.id, (e) => e.state === 'RUNNING', 90_000);
    const queued = await ui.stack.trigger(NS, 'single');
    assert.equal(queued.state, 'QUEUED');
    await page.goto(`/executions/${queued.id}`);
    await waitState(page, 'QUEUED');
    const why = page.getByTestId('wait-reason');
    await why.getByRole('link', { name: holder.id }).waitFor();
    // The limit shows once the flow's definition has loaded (after the holders, maybe).
    await why.getByText("the flow's concurrency limit (1) is full.", { exact: false }).waitFor();
    assert.equal(await why.innerText(), `Waiting: the flow's concurrency limit (1) is full. Held by ${holder.id}.`);
    await shot(page, 'waits-03-concurrency-limit');
    await ui.stack.api('POST', `/executions/${queued.id}/cancel`);
    await ui.stack.api('POST', `/executions/${holder.id}/cancel`);
  });
});
