// A fanned-out task (for_each) on the execution page, in the browser: one
// node for the task with a live counter of its items (it changes while the
// execution runs, without a reload), the items list behind the node with
// each item's value, state and attempt, a failed item's error and its own
// log lines, and the items as bars of their own in the timeline; axe-core
// finds no control without an accessible name and no invalid ARIA in what the
// fan-out adds (the rules of ui-accessibility that apply to it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { browserSkipReason, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.fan';
const TABLES = Array.from({ length: 12 }, (_, i) => `t${String(i).padStart(2, '0')}`);
const FAILING = [4, 9];
// The items wait for this file, so the page sees them running before any has ended.
const gate = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-fan-'));
// Process tasks run as an unprivileged user (SVC_TASK_USER) when the dispatcher is root.
fs.chmodSync(gate, 0o755);
const sh = (script: string) => JSON.stringify(['sh', '-c', script]);
const FLOW = `id: fan
tasks:
  - id: list
    type: command
    command: ${sh(`printf '%s\\n' '${JSON.stringify({ outputs: { tables: TABLES } })}' >> "$SVC_OUTPUTS"`)}
  - id: load
    type: command
    depends_on: [list]
    for_each: "{{ tasks.list.outputs.tables }}"
    for_each_concurrency: 3
    env: {TABLE: "{{ item }}", INDEX: "{{ item_index }}"}
    command: ${sh(
      `while [ ! -f ${gate}/open ]; do sleep 0.1; done; ` + `case " ${FAILING.join(' ')} " in *" $INDEX "*) echo "cannot load $TABLE" >&2; exit 3;; esac; echo "loaded $TABLE"`,
    )}
  - id: report
    type: command
    depends_on: [load]
    command: ["echo", "report"]
`;

