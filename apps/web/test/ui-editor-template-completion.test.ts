// The editor completes template expressions inside `{{ }}` of a flow file:
// typing `{{ execution.` offers the execution's fields with start_date among
// them, `{{ trigger.` offers date; Enter inserts the chosen one. In a task
// with for_each it offers item and item_index too, and in a task without
// one it does not (the validator refuses them there); the schema's completion
// of a task's keys offers for_each_concurrency.
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
const FANOUT = `id: fanout
tasks:
  - id: report
    type: command
    command: ["echo", "done"]
  - id: load
    type: command
    command: ["echo", "one"]
    for_each: [users, orders]`;

describe('editor: completion inside {{ }}', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'nightly.flow.yaml': FLOW, 'fanout.flow.yaml': FANOUT });
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

  it('offers item and item_index in a task with for_each, and not in a task without one', async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}?file=${encodeURIComponent('fanout.flow.yaml')}`);
    await page.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('for_each: [users, orders]'));
    await page.locator('.cm-content').click();
    // After the last line, still in the load task: its for_each makes item and item_index readable.
    await page.keyboard.press('Control+End');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('env: {PART: "{{ it', { delay: 20 });
    const inLoad = await options(page, 'item_index');
    for (const r of ['item', 'item_index'])
      assert.ok(
        inLoad.some((o) => o.startsWith(r)),
        `${r} offered: ${inLoad.join(', ')}`,
      );
    await shot(page, 'editor-template-completion-03-item');
    await page.keyboard.type('em_', { delay: 20 });
    await onlyOption(page, 'item_index');
    await accept(page);
    await page.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('{{ item_index'));

    // The report task (line 5) has no for_each: the roots come without them.
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('env: {A: "{{ ', { delay: 20 });
    const inReport = await options(page, 'inputs');
    assert.ok(!inReport.some((o) => o.startsWith('item')), `no item offered outside a for_each task: ${inReport.join(', ')}`);
    assert.ok(inReport.some((o) => o.startsWith('tasks')));

    // The task's keys come from the served schema, the fan-out's among them.
    await page.keyboard.press('Escape');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('for_each_c', { delay: 20 });
    await page.locator('.cm-tooltip-autocomplete li', { hasText: 'for_each_concurrency' }).first().waitFor();
    await shot(page, 'editor-template-completion-04-for-each-field');
  });
});
