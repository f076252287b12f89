// The dashboard's charts in the browser: ended executions stacked by end
// state, the p50/p95 duration lines, the range switcher (mouse and arrow
// keys), the namespace filter, and a new run arriving without a reload.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const ok = 'id: ok\ntasks:\n  - {id: t, type: command, command: ["sleep", "0.2"]}\n';
const bad = 'id: bad\ntasks:\n  - {id: t, type: command, command: ["sh", "-c", "exit 3"]}\n';

describe('dashboard charts', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow('web.dash-a', { 'ok.flow.yaml': ok });
    await ui.stack.saveFlow('web.dash-b', { 'bad.flow.yaml': bad });
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push((await ui.stack.trigger('web.dash-a', 'ok')).id);
    for (let i = 0; i < 2; i++) runs.push((await ui.stack.trigger('web.dash-b', 'bad')).id);
    for (const id of runs) await ui.stack.waitEnded(id, 120_000);
  });
  after(async () => ui?.stop());

  it('draws the ended executions per bucket by end state and the p50/p95 durations', async () => {
    const page = ui.admin;
    await page.goto('/');
    await page.getByLabel('Executions: 5').waitFor();
    const stacked = page.getByRole('region', { name: 'Ended executions per bucket' });
    await stacked.getByRole('img', { name: /Ended executions per bucket by end state: \d+ buckets, at most [1-5] per bucket/ }).waitFor();
    // Each bucket's tooltip counts its runs by end state; together: three successes, two failures.
    const titles = await stacked.locator('g title').allTextContents();
    const total = (state: string) => titles.reduce((t, x) => t + Number(new RegExp(`${state} (\\d+)`).exec(x)?.[1] ?? 0), 0);
    assert.deepEqual([total('success'), total('failed'), total('timed out'), total('cancelled')], [3, 2, 0, 0], JSON.stringify(titles));
    // A rect per non-zero state of a bucket, in the state's colour.
    assert.ok((await stacked.locator('rect.fill-success').count()) >= 1);
    assert.ok((await stacked.locator('rect.fill-failed').count()) >= 1);
    assert.equal(await stacked.locator('rect.fill-cancelled').count(), 0);
    assert.deepEqual(
      (await stacked.getByRole('listitem').allInnerTexts()).map((t) => t.trim()),
      ['success', 'failed', 'timed out', 'cancelled', 'skipped'],
    );
    const lines = page.getByRole('region', { name: 'Durations p50 / p95' });
    await lines.getByRole('img', { name: /Duration percentiles per bucket, up to \d/ }).waitFor();
    for (const cls of ['line-p50', 'line-p95']) {
      // A point per bucket with data (a short dash, so a single bucket shows).
      assert.ok((await lines.locator(`g.${cls} line`).count()) >= 1, cls);
    }
    await shot(page, 'dashboard-01-charts');
  });

  it('switches the range with the mouse and with the arrow keys', async () => {
    const page = ui.admin;
    const ranges = page.getByRole('radiogroup', { name: 'Range' });
    await ranges.getByRole('radio', { name: '7d' }).click();
    await page.waitForURL(/range=7d/);
    assert.equal(await ranges.getByRole('radio', { name: '7d' }).getAttribute('aria-checked'), 'true');
    // Day buckets: the caption names dates, not times.
    await page
      .getByRole('region', { name: 'Ended executions per bucket' })
      .locator('figcaption')
      .filter({ hasText: /\d{1,4}[./-]\d{1,2}[./-]\d{1,4}/ })
      .waitFor();
    await page.getByLabel('Executions: 5').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(/range=30d/);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), '30d');
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(/range=24h/);
    assert.equal(await ranges.getByRole('radio', { name: '24h' }).getAttribute('aria-checked'), 'true');
  });

  it('filters by namespace, and counts a new run without a reload', async () => {
    const page = ui.admin;
    await page.getByLabel('Namespace').selectOption('web.dash-a');
    await page.waitForURL(/namespace=web.dash-a/);
    await page.getByLabel('Executions: 3').waitFor();
    await page.getByLabel('Failed: 0').waitFor();
    await page.getByRole('region', { name: 'Recent failures' }).getByText('No executions.').waitFor();
    await shot(page, 'dashboard-02-namespace');
    // The dashboard refreshes by itself: a run started elsewhere shows up.
    const extra = await ui.stack.trigger('web.dash-a', 'ok');
    await ui.stack.waitEnded(extra.id, 60_000);
    await page.getByLabel('Executions: 4').waitFor({ timeout: 30_000 });
    await page.getByLabel('Succeeded: 4').waitFor();
  });
});