describe('a fanned-out task on the execution page', { skip, concurrency: false }, () => {
  let ui: Ui;
  let id: string;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'fan.flow.yaml': FLOW });
  });
  after(async () => {
    fs.rmSync(gate, { recursive: true, force: true });
    await ui?.stop();
  });

  it('shows one node with a live item counter that changes without a reload', async () => {
    const page = ui.admin;
    id = (await ui.stack.trigger(NS, 'fan')).id;
    // Three items running (for_each_concurrency 3), nine waiting: then the page opens.
    await ui.stack.waitFor(id, (e) => e.task_runs.some((r: any) => r.task_key === 'load' && r.item_counts?.running === 3), 90_000);
    await page.goto(`/executions/${id}`);
    await waitState(page, 'RUNNING');
    const graph = page.getByTestId('task-graph');
    const counter = graph.getByTestId('items-counter-load');
    await counter.getByText('12 items: 0 done, 3 running, 0 failed, 9 waiting').waitFor();
    await graph.getByRole('button', { name: 'Task load: RUNNING, 12 items: 0 done, 3 running, 0 failed, 9 waiting' }).waitFor();
    // One node per task, however many runs the task has.
    assert.equal(await graph.locator('.react-flow__node').count(), 3);
    await shot(page, 'fan-01-running');
    // A mark on the window: gone if the page were loaded again.
    await page.evaluate(() => ((window as unknown as { fanMark: number }).fanMark = 42));

    // The items go on: the counter follows the event stream.
    fs.writeFileSync(path.join(gate, 'open'), '');
    await counter.getByText('12 items: 10 done, 0 running, 2 failed').waitFor({ timeout: 90_000 });
    await waitState(page, 'FAILED');
    assert.equal(await page.evaluate(() => (window as unknown as { fanMark?: number }).fanMark), 42, 'the counter changed without a reload');
    await graph.getByRole('button', { name: 'Task load: FAILED, 12 items: 10 done, 0 running, 2 failed' }).waitFor();
    // report never ran: its dependency failed.
    await graph.getByRole('button', { name: /^Task report: (SKIPPED|CANCELLED|PENDING)/ }).waitFor();
    await shot(page, 'fan-02-ended');
  });

  it('clicks into the node, lists its items, and shows a failed item with its error and log lines', async () => {
    const page = ui.admin;
    await page.goto(`/executions/${id}`);
    await waitState(page, 'FAILED');
    const graph = page.getByTestId('task-graph');
    await graph.getByRole('button', { name: /^Task load: FAILED/ }).click();
    const items = page.getByRole('table', { name: 'Items of load' });
    await items.waitFor();
    const rows = items.locator('tbody tr');
    assert.equal(await rows.count(), 12);
    // Each row: the item's name, its value, its state, its attempt.
    for (let i = 0; i < 12; i++) {
      const cells = await rows.nth(i).locator('td').allInnerTexts();
      assert.equal(cells[0], `load[${i}]`);
      assert.equal(cells[1], TABLES[i]);
      assert.equal(cells[2].trim(), FAILING.includes(i) ? 'FAILED' : 'SUCCESS');
      assert.equal(cells[3], '1');
    }
    assert.equal(await page.getByTestId('items-summary').innerText(), '12 items: 10 done, 0 running, 2 failed');
    await shot(page, 'fan-03-items');

    // Only the failed ones, then one of them: its error, its value, and the log view narrowed to its lines.
    await page.getByRole('combobox', { name: 'Show items of load in state' }).selectOption('FAILED');
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    assert.deepEqual(await items.locator('tbody tr td:first-child').allInnerTexts(), ['load[4]', 'load[9]']);
    await items.getByRole('button', { name: 'Item 9 of load: FAILED' }).click();
    const detail = page.getByTestId('item-detail');
    await detail.getByRole('heading', { name: /load\[9\]/ }).waitFor();
    assert.match(await detail.getByTestId('item-error').innerText(), /exit code 3/);
    assert.match(await detail.locator('pre').first().innerText(), /"t09"/);
    const log = page.getByRole('log', { name: 'Log lines' });
    await log.getByText('cannot load t09').waitFor();
    assert.deepEqual(await log.locator('.log-text').allInnerTexts(), ['cannot load t09']);
    assert.equal(await log.locator('.log-task').first().innerText(), 'load[9]');
    assert.equal(await page.getByTestId('log-item').innerText(), 'only load[9]');
    await page
      .getByTestId('log-status')
      .getByText(/^1 of \d+ lines/)
      .waitFor();
    await shot(page, 'fan-04-failed-item');
    const axe = await new AxeBuilder({ page: page as never })
      .withRules([
        'button-name',
        'link-name',
        'label',
        'select-name',
        'aria-allowed-attr',
        'aria-valid-attr-value',
        'aria-roles',
        'aria-toggle-field-name',
        'nested-interactive',
        'scrollable-region-focusable',
        'duplicate-id-aria',
      ])
      .analyze();
    assert.deepEqual(
      axe.violations.flatMap((v) => v.nodes.map((n) => `${v.id} at ${n.target.join(' ')}`)),
      [],
    );
    await log.scrollIntoViewIfNeeded();
    await shot(page, 'fan-05-failed-item-logs');

    // Back to every item's lines: the other items' lines are there again.
    await detail.getByRole('button', { name: "Show every item's logs" }).click();
    await log.getByText('loaded t00').waitFor();
    assert.equal(await page.getByTestId('item-detail').count(), 0);
  });

  it('draws each item as a bar of its own in the timeline, under its task', async () => {
    const page = ui.admin;
    await page.goto(`/executions/${id}`);
    await waitState(page, 'FAILED');
    const timeline = page.getByRole('table', { name: 'Timeline of task runs' });
    await timeline.waitFor();
    const labels = (await timeline.getByRole('rowheader').allInnerTexts()).map((s) => s.trim());
    // The task's own row, then its items in index order.
    const at = labels.indexOf('load');
    assert.ok(at >= 0, `a row for load in ${JSON.stringify(labels)}`);
    assert.deepEqual(
      labels.slice(at + 1, at + 13),
      TABLES.map((_, i) => `load[${i}]`),
    );
    assert.equal(await timeline.locator('.gantt-item .gantt-bar.state-failed').count(), 2);
    assert.equal(await timeline.locator('.gantt-item .gantt-bar.state-success').count(), 10);
    await timeline.scrollIntoViewIfNeeded();
    await shot(page, 'fan-06-timeline');
  });
});
