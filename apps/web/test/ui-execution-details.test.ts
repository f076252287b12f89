// The execution page's detail tabs and timeline in the browser: flow and task
// outputs, artifacts listed (Files tab) and downloaded, metrics with their tags, the Gantt
// timeline of task runs and their attempts; and why a queued task run waits
// when every slot of its pool is busy (a dispatcher with one slot).
import assert from 'node:assert/strict';
import { text as streamText } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.details';
const sh = (script: string) => ['sh', '-c', script];
// JSON is YAML: the flows are written as objects, so no quoting goes wrong.
const REPORT = JSON.stringify({
  id: 'report',
  inputs: [{ id: 'who', type: 'string', default: 'world' }],
  outputs: { greeting: '{{ tasks.make.outputs.greeting }}' },
  tasks: [
    {
      id: 'make',
      type: 'command',
      command: sh(
        [
          'printf \'{"outputs": {"greeting": "hello %s", "count": 3}}\\n\' "{{ inputs.who }}" >> "$SVC_OUTPUTS"',
          'echo \'{"metrics": [{"name": "rows_read", "value": 7, "tags": {"table": "users"}}, {"name": "bytes_out", "value": 2048}]}\' >> "$SVC_OUTPUTS"',
          'printf "artifact body for {{ inputs.who }}" > "$SVC_ARTIFACTS_DIR/report.txt"',
          'echo made',
        ].join('; '),
      ),
    },
    // Fails its first attempt, succeeds the second: two rows on the timeline.
    { id: 'flaky', type: 'command', depends_on: ['make'], retry: { max_attempts: 2, backoff: 'fixed', initial: '200ms' }, command: sh('sleep 0.3; test "$SVC_ATTEMPT" -ge 2') },
  ],
});
// Two independent tasks: with one slot, one runs while the other waits for it.
const PAIR = JSON.stringify({
  id: 'pair',
  tasks: [
    { id: 'left', type: 'command', command: ['sleep', '120'] },
    { id: 'right', type: 'command', command: ['sleep', '120'] },
  ],
});

