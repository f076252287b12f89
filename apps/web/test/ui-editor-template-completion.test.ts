// The editor completes template expressions inside `{{ }}` of a flow file:
// typing `{{ execution.` offers the execution's fields with start_date among
// them, `{{ trigger.` offers date; Enter inserts the chosen one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.tplcomplete';
const FLOW = `id: nightly
triggers:
  - {id: tick, type: schedule, cron: "0 2 * * *", timezone: Europe/Berlin}
tasks:
  - id: report
    type: command
    command: ["echo", "one"]`;

describe('editor: completion inside {{ }}', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'nightly.flow.yaml': FLOW });
  });
  after(async () => ui?.stop());

  /** The options shown once the list offers `expected` (typed keys arrive one by one: the list first shows the roots). */
  const options = async (page: Page, expected: string) => {
    await page.waitForFunction((l) => [...document.querySelectorAll('.cm-tooltip-autocomplete li .cm-completionLabel')].some((e) => e.textContent!.startsWith(l)), expected);
    return page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allInnerTexts();
  };
  const onlyOption = (page: Page, label: string) =>
    page.waitForFunction((l) => {
      const items = [...document.querySelectorAll('.cm-tooltip-autocomplete li')];
      return items.length === 1 && items[0]!.getAttribute('aria-selected') === 'true' && items[0]!.textContent!.startsWith(l);
    }, label);
  /**
   * Enter on the selected option. CodeMirror ignores Enter on a list updated
   * less than its interactionDelay (75 ms) before, so a fast Enter does not
   * pick by accident (it inserts a newline instead): wait past it first.
   */
  const accept = async (page: Page) => {
    await page.waitForTimeout(300);
    await page.keyboard.press('Enter');
  };
  const doc = (page: Page) => page.evaluate(() => [...document.querySelectorAll('.cm-content .cm-line')].map((l) => l.textContent).join('\n'));

  it('offers execution.start_date and trigger.date, and inserts the one chosen', async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}?file=${encodeURIComponent('nightly.flow.yaml')}`);
    await page.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('command: ["echo", "one"]'));
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('env: {STARTED: "{{ execution.', { delay: 20 });
    const fields = await options(page, 'start_date');
    for (const f of ['id', 'namespace', 'flow_id', 'start_date'])
      assert.ok(
        fields.some((o) => o.startsWith(f)),
        `${f} offered: ${fields.join(', ')}`,
      );
    await shot(page, 'editor-template-completion-01-execution');
    await page.keyboard.type('sta', { delay: 20 });
    // The list narrows to what was typed; Enter takes the selected option.
    await onlyOption(page, 'start_date');
    await accept(page);
    await page.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('{{ execution.start_date'));

    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('# the day: {{ trigger.', { delay: 20 });
    const trigger = await options(page, 'date');
    assert.ok(
      trigger.some((o) => o.startsWith('date')),
      `date offered: ${trigger.join(', ')}`,
    );
    await shot(page, 'editor-template-completion-02-trigger');
    await page.keyboard.type('da', { delay: 20 });
    await onlyOption(page, 'date');
    await accept(page);
    await page.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('{{ trigger.date'));
    assert.match(await doc(page), /\{\{ execution\.start_date/);
  });
});
