// The execution page beyond the walkthrough, in the browser: the task graph
// panned, zoomed and fitted with the mouse and the keyboard; a task run's
// progress as its runner reports it; log search and log download.
import assert from 'node:assert/strict';
import { text as streamText } from 'node:stream/consumers';
import type { Download } from 'playwright-core';
import { after, before, describe, it } from 'node:test';
import { postRunnerEvent } from '../../../e2e/test/runner-events.ts';
import { browserSkipReason, graphViewport, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
/** A download's content (the browser is remote: its file is read through a stream). */
const read = async (d: Download) => streamText(await d.createReadStream());
const NS = 'web.views';
const fan = Array.from({ length: 10 }, (_, i) => `  - {id: part${i}, type: command, depends_on: [start], command: ["sh", "-c", "echo part ${i} done"]}`).join('\n');
const WIDE = `id: wide
tasks:
  - id: start
    type: command
    command: ["sh", "-c", "for i in $(seq 1 30); do echo row $i; done; echo needle-one; echo needle-two >&2"]
${fan}
  - {id: finish, type: command, depends_on: [${Array.from({ length: 10 }, (_, i) => `part${i}`).join(', ')}], command: ["echo", "all parts"]}
`;
const SLOW = `id: slow
tasks:
  - {id: copy, type: command, command: ["sleep", "120"]}
`;

describe('execution page views', { skip, concurrency: false }, () => {
  let ui: Ui;
  let wide: string;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'wide.flow.yaml': WIDE, 'slow.flow.yaml': SLOW });
    wide = (await ui.stack.trigger(NS, 'wide')).id;
    const ended = await ui.stack.waitEnded(wide, 120_000);
    assert.equal(ended.state, 'SUCCESS');
  });
  after(async () => ui?.stop());

  it('the task graph fits the view, then pans and zooms with the mouse, the buttons and the keyboard', async () => {
    const page = ui.admin;
    await page.goto(`/executions/${wide}`);
    await waitState(page, 'SUCCESS');
    const graph = page.getByTestId('task-graph');
    await graph.getByRole('button', { name: 'Task finish: SUCCESS' }).waitFor();
    // Twelve tasks, ten of them side by side: the first fit shrinks the graph to show it whole.
    const zoomText = () => graph.getByTestId('graph-zoom').innerText();
    await page.waitForFunction(() => document.querySelectorAll('.react-flow__node').length === 12);
    // The fit runs once React Flow has measured the nodes, a frame or more after they appear (later on a loaded machine).
    await page
      .waitForFunction(
        () => {
          const el = document.querySelector('.react-flow__viewport');
          return !!el && new DOMMatrixReadOnly(getComputedStyle(el).transform).a < 1;
        },
        undefined,
        { timeout: 15_000 },
      )
      .catch(() => undefined);
    const fitted = await graphViewport(page);
    assert.ok(fitted.zoom < 1, `fitted zoom ${fitted.zoom}`);
    assert.equal(await zoomText(), `${Math.round(fitted.zoom * 100)}%`);
    const box = (await graph.boundingBox())!;
    for (const node of await graph.locator('.react-flow__node').all()) {
      const b = (await node.boundingBox())!;
      assert.ok(b.x >= box.x - 1 && b.x + b.width <= box.x + box.width + 1 && b.y >= box.y - 1 && b.y + b.height <= box.y + box.height + 1, 'every node is in view after the fit');
    }
    await graph.locator('.react-flow__minimap').waitFor(); // an overview, for a graph of more than 8 tasks
    await shot(page, 'graph-01-fitted');

    // Zoom in with the button: the zoom level grows and is shown.
    await graph.getByRole('button', { name: 'Zoom in' }).click();
    await page.waitForFunction((z) => {
      const m = new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__viewport')!).transform);
      return m.a > z * 1.05;
    }, fitted.zoom);
    const zoomed = await graphViewport(page);
    assert.equal(await zoomText(), `${Math.round(zoomed.zoom * 100)}%`);

    // Drag the background: the graph moves with the mouse.
    const pane = graph.locator('.react-flow__pane');
    const pb = (await pane.boundingBox())!;
    const sx = pb.x + 12;
    const sy = pb.y + pb.height - 12;
    await page.mouse.move(sx, sy);
    await page.mouse.down();
    await page.mouse.move(sx + 60, sy - 40, { steps: 6 });
    await page.mouse.move(sx + 120, sy - 80, { steps: 6 });
    await page.mouse.up();
    const dragged = await graphViewport(page);
    assert.ok(Math.abs(dragged.x - zoomed.x - 120) < 4 && Math.abs(dragged.y - zoomed.y + 80) < 4, `panned by the drag: ${JSON.stringify({ zoomed, dragged })}`);
    assert.equal(dragged.zoom, zoomed.zoom);

    // The wheel zooms out around the pointer.
    await page.mouse.move(pb.x + pb.width / 2, pb.y + pb.height / 2);
    await page.mouse.wheel(0, 400);
    await page.waitForFunction((z) => new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__viewport')!).transform).a < z * 0.95, dragged.zoom);
    await shot(page, 'graph-02-zoomed-and-panned');

    // The keyboard: focus the graph; arrows pan, + zooms in, 0 fits again.
    await graph.focus();
    const beforeKeys = await graphViewport(page);
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction((x) => new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__viewport')!).transform).e > x + 30, beforeKeys.x);
    const afterArrow = await graphViewport(page);
    await page.keyboard.press('+');
    await page.waitForFunction((z) => new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__viewport')!).transform).a > z * 1.05, afterArrow.zoom);
    await page.keyboard.press('0');
    await page.waitForFunction((f) => {
      const m = new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__viewport')!).transform);
      return Math.abs(m.a - f.zoom) < 0.01 && Math.abs(m.e - f.x) < 2 && Math.abs(m.f - f.y) < 2;
    }, fitted);

    // Zoomed in, Tab reaches a node out of view and the view follows it; Enter selects it for the logs.
    for (let i = 0; i < 4; i++) await graph.getByRole('button', { name: 'Zoom in' }).click();
    const part9 = graph.getByRole('button', { name: 'Task part9: SUCCESS' });
    await part9.focus();
    await page.waitForFunction(() => {
      const g = document.querySelector('[data-testid="task-graph"]')!.getBoundingClientRect();
      const n = document.querySelector('[data-id="part9"]')!.getBoundingClientRect();
      return n.left >= g.left && n.right <= g.right && n.top >= g.top && n.bottom <= g.bottom;
    });
    await page.keyboard.press('Enter');
    assert.equal(await part9.getAttribute('aria-pressed'), 'true');
    await page.getByRole('log', { name: 'Log lines' }).getByText('part 9 done').waitFor();
    await page
      .getByTestId('log-status')
      .getByText(/^1 of 43 lines/)
      .waitFor();
    await shot(page, 'graph-03-node-selected');
    // The Fit button brings the whole graph back.
    await graph.getByRole('button', { name: 'Fit the graph to the view' }).click();
    await page.waitForFunction((f) => Math.abs(new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__viewport')!).transform).a - f.zoom) < 0.01, fitted);
  });

  it('searches the logs and downloads them', async () => {
    const page = ui.admin;
    await page.goto(`/executions/${wide}`);
    const log = page.getByRole('log', { name: 'Log lines' });
    const status = page.getByTestId('log-status');
    await status.getByText('43 lines · ended').waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).fill('NEEDLE');
    // Case-insensitive; stdout and stderr lines alike.
    await status.getByText('2 of 43 lines · ended').waitFor();
    assert.deepEqual(await log.locator('.log-text').allInnerTexts(), ['needle-one', 'needle-two']);
    assert.equal(await log.locator('.log-line.stderr .log-text').innerText(), 'needle-two');
    await shot(page, 'logs-01-search');
    await page.getByRole('searchbox', { name: 'Search' }).fill('no such text');
    await status.getByText('0 of 43 lines · ended').waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await status.getByText('43 lines · ended').waitFor();

    // Download: every line of the execution, as a file.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download' }).click()]);
    assert.equal(download.suggestedFilename(), `${NS}-wide-${wide}.log`);
    const text = await read(download);
    assert.match(text, /row 1\b/);
    assert.match(text, /needle-two/);
    assert.match(text, /all parts/);
    assert.equal(text.trim().split('\n').length, 43);
    // With a task chosen, the download has that task's lines only.
    await page.getByRole('combobox', { name: 'Show logs of task' }).selectOption('finish');
    await status.getByText('1 of 43 lines · ended').waitFor();
    const [one] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download' }).click()]);
    const only = await read(one);
    assert.match(only, /all parts/);
    assert.equal(only.trim().split('\n').length, 1);
  });

  it('shows the progress a running task run reports, on the graph and in the progress list', async () => {
    const page = ui.admin;
    const slow = await ui.stack.trigger(NS, 'slow');
    const running = await ui.stack.waitFor(slow.id, (e) => e.task_runs[0]?.state === 'RUNNING', 60_000);
    await page.goto(`/executions/${slow.id}`);
    await waitState(page, 'RUNNING');
    assert.equal(await postRunnerEvent(ui.stack, running.task_runs[0].id, { type: 'progress', message: 'copied 4 of 10 files', percent: 40 }), 204);
    const list = page.getByRole('list', { name: 'Task progress' });
    await list.getByText('copied 4 of 10 files').waitFor();
    await page.getByRole('progressbar', { name: 'copy progress' }).waitFor();
    assert.equal(await page.getByRole('progressbar', { name: 'copy progress' }).getAttribute('value'), '40');
    await page.getByTestId('task-graph').getByText('RUNNING · 40%').waitFor();
    await shot(page, 'progress-01-40');
    // A later event replaces it, live.
    assert.equal(await postRunnerEvent(ui.stack, running.task_runs[0].id, { type: 'progress', message: 'copied 9 of 10 files', percent: 90 }), 204);
    await list.getByText('copied 9 of 10 files').waitFor();
    await page.getByTestId('task-graph').getByText('RUNNING · 90%').waitFor();
    assert.equal(await list.getByText('copied 4 of 10 files').count(), 0);
    await ui.stack.api('POST', `/api/v1/executions/${slow.id}/cancel`);
    await waitState(page, 'CANCELLED');
  });
});
