// The flow page's Backfill section in the browser: pick the
// schedule and a range over the spring-forward day, see the preview (UTC and
// the schedule's zone, 02:30 skipped to 03:00), start it, pause and resume
// it while the scheduler runs it, follow its progress to the end; a second
// one cancelled from the page. Screenshots of each step.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.backfill';

describe('flow page backfill', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi({ maintenance: false });
    await ui.stack.saveFlow(NS, {
      'nightly.flow.yaml': `id: nightly
triggers:
  - {id: berlin, type: schedule, cron: "30 2 * * *", timezone: Europe/Berlin}
tasks:
  - {id: t, type: command, command: ["true"]}
`,
    });
  });
  after(async () => ui?.stop());

  const progressOf = async (row: ReturnType<Ui['admin']['getByRole']>) => row.getByTestId('backfill-progress').innerText();

  it('previews the fire times, starts, pauses, resumes and follows a backfill to the end', async () => {
    const page = ui.admin;
    await page.goto(`/flows/${NS}/nightly`);
    const section = page.getByRole('region', { name: 'Backfill' }).or(page.locator('section[aria-label="Backfill"]'));
    await section.first().waitFor();
    const form = page.getByRole('form', { name: 'Backfill a schedule' });
    await form.getByLabel('Schedule').selectOption('berlin');
    await form.getByLabel('From (UTC)').fill('2026-03-27T00:00');
    await form.getByLabel('To (UTC)').fill('2026-03-30T23:59');
    await form.getByLabel('In flight at most').fill('2');
    await form.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByRole('region', { name: 'Backfill preview' });
    await preview.waitFor();
    assert.equal(await preview.getByTestId('backfill-total').innerText(), '4');
    const times = await preview.locator('li').allInnerTexts();
    assert.deepEqual(times, [
      '2026-03-27T01:30:00Z · 2026-03-27 02:30 +01:00',
      '2026-03-28T01:30:00Z · 2026-03-28 02:30 +01:00',
      '2026-03-29T01:00:00Z · 2026-03-29 03:00 +02:00',
      '2026-03-30T00:30:00Z · 2026-03-30 02:30 +02:00',
    ]);
    await shot(page, 'backfill-01-preview');
    // The preview created nothing.
    assert.equal((await ui.stack.api('GET', `/api/v1/flows/${NS}/nightly/backfills`)).body.items.length, 0);

    // Started with no scheduler running: it stays at 4 left until one runs.
    await preview.getByRole('button', { name: 'Start backfill (4)' }).click();
    const table = page.getByRole('table', { name: 'Backfills' });
    const row = table.getByRole('row').nth(1);
    await row.waitFor();
    assert.equal(await row.getByTestId('backfill-state').innerText(), 'running');
    assert.match(await progressOf(row), /0 done, 0 running, 0 failed, 4 left/);
    await row.getByRole('button', { name: 'Pause' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="backfill-state"]')?.textContent === 'paused');
    await shot(page, 'backfill-02-paused');

    const sched = ui.stack.startApp('scheduler', { SVC_SCHEDULER_TICK_MS: '200' });
    try {
      // Paused: the scheduler creates nothing.
      await new Promise((r) => setTimeout(r, 1500));
      const [b] = (await ui.stack.api('GET', `/api/v1/flows/${NS}/nightly/backfills`)).body.items;
      assert.equal(b.progress.left, 4);
      await row.getByRole('button', { name: 'Resume' }).click();
      // The page follows the progress by itself (every 2 s while running).
      await page.waitForFunction(() => document.querySelector('[data-testid="backfill-state"]')?.textContent === 'done', undefined, { timeout: 90_000 });
      assert.match(await progressOf(row), /4 done, 0 running, 0 failed, 0 left/);
      assert.equal(await row.getByRole('button', { name: 'Pause' }).count(), 0);
      await shot(page, 'backfill-03-done');

      // Its executions, by the label, on the executions page.
      await row.getByRole('link', { name: 'executions' }).click();
      await page.waitForURL(/\/executions\?label=backfill/);
      const flowLinks = page.getByRole('table').getByRole('link', { name: 'nightly', exact: true });
      await flowLinks.first().waitFor();
      assert.equal(await flowLinks.count(), 4);
    } finally {
      sched.child.kill('SIGTERM');
      await sched.exited;
    }
  });

  it('cancels a backfill from the page', async () => {
    const page = ui.admin;
    await page.goto(`/flows/${NS}/nightly`);
    const form = page.getByRole('form', { name: 'Backfill a schedule' });
    await form.getByLabel('From (UTC)').fill('2026-01-01T00:00');
    await form.getByLabel('To (UTC)').fill('2026-01-31T00:00');
    await form.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: 'Start backfill (30)' }).click();
    const row = page.getByRole('table', { name: 'Backfills' }).getByRole('row').nth(1);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="backfill-state"]').length === 2);
    assert.match(await progressOf(row), /30 left/);
    await row.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="backfill-state"]')?.textContent === 'cancelled');
    assert.match(await progressOf(row), /0 done, 0 running, 0 failed, 0 left/);
    assert.equal(await row.getByRole('button', { name: 'Resume' }).count(), 0);
    await shot(page, 'backfill-04-cancelled');
  });
});
