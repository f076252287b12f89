// The execution page while things happen, and what links executions and
// scopes together: a parent's page links to the child its subflow task
// started and back, the task graph recolours each node live as its state
// changes (no reload), the log view follows new lines at the bottom until the
// user scrolls up and again when Follow is ticked, and secrets set in the
// global scope and in a namespace scope are listed apart and both masked in
// a run that uses them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { browserSkipReason, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.live';
const sh = (script: string) => ['sh', '-c', script];
// The child runs until the test lets it end (a file appears), so the parent is seen RUNNING however slow the machine.
const GATE = path.join(os.tmpdir(), `svc-ui-live-gate-${process.pid}`);
const CHILD = JSON.stringify({ id: 'child', tasks: [{ id: 'work', type: 'command', command: sh(`while [ ! -e ${GATE} ]; do sleep 0.1; done; echo child done`) }] });
const PARENT = JSON.stringify({
  id: 'parent',
  tasks: [
    { id: 'call', type: 'subflow', flow: `${NS}/child` },
    { id: 'after', type: 'command', depends_on: ['call'], command: sh('sleep 1; echo parent done') },
  ],
});
const CHATTY = JSON.stringify({
  id: 'chatty',
  tasks: [{ id: 'talk', type: 'command', command: sh('i=1; while [ $i -le 600 ]; do echo "row $i"; i=$((i+1)); sleep 0.02; done') }],
});
const GLOBAL_VALUE = 'glob-value-7f3a91c2';
const NS_VALUE = 'ns-value-b82e4d10';
const USES = JSON.stringify({
  id: 'uses',
  tasks: [{ id: 'show', type: 'command', command: sh(`echo "global={{ secret('G_TOKEN') }} ns={{ secret('NS_TOKEN') }}"`) }],
});

/** The colour a state is drawn in, as the browser computes it (the theme's CSS variable). */
const stateColour = (page: Page, state: string) =>
  page.evaluate((s) => {
    const probe = document.createElement('span');
    probe.style.color = `var(--${s.toLowerCase()})`;
    document.body.append(probe);
    const c = getComputedStyle(probe).color;
    probe.remove();
    return c;
  }, state);
/** The colour a graph node is drawn in, once it settles on `state`'s (React Flow may remount a node while it updates): [seen, wanted]. */
async function nodeColour(page: Page, node: Locator, state: string): Promise<[string, string]> {
  const wanted = await stateColour(page, state);
  let seen = '';
  for (let i = 0; i < 100; i++) {
    seen = await node.evaluate((el) => getComputedStyle(el).borderTopColor).catch(() => '');
    if (seen === wanted) break;
    await page.waitForTimeout(50);
  }
  return [seen, wanted];
}

/** The log view's scroll position: top, and whether it shows the last line. */
const scrollOf = (page: Page) =>
  page
    .getByRole('log', { name: 'Log lines' })
    .evaluate((el) => ({ top: el.scrollTop, atBottom: el.scrollTop + el.clientHeight >= el.scrollHeight - 30, gap: el.scrollHeight - el.scrollTop - el.clientHeight }));
/** The count the log view's status shows ("1,234 lines · live"). */
const parseCount = (status: string) => Number(status.replace(/,/g, '').replace(/[^\d].*$/s, ''));
const lineCount = async (page: Page) => parseCount((await page.getByTestId('log-status').textContent())!);
/** Waits until the log view shows at least `n` lines. */
async function waitForLines(page: Page, n: number): Promise<void> {
  for (let i = 0; i < 1200 && (await lineCount(page)) < n; i++) await page.waitForTimeout(50);
  assert.ok((await lineCount(page)) >= n, `at least ${n} lines shown`);
}

