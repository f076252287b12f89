// The flow page in the browser: the next fire time of a schedule, the webhook
// URL and its key rotation, disable and enable, the last-50 durations chart,
// a custom metric chart, and a revision compared side by side with the
// current one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.flowpage';
const flow = (description: string) => `id: daily
description: ${description}
inputs:
  - {id: rows, type: int, default: 3}
triggers:
  - {id: nightly, type: schedule, cron: "0 3 * * *", timezone: UTC}
  - {id: hook, type: webhook}
tasks:
  - id: count
    type: command
    command: ["sh", "-c", "echo counted; echo '{\\"metrics\\": [{\\"name\\": \\"rows\\", \\"value\\": {{ inputs.rows }}, \\"tags\\": {\\"table\\": \\"orders\\"}}]}' >> \\"$SVC_OUTPUTS\\""]
`;

describe('flow page', { skip, concurrency: false }, () => {
  let ui: Ui;
  const base = `/api/v1/flows/${NS}/daily`;

  before(async () => {
    ui = await startUi();
    // The scheduler keeps the rows listUpcomingSchedules reads.
    ui.stack.startApp('scheduler');
    await ui.stack.saveFlow(NS, { 'daily.flow.yaml': flow('Counts the rows') });
  });
  after(async () => ui?.stop());

  it("shows the schedule's next fire time as the scheduler planned it", async () => {
    const page = ui.admin;
    let next: { next_fire_at: string } | undefined;
    for (let i = 0; i < 600 && !next; i++) {
      next = (await ui.stack.api('GET', `/api/v1/schedules/upcoming?namespace=${NS}`)).body.items?.[0];
      if (!next) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(next, 'the scheduler planned the schedule');
    await page.goto(`/flows/${NS}/daily`);
    const fire = page.getByTestId('next-fire-nightly');
    await fire.waitFor();
    assert.equal(await fire.locator('time').getAttribute('datetime'), next.next_fire_at);
    // Hours and minutes, or under an hour before 03:00 UTC minutes and seconds, or seconds (fmtDuration's forms).
    assert.match(await fire.innerText(), /Next fire .+ \(in (\d+h \d+m|\d+m \d+s|\d+ m?s)\) · 0 3 \* \* \* UTC · last fired never/);
    assert.equal(new Date(next.next_fire_at).getUTCHours(), 3);
  });

  it('rotates the webhook key: the new URL starts the flow, the old one no longer does', async () => {
    const page = ui.admin;
    const url = page.getByTestId('webhook-url');
    const old = await url.innerText();
    assert.match(old, /\/hooks\/\S+$/);
    await page.getByRole('listitem', { name: 'Trigger hook' }).getByRole('button', { name: 'Rotate key' }).click();
    await page.waitForFunction((o) => document.querySelector('[data-testid="webhook-url"]')?.textContent !== o, old);
    const fresh = await url.innerText();
    await shot(page, 'flow-01-webhook-rotated');
    assert.notEqual(fresh, old);
    const path = (u: string) => new URL(u).pathname;
    const gone = await fetch(`${ui.stack.url}${path(old)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(gone.status, 404);
    const started = await fetch(`${ui.stack.url}${path(fresh)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.ok(started.status === 201 || started.status === 202, `webhook answered ${started.status}`);
    const { id } = (await started.json()) as { id: string };
    assert.equal((await ui.stack.waitEnded(id, 60_000)).state, 'SUCCESS');
  });

  it('disables the flow (run refused, schedule paused) and enables it again', async () => {
    const page = ui.admin;
    await page.goto(`/flows/${NS}/daily`);
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    await page.locator('h1 + .badge', { hasText: 'disabled' }).waitFor();
    const run = page.getByRole('form', { name: 'Run the flow' }).getByRole('button', { name: 'Run' });
    assert.equal(await run.isDisabled(), true);
    assert.equal(await run.getAttribute('title'), 'The flow is disabled');
    await page.getByRole('listitem', { name: 'Trigger nightly' }).getByText('Paused: the flow is disabled').waitFor();
    await shot(page, 'flow-02-disabled');
    assert.equal((await ui.stack.api('GET', base)).body.enabled, false);
    // The flow list says so too.
    await page.goto(`/flows?namespace=${NS}`);
    await page.getByRole('row', { name: /daily/ }).getByText('disabled').waitFor();
    await page.getByRole('link', { name: 'daily' }).click();
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    assert.equal(await run.isDisabled(), false);
    assert.equal((await ui.stack.api('GET', base)).body.enabled, true);
    await page.getByTestId('next-fire-nightly').waitFor({ timeout: 60_000 });
  });

  it('charts the last durations and a custom metric grouped by tag', async () => {
    const page = ui.admin;
    for (const rows of ['5', '8']) {
      await page.goto(`/flows/${NS}/daily`);
      await page.getByRole('form', { name: 'Run the flow' }).getByLabel(/^rows/).fill(rows);
      await page.getByRole('form', { name: 'Run the flow' }).getByRole('button', { name: 'Run' }).click();
      await page.waitForURL(/\/executions\/[^/]+$/);
      await waitState(page, 'SUCCESS');
    }
    await page.goto(`/flows/${NS}/daily`);
    // Three ended runs (the webhook's and two from the form): three bars, each named by its execution and state.
    const durations = page.getByRole('region', { name: 'Last 50 durations' });
    await durations.getByRole('img', { name: /Durations of the last 50 executions, oldest first: 3 values/ }).waitFor();
    const bars = await durations.locator('rect title').allTextContents();
    assert.equal(bars.length, 3);
    for (const b of bars) assert.match(b, /^\S+ SUCCESS: \d/);
    const metrics = page.getByRole('region', { name: 'Custom metrics' });
    await metrics.getByLabel('Metric').fill('rows');
    await metrics.getByLabel('Group by tag').fill('table');
    await metrics.getByLabel('Aggregate').selectOption('max');
    const chart = metrics.getByRole('img', { name: 'max of rows per execution, up to 8' });
    await chart.waitFor();
    await metrics.getByRole('listitem').filter({ hasText: 'orders' }).waitFor(); // the legend names the tag value
    await shot(page, 'flow-03-charts');
    await metrics.getByLabel('Metric').fill('nothing_like_it');
    await metrics.getByText('No values of nothing_like_it in the last 50 executions.').waitFor();
  });

  it('compares an older revision with the current one, side by side', async () => {
    const page = ui.admin;
    await ui.stack.saveFlow(NS, { 'daily.flow.yaml': flow('Counts the rows twice as well') });
    await page.goto(`/flows/${NS}/daily`);
    const revisions = page.getByRole('region', { name: 'Revisions' });
    await revisions.getByRole('cell', { name: '#2 (current)' }).waitFor();
    await revisions.getByRole('button', { name: 'Compare revision 1 with the current one' }).click();
    const diff = revisions.getByRole('table', { name: 'Differences between revision 1 and revision 2' });
    await diff.waitFor();
    assert.deepEqual(await diff.locator('td.code.del').allInnerTexts(), ['description: Counts the rows']);
    assert.deepEqual(await diff.locator('td.code.add').allInnerTexts(), ['description: Counts the rows twice as well']);
    // Unchanged lines sit on both sides.
    assert.ok((await diff.locator('td.code.ctx').allInnerTexts()).includes('id: daily'));
    await shot(page, 'flow-04-revision-diff');
  });
});
