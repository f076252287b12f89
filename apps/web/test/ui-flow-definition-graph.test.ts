// The flow page draws the task graph of the flow's definition, in the
// browser: every task a node naming what it does (command, script, HTTP call,
// subflow and its child flow), dependencies as edges laid out left to right,
// the upstream flow whose end starts it, and a selected task's details, from
// which a subflow's child flow opens with its own graph.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.defgraph';
const PIPELINE = `id: pipeline
description: Extracts, transforms and loads
triggers:
  - {id: after_ingest, type: flow, flow: ${NS}/ingest, states: [SUCCESS]}
tasks:
  - {id: extract, type: command, command: ["echo", "extract"]}
  - {id: transform, type: script, file: transform.sh, depends_on: [extract], retry: {max_attempts: 3, backoff: exponential}}
  - {id: load, type: subflow, flow: ${NS}/child, depends_on: [transform]}
  - {id: audit, type: subflow, flow: ${NS}/child, wait: false, depends_on: [extract]}
  - {id: notify, type: http, method: POST, url: "https://example.com/hook", depends_on: [load, audit], run_if: always}
  - {id: report, type: command, command: ["true"], depends_on: [extract], run_if: "{{ tasks.extract.state == 'SUCCESS' }}"}
`;

describe('flow page: the task graph of the definition', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi({ dispatchers: 0, maintenance: false });
    await ui.stack.saveFlow(NS, {
      'ingest.flow.yaml': 'id: ingest\ntasks:\n  - {id: fetch, type: command, command: ["true"]}\n',
      'child.flow.yaml':
        'id: child\ndescription: Loads one batch\ntasks:\n  - {id: write, type: command, command: ["echo", "write"]}\n  - {id: verify, type: command, command: ["true"], depends_on: [write]}\n',
      'transform.sh': '#!/bin/sh\necho transform\n',
      'pipeline.flow.yaml': PIPELINE,
    });
  });
  after(async () => ui?.stop());

  /** The graph's edges as `from->to`, as React Flow renders them. */
  const edges = () =>
    ui.admin.locator('[data-testid="task-graph"] [data-testid^="rf__edge-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.replace('rf__edge-', '')).sort());

  it('draws every task with what it does and its dependencies as edges', async () => {
    const page = ui.admin;
    await page.goto(`/flows?namespace=${NS}`);
    await page.getByRole('link', { name: 'pipeline' }).click();
    await page.waitForURL(`**/flows/${NS}/pipeline`);
    const section = page.getByRole('region', { name: 'Task graph' });
    const graph = section.getByRole('group', { name: 'Task graph' });
    await graph.waitFor();
    const names = await graph.locator('button.dag-node').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    assert.deepEqual(names.sort(), [
      'Task audit: subflow → web.defgraph/child (no wait), after extract',
      'Task extract: command echo extract',
      'Task load: subflow → web.defgraph/child, after transform',
      'Task notify: http POST https://example.com/hook, after load, audit, runs on always',
      "Task report: command true, after extract, runs on condition {{ tasks.extract.state == 'SUCCESS' }}",
      'Task transform: script transform.sh, after extract',
    ]);
    assert.deepEqual(await edges(), ['audit->notify', 'extract->audit', 'extract->report', 'extract->transform', 'load->notify', 'transform->load']);
    // Left to right: each task sits right of what it depends on.
    const x = async (id: string) => (await graph.getByRole('button', { name: new RegExp(`^Task ${id}:`) }).boundingBox())!.x;
    assert.ok((await x('extract')) < (await x('transform')));
    assert.ok((await x('transform')) < (await x('load')));
    assert.ok((await x('load')) < (await x('notify')));
    // Subflow nodes are drawn apart from the others.
    assert.match((await graph.getByRole('button', { name: /^Task load:/ }).getAttribute('class')) ?? '', /def-subflow/);
    assert.equal(
      await graph
        .getByRole('button', { name: /^Task notify:/ })
        .locator('.dag-sub')
        .innerText(),
      'http POST https://example.com/hook · on always',
    );
    // Upstream and subflows, as links.
    assert.equal(await section.getByTestId('upstream-flows').innerText(), `Starts when ${NS}/ingest ends in SUCCESS.`);
    const subflows = section.getByRole('list', { name: 'Subflows' }).getByRole('listitem');
    assert.deepEqual(await subflows.allInnerTexts(), [`load starts ${NS}/child`, `audit starts ${NS}/child without waiting`]);
    await section.scrollIntoViewIfNeeded();
    await shot(page, 'flow-graph-01-definition');
  });

  it("shows a selected task's details and opens a subflow's child flow", async () => {
    const page = ui.admin;
    await page.goto(`/flows/${NS}/pipeline`);
    const section = page.getByRole('region', { name: 'Task graph' });
    const graph = section.getByRole('group', { name: 'Task graph' });
    await graph.getByRole('button', { name: /^Task transform:/ }).click();
    const details = section.getByTestId('task-definition');
    assert.match(
      await details.innerText(),
      /Task\s+transform \(script\)\s+Does\s+script transform\.sh\s+Depends on\s+extract\s+Needed by\s+load\s+Runs if\s+success of its dependencies\s+Retry\s+up to 3 attempts, exponential backoff/,
    );
    // A condition (an expression run_if) says what must hold.
    await graph.getByRole('button', { name: /^Task report:/ }).click();
    assert.match(await details.innerText(), /Runs if\s+\{\{ tasks\.extract\.state == 'SUCCESS' \}\} holds, once its dependencies succeeded/);
    // The keyboard selects too: Enter on a focused node.
    await graph.getByRole('button', { name: /^Task load:/ }).focus();
    await page.keyboard.press('Enter');
    assert.equal(await graph.getByRole('button', { name: /^Task load:/ }).getAttribute('aria-pressed'), 'true');
    assert.match(await details.innerText(), /Starts the flow\s+web\.defgraph\/child and waits for it to end\s+Depends on\s+transform\s+Needed by\s+notify/);
    await section.scrollIntoViewIfNeeded();
    await shot(page, 'flow-graph-02-subflow-selected');
    await details.getByRole('link', { name: `${NS}/child` }).click();
    await page.waitForURL(`**/flows/${NS}/child`);
    await page.getByRole('heading', { name: `${NS}/child` }).waitFor();
    const childGraph = page.getByRole('region', { name: 'Task graph' }).getByRole('group', { name: 'Task graph' });
    await childGraph.getByRole('button', { name: 'Task verify: command true, after write' }).waitFor();
    assert.deepEqual(await edges(), ['write->verify']);
    assert.equal(await page.getByTestId('upstream-flows').count(), 0);
  });
});