describe('live execution page, related executions and secret scopes', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'child.flow.yaml': CHILD, 'parent.flow.yaml': PARENT, 'chatty.flow.yaml': CHATTY, 'uses.flow.yaml': USES });
  });
  after(async () => {
    fs.rmSync(GATE, { force: true });
    await ui?.stop();
  });

  it('links a parent to its child and back; the graph recolours live as states change', async () => {
    const page = ui.admin;
    const parent = await ui.stack.trigger(NS, 'parent');
    await page.goto(`/executions/${parent.id}`);
    const call = page.getByRole('button', { name: /^Task call: / });
    await page.getByRole('button', { name: 'Task call: RUNNING' }).waitFor({ timeout: 60_000 });
    assert.equal(...(await nodeColour(page, call, 'RUNNING')), 'a running task is drawn in the running colour');
    const after = page.getByRole('button', { name: /^Task after: / });
    assert.equal(await after.getAttribute('aria-label'), 'Task after: PENDING', 'after waits for call');
    assert.equal(...(await nodeColour(page, after, 'PENDING')), 'a pending task is drawn in the pending colour');
    await shot(page, 'live-01-parent-running');

    // The child its subflow task started, linked with its state.
    const related = page.getByRole('list', { name: 'Related executions' });
    const childLink = related.getByRole('link');
    await childLink.waitFor();
    const childId = (await childLink.textContent())!;
    const kids = (await ui.stack.db.query(`SELECT id FROM executions WHERE parent_execution_id = $1`, [parent.id])).rows.map((r) => r.id);
    assert.deepEqual(kids, [childId], 'the linked child is the one child');
    fs.writeFileSync(GATE, '');
    await childLink.click();
    await page.waitForURL(`**/executions/${childId}`);
    await page.getByRole('heading', { name: `Execution ${childId}` }).waitFor();
    await waitState(page, 'SUCCESS');
    const work = page.getByRole('button', { name: 'Task work: SUCCESS' });
    assert.equal(...(await nodeColour(page, work, 'SUCCESS')), 'the child task in the success colour');
    await shot(page, 'live-02-child');

    // Back to the parent through its link: it goes on live to SUCCESS, each node recoloured without a reload.
    const parentLink = page.getByRole('list', { name: 'Related executions' }).getByRole('link', { name: parent.id });
    await parentLink.click();
    await page.waitForURL(`**/executions/${parent.id}`);
    const navigations: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && navigations.push(f.url()));
    await waitState(page, 'SUCCESS');
    await page.getByRole('button', { name: 'Task after: SUCCESS' }).waitFor();
    assert.equal(...(await nodeColour(page, page.getByRole('button', { name: 'Task call: SUCCESS' }), 'SUCCESS')));
    assert.equal(...(await nodeColour(page, after, 'SUCCESS')));
    assert.deepEqual(navigations, [], 'the page was not reloaded');
    await related.getByText('SUCCESS').waitFor();
    await shot(page, 'live-03-parent-success');
  });

  it('the log view follows new lines until scrolled up, and again when Follow is ticked', async () => {
    const page = ui.admin;
    const ex = await ui.stack.trigger(NS, 'chatty');
    await page.goto(`/executions/${ex.id}`);
    const log = page.getByRole('log', { name: 'Log lines' });
    const follow = page.getByRole('checkbox', { name: 'Follow' });
    await log.getByText('row 60', { exact: true }).waitFor({ timeout: 60_000 });
    assert.ok(await follow.isChecked(), 'Follow is on by default');
    // While following, each new line is scrolled into view.
    for (let i = 0; i < 3; i++) {
      await waitForLines(page, (await lineCount(page)) + 20);
      await page.waitForTimeout(100);
      const at = await scrollOf(page);
      assert.ok(at.atBottom, `at the bottom while following: ${JSON.stringify(at)}`);
    }

    // The user scrolls up: following stops, new lines do not move the view.
    await log.hover();
    // Where the view was when the wheel turned (it moves down until then).
    await log.evaluate((el) => el.addEventListener('wheel', () => el.setAttribute('data-wheel-top', String(el.scrollTop)), { once: true, capture: true }));
    await page.mouse.wheel(0, -400);
    for (let i = 0; i < 40 && (await follow.isChecked()); i++) await page.waitForTimeout(50);
    assert.equal(await follow.isChecked(), false, 'scrolling up turns Follow off');
    // The wheel's scroll lands after its event: the browser scrolls once the
    // page's listeners have run, and the page sees the new position at a
    // later frame (tens of ms later in runs traced under load, after more
    // lines had arrived).
    await page
      .waitForFunction(
        () => {
          const el = document.querySelector<HTMLElement>('[role=log]')!;
          return el.scrollTop <= Number(el.dataset.wheelTop) - 300;
        },
        undefined,
        { timeout: 10_000 },
      )
      .catch(() => undefined);
    const held = await scrollOf(page);
    const wheelTop = Number(await log.getAttribute('data-wheel-top'));
    assert.ok(held.top <= wheelTop - 300 && !held.atBottom, `the wheel took the view up from ${wheelTop}: ${JSON.stringify(held)}`);
    await waitForLines(page, (await lineCount(page)) + 40);
    const still = await scrollOf(page);
    assert.ok(Math.abs(still.top - held.top) < 2, `the view stayed where the user left it (${held.top} → ${still.top})`);
    assert.equal(still.atBottom, false);
    await shot(page, 'live-04-logs-held');

    // Follow again: to the bottom, and the last line when the run ends.
    await follow.check();
    await page.waitForFunction(
      () => {
        const el = document.querySelector('[role=log]')!;
        return el.scrollTop + el.clientHeight >= el.scrollHeight - 30;
      },
      undefined,
      { timeout: 10_000 },
    );
    // A scroll up without the wheel (the scroll bar, a touch) stops following too.
    await page.evaluate(() => {
      const el = document.querySelector('[role=log]')!;
      el.scrollTop = Math.max(0, el.scrollTop - 600);
    });
    for (let i = 0; i < 40 && (await follow.isChecked()); i++) await page.waitForTimeout(50);
    assert.equal(await follow.isChecked(), false, 'scrolling up with the scroll bar turns Follow off');
    await follow.check();
    await waitState(page, 'SUCCESS');
    await log.getByText('row 600', { exact: true }).waitFor();
    assert.ok((await scrollOf(page)).atBottom);
    assert.equal(await lineCount(page), 600);
    await shot(page, 'live-05-logs-followed');
  });

  it('secrets of the global scope and of a namespace are listed apart; a run using both shows them masked', async () => {
    const page = ui.admin;
    await page.goto('/admin/secrets');
    const scope = page.getByLabel('Scope');
    const secrets = page.getByRole('region', { name: 'Secrets' });
    await scope.selectOption({ label: 'global' });
    await secrets.getByLabel('Key').fill('G_TOKEN');
    await secrets.getByLabel('Value').fill(GLOBAL_VALUE);
    await secrets.getByRole('button', { name: 'Set secret' }).click();
    await secrets.getByRole('cell', { name: 'G_TOKEN', exact: true }).waitFor();

    await scope.selectOption({ label: `namespace ${NS}` });
    await secrets.getByRole('cell', { name: 'G_TOKEN', exact: true }).waitFor({ state: 'detached' });
    await secrets.getByLabel('Key').fill('NS_TOKEN');
    await secrets.getByLabel('Value').fill(NS_VALUE);
    await secrets.getByRole('button', { name: 'Set secret' }).click();
    await secrets.getByRole('cell', { name: 'NS_TOKEN', exact: true }).waitFor();
    assert.equal(await secrets.getByRole('cell', { name: 'G_TOKEN', exact: true }).count(), 0, 'a global secret is not listed in a namespace');
    await shot(page, 'live-06-namespace-secrets');

    await scope.selectOption({ label: 'global' });
    await secrets.getByRole('cell', { name: 'G_TOKEN', exact: true }).waitFor();
    assert.equal(await secrets.getByRole('cell', { name: 'NS_TOKEN', exact: true }).count(), 0, 'a namespace secret is not listed globally');
    // Stored where they were set.
    const stored = (await ui.stack.db.query(`SELECT namespace, key FROM secrets WHERE key IN ('G_TOKEN', 'NS_TOKEN') ORDER BY key`)).rows;
    assert.deepEqual(
      stored.map((r) => r.key),
      ['G_TOKEN', 'NS_TOKEN'],
    );
    assert.notEqual(stored[0].namespace, stored[1].namespace);

    // A run in the namespace resolves both (namespace, then parents, then global) and its log shows them masked.
    const ex = await ui.stack.trigger(NS, 'uses');
    await page.goto(`/executions/${ex.id}`);
    await waitState(page, 'SUCCESS');
    await page.getByRole('log', { name: 'Log lines' }).getByText('global=*** ns=***', { exact: true }).waitFor();
    const html = await page.content();
    assert.ok(!html.includes(GLOBAL_VALUE) && !html.includes(NS_VALUE), 'no secret value on the page');
    await shot(page, 'live-07-masked-run');
  });
});