describe('execution page details', { skip, concurrency: false }, () => {
  let ui: Ui;
  let report: string;

  before(async () => {
    ui = await startUi({ env: { SVC_WORKER_SLOTS: '1' } });
    await ui.stack.saveFlow(NS, { 'report.flow.yaml': REPORT, 'pair.flow.yaml': PAIR });
    report = (await ui.stack.trigger(NS, 'report', { inputs: { who: 'tester' } })).id;
    const ended = await ui.stack.waitEnded(report, 120_000);
    assert.equal(ended.state, 'SUCCESS', JSON.stringify(ended));
  });
  after(async () => ui?.stop());

  it("shows the flow outputs and each task's outputs", async () => {
    const page = ui.admin;
    await page.goto(`/executions/${report}`);
    await waitState(page, 'SUCCESS');
    await page.getByRole('tab', { name: 'Outputs' }).click();
    const panel = page.getByRole('tabpanel', { name: 'Outputs' });
    await panel.getByRole('heading', { name: 'Flow outputs' }).waitFor();
    const [flowOut, makeOut] = await panel.locator('pre.json').allInnerTexts();
    assert.deepEqual(JSON.parse(flowOut!), { greeting: 'hello tester' });
    await panel.getByRole('heading', { name: 'make', level: 4 }).waitFor();
    assert.deepEqual(JSON.parse(makeOut!), { greeting: 'hello tester', count: 3 });
    // flaky wrote no outputs: it has no heading of its own.
    assert.equal(await panel.getByRole('heading', { name: 'flaky' }).count(), 0);
    await shot(page, 'details-01-outputs');
  });

  it('lists the artifacts in the Files tab and downloads one', async () => {
    const page = ui.admin;
    await page.goto(`/executions/${report}`);
    await page.getByRole('tab', { name: 'Files' }).click();
    const panel = page.getByRole('tabpanel', { name: 'Files' });
    const row = panel.getByRole('table', { name: 'Artifacts' }).getByRole('row').filter({ hasText: 'report.txt' });
    await row.waitFor();
    const cells = await row.getByRole('cell').allInnerTexts();
    assert.equal(cells[0], 'make');
    assert.equal(cells[2], `${'artifact body for tester'.length} B`);
    await shot(page, 'details-02-artifacts');
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: 'Download report.txt' }).click()]);
    assert.equal(download.suggestedFilename(), 'report.txt');
    assert.equal(await streamText(await download.createReadStream()), 'artifact body for tester');
  });

  it('lists the metrics with their tags', async () => {
    const page = ui.admin;
    await page.goto(`/executions/${report}`);
    // The tab list answers the arrow keys too: Outputs → Files → Metrics.
    await page.getByRole('tab', { name: 'Outputs' }).click();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getByRole('tab', { name: 'Metrics' }).getAttribute('aria-selected'), 'true');
    const panel = page.getByRole('tabpanel', { name: 'Metrics' });
    await panel.getByRole('cell', { name: 'rows_read' }).waitFor();
    const rows = await panel.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert.deepEqual(
      rows.sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
      [
        ['make', 'bytes_out', '2048', ''],
        ['make', 'rows_read', '7', 'table=users'],
      ],
    );
    await shot(page, 'details-03-metrics');
  });

  it('draws the timeline: one row per attempt, in start order, coloured by state', async () => {
    const page = ui.admin;
    await page.goto(`/executions/${report}`);
    const gantt = page.getByRole('table', { name: 'Timeline of task runs' });
    await gantt.waitFor();
    assert.deepEqual(await gantt.getByRole('rowheader').allInnerTexts(), ['make', 'flaky', 'flaky #2']);
    const bars = gantt.locator('.gantt-bar');
    const classes = await bars.evaluateAll((els) => els.map((e) => e.className));
    assert.match(classes[0]!, /state-success/);
    assert.match(classes[1]!, /state-failed/);
    assert.match(classes[2]!, /state-success/);
    // Each row says how long the attempt ran, and its bar's tooltip names the state.
    const durations = await gantt.locator('.gantt-dur').allInnerTexts();
    for (const d of durations) assert.match(d, /^\d+(\.\d+)? (ms|s)$/);
    assert.match((await gantt.locator('.gantt-track').nth(1).getAttribute('title'))!, /^flaky attempt 1: FAILED, /);
    // Later attempts start further right: the bars follow the time axis.
    const xs = await bars.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().left));
    assert.ok(xs[0]! < xs[1]! && xs[1]! < xs[2]!, `bars in time order: ${xs.join(', ')}`);
    // The first attempt ends before the retry starts.
    const first = (await bars.nth(1).boundingBox())!;
    const retry = (await bars.nth(2).boundingBox())!;
    assert.ok(first.x + first.width <= retry.x + 1, 'the retry starts after the failed attempt ended');
    await gantt.scrollIntoViewIfNeeded();
    await shot(page, 'details-04-timeline');
  });

  it('says a queued task run waits because every slot of its pool is busy, and live', async () => {
    const page = ui.admin;
    const pair = await ui.stack.trigger(NS, 'pair');
    const waiting = await ui.stack.waitFor(
      pair.id,
      (e) => e.task_runs.some((r: { state: string }) => r.state === 'RUNNING') && e.task_runs.some((r: { state: string }) => r.state === 'QUEUED'),
      60_000,
    );
    const queuedKey = waiting.task_runs.find((r: { state: string }) => r.state === 'QUEUED').task_key as string;
    const runningKey = queuedKey === 'left' ? 'right' : 'left';
    await page.goto(`/executions/${pair.id}`);
    await waitState(page, 'RUNNING');
    const why = page.getByTestId('task-wait');
    await why.getByText(new RegExp(`^${queuedKey} waits since .*: every process slot of pool "default" is busy`)).waitFor();
    await why.getByText(new RegExp(`held by this execution's ${runningKey} `)).waitFor();
    await shot(page, 'details-05-slots-busy');
    // Cancelling the running task's execution frees the slot; the notice goes as the state changes.
    await page.getByRole('button', { name: 'Cancel' }).click();
    await waitState(page, 'CANCELLED', 90_000);
    await why.waitFor({ state: 'detached' });
  });
});
