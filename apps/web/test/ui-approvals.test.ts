// People in the loop, in the browser: a task behind an approval gate
// (`build -> deploy (approval, a required ticket) -> announce`) waits with a
// banner on its execution page and a badge on its node; its panel says who
// may approve, until when and what the timeout does, and holds the gate's
// form by field type. A viewer's Approve is refused with the service's
// message (403); Approve without the required field shows the 422 in the
// panel; with ticket CHG-1 deploy starts, then announce reads the decision,
// and the panel shows who approved with which ticket. A second execution is
// rejected with a comment: deploy ends FAILED `rejected`. A third, paused
// while its first task runs, starts nothing more until it is resumed. The
// alert rule form offers the event `approval_requested`. axe-core finds no
// unnamed control and no invalid ARIA in what the approval panel adds.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import type { components } from '@svc/api-spec';
import { browserSkipReason, login, newUser, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.approvals';
type Run = components['schemas']['TaskRun'];
type Ex = Pick<components['schemas']['Execution'], 'task_runs'>;
const run = (e: Ex, task: string): Run | undefined => e.task_runs.filter((r) => r.task_key === task).at(-1);

// The tasks wait for files here, so the page sees them running before they end.
const gates = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-approvals-'));
// Process tasks run as an unprivileged user (SVC_TASK_USER) when the dispatcher is root.
fs.chmodSync(gates, 0o755);
const waitFile = (name: string, then: string) => ['sh', '-c', `while [ ! -f ${gates}/${name} ]; do sleep 0.1; done; ${then}`];

const RELEASE = JSON.stringify({
  id: 'release',
  tasks: [
    { id: 'build', type: 'command', command: ['echo', 'built'] },
    {
      id: 'deploy',
      type: 'command',
      depends_on: ['build'],
      approval: {
        approvers: { role: 'operator', groups: ['release-managers'] },
        timeout: '24h',
        on_timeout: 'fail',
        form: [
          { id: 'ticket', type: 'string', required: true, description: 'Change ticket' },
          { id: 'risk', type: 'number' },
          { id: 'tested', type: 'boolean' },
        ],
      },
      command: waitFile('deploy', 'echo deployed'),
    },
    {
      id: 'announce',
      type: 'command',
      depends_on: ['deploy'],
      env: { TICKET: '{{ tasks.deploy.approval.inputs.ticket }}', BY: '{{ tasks.deploy.approval.by }}' },
      command: ['sh', '-c', 'echo "released $TICKET, approved by $BY"'],
    },
  ],
});
// Whoever started it may not approve it.
const GUARDED = JSON.stringify({
  id: 'guarded',
  tasks: [
    { id: 'check', type: 'command', command: ['true'] },
    { id: 'drop', type: 'command', depends_on: ['check'], approval: { forbid_self_approval: true }, command: ['echo', 'dropped'] },
  ],
});
const PAUSABLE = JSON.stringify({
  id: 'pausable',
  tasks: [
    { id: 'first', type: 'command', command: waitFile('first', 'echo first done') },
    { id: 'second', type: 'command', depends_on: ['first'], command: ['echo', 'second done'] },
  ],
});

const AXE_RULES = [
  'button-name',
  'link-name',
  'label',
  'select-name',
  'aria-allowed-attr',
  'aria-valid-attr-value',
  'aria-roles',
  'aria-toggle-field-name',
  'nested-interactive',
  'duplicate-id-aria',
  'definition-list',
  'dlitem',
];

describe('approval gates, pause and resume on the execution page', { skip, concurrency: false }, () => {
  let ui: Ui;
  let vic: Page;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'release.flow.yaml': RELEASE, 'guarded.flow.yaml': GUARDED, 'pausable.flow.yaml': PAUSABLE });
    // A viewer: below the gate's operator role, and (without an identity provider) in no group.
    assert.equal((await ui.stack.api('POST', '/api/v1/users', { email: 'vic@example.com', role: 'viewer', password: 'viewer password 1' })).status, 201);
    vic = (await newUser(ui.browser, ui.stack.url)).page;
    await login(vic, 'vic@example.com', 'viewer password 1');
    await vic.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });
  after(async () => {
    fs.rmSync(gates, { recursive: true, force: true });
    await ui?.stop();
  });

  const graph = (page: Page) => page.getByTestId('task-graph');
  const awaiting = (id: string, task = 'deploy') => ui.stack.waitFor(id, (e: Ex) => run(e, task)?.reason === 'awaiting_approval', 90_000);

  it('shows the wait, refuses a viewer and a missing field with the service message, and runs deploy then announce once approved with a ticket', async () => {
    const page = ui.admin;
    const { id } = await ui.stack.trigger(NS, 'release');
    const waiting = await awaiting(id);
    assert.equal(run(waiting, 'deploy')?.state, 'PENDING');
    assert.equal(run(waiting, 'deploy')?.approval?.status, 'pending');

    await page.goto(`/executions/${id}`);
    await waitState(page, 'RUNNING');
    // The banner, in view without selecting anything; the node's badge.
    const banner = page.getByTestId('approval-banner');
    assert.match(await banner.innerText(), /^deploy waits for your approval since .+, until .+\./);
    await graph(page).getByRole('button', { name: 'Task deploy: PENDING, awaiting approval' }).waitFor();
    assert.equal(await graph(page).getByTestId('task-note-deploy').innerText(), 'awaiting approval');
    // Not told as a wait for dependencies or a place: it waits for a person.
    assert.equal(
      await page
        .getByTestId('task-wait')
        .locator('[data-wait]')
        .filter({ hasText: /^deploy / })
        .count(),
      0,
    );
    assert.equal(await page.getByTestId('approval-panel').count(), 0);

    // Review opens the task's panel: who, until when, what the timeout does, the form by field type.
    await banner.getByRole('button', { name: 'Review the approval of deploy' }).click();
    const panel = page.getByTestId('approval-panel');
    await panel.waitFor();
    assert.equal(await panel.getByTestId('approval-approvers').innerText(), `the operator role or above on the namespace, or a member of release-managers (${NS})`);
    assert.match(await panel.getByTestId('approval-deadline').innerText(), /^.+ \(in (23h 59m|24h 0m)\); then the task fails \(FAILED, approval_timed_out\)\.$/);
    assert.equal(await panel.getByTestId('approval-self').count(), 0);
    const ticket = panel.getByRole('textbox', { name: /^ticket \(required\)/ });
    assert.equal(await ticket.getAttribute('aria-required'), 'true');
    assert.equal(await panel.getByRole('spinbutton', { name: /^risk/ }).getAttribute('type'), 'number');
    assert.equal(await panel.getByRole('checkbox', { name: /^tested/ }).isChecked(), false);
    assert.ok(await panel.getByRole('textbox', { name: 'Comment' }).isVisible());
    await panel.scrollIntoViewIfNeeded();
    await shot(page, 'approvals-01-waiting');
    const axe = await new AxeBuilder({ page: page as never }).withRules(AXE_RULES).analyze();
    assert.deepEqual(
      axe.violations.flatMap((v) => v.nodes.map((n) => `${v.id} at ${n.target.join(' ')}`)),
      [],
    );

    // A viewer is no approver: the service refuses, and the panel says why.
    await vic.goto(`/executions/${id}`);
    await waitState(vic, 'RUNNING');
    assert.match(await vic.getByTestId('approval-banner').innerText(), /^deploy waits for approval since/);
    await vic.getByRole('button', { name: 'Review the approval of deploy' }).click();
    const vicPanel = vic.getByTestId('approval-panel');
    await vicPanel.getByRole('textbox', { name: /^ticket/ }).fill('CHG-0');
    await vicPanel.getByRole('button', { name: 'Approve' }).click();
    const refused = vicPanel.getByRole('alert');
    await refused.waitFor();
    assert.match(await refused.innerText(), /forbidden · HTTP 403/);
    await shot(vic, 'approvals-02-viewer-refused');
    assert.equal(run(await ui.stack.waitFor(id, () => true), 'deploy')?.approval?.status, 'pending');

    // Approve without the required field: the 422 and the field it names, in the panel.
    await panel.getByRole('button', { name: 'Approve' }).click();
    const problem = panel.getByRole('alert');
    await problem.waitFor();
    const text = await problem.innerText();
    assert.match(text, /validation_failed · HTTP 422/);
    assert.match(text, /inputs\.ticket/);
    await shot(page, 'approvals-03-missing-ticket');

    // With the ticket: deploy starts (announce has not), then both end.
    await ticket.fill('CHG-1');
    await panel.getByRole('textbox', { name: 'Comment' }).fill('go for it');
    await panel.getByRole('button', { name: 'Approve' }).click();
    await graph(page).getByRole('button', { name: 'Task deploy: RUNNING' }).waitFor({ timeout: 60_000 });
    assert.equal(await graph(page).getByTestId('task-note-deploy').count(), 0);
    assert.equal(await page.getByTestId('approval-banner').count(), 0);
    assert.match(
      (await graph(page)
        .getByRole('button', { name: /^Task announce:/ })
        .getAttribute('aria-label')) ?? '',
      /^Task announce: PENDING/,
    );
    const decision = panel.getByTestId('approval-decision');
    await decision.waitFor();
    assert.equal(await decision.getByTestId('approval-status').innerText(), 'Approved');
    assert.equal(await decision.getByTestId('approval-by').innerText(), 'e2e@example.com');
    assert.equal(
      await decision
        .getByRole('row', { name: /ticket/ })
        .locator('td')
        .innerText(),
      'CHG-1',
    );
    assert.equal(await decision.getByTestId('approval-comment').innerText(), 'go for it');
    await shot(page, 'approvals-04-approved-deploy-running');

    fs.writeFileSync(path.join(gates, 'deploy'), '');
    await graph(page).getByRole('button', { name: 'Task deploy: SUCCESS' }).waitFor({ timeout: 60_000 });
    await graph(page).getByRole('button', { name: 'Task announce: SUCCESS' }).waitFor({ timeout: 60_000 });
    await waitState(page, 'SUCCESS');
    // The decision stays on deploy's panel once the execution has ended.
    assert.equal(await decision.getByTestId('approval-by').innerText(), 'e2e@example.com');
    // announce read the decision through its templates.
    await graph(page).getByRole('button', { name: 'Task announce: SUCCESS' }).click();
    const log = page.getByRole('log', { name: 'Log lines' });
    await log.getByText('released CHG-1, approved by e2e@example.com').waitFor();
    await shot(page, 'approvals-05-announced');
  });

  it('rejects with a comment: deploy ends FAILED, rejected, and the panel says by whom and why', async () => {
    const page = ui.admin;
    const { id } = await ui.stack.trigger(NS, 'release');
    await awaiting(id);
    await page.goto(`/executions/${id}`);
    await waitState(page, 'RUNNING');
    await page.getByRole('button', { name: 'Review the approval of deploy' }).click();
    const panel = page.getByTestId('approval-panel');
    await panel.getByRole('textbox', { name: 'Comment' }).fill('not during the freeze');
    await panel.getByRole('button', { name: 'Reject' }).click();
    await graph(page).getByRole('button', { name: 'Task deploy: FAILED, rejected' }).waitFor({ timeout: 60_000 });
    assert.equal(await graph(page).getByTestId('task-note-deploy').innerText(), 'rejected');
    const decision = panel.getByTestId('approval-decision');
    await decision.waitFor();
    assert.equal(await decision.getByTestId('approval-status').innerText(), 'Rejected');
    assert.equal(await decision.getByTestId('approval-by').innerText(), 'e2e@example.com');
    assert.equal(await decision.getByTestId('approval-comment').innerText(), 'not during the freeze');
    // A reject carries no form values.
    assert.equal(await decision.getByRole('heading', { name: 'Form values' }).count(), 0);
    await waitState(page, 'FAILED');
    const ended = await ui.stack.waitEnded(id, 60_000);
    assert.equal(run(ended, 'deploy')?.state, 'FAILED');
    assert.equal(run(ended, 'deploy')?.reason, 'rejected');
    assert.notEqual(run(ended, 'announce')?.state, 'SUCCESS');
    await shot(page, 'approvals-06-rejected');
  });

  it('tells the person who started it that they may not approve, with the buttons disabled; a cancel ends the wait', async () => {
    const page = ui.admin;
    const { id } = await ui.stack.trigger(NS, 'guarded');
    await awaiting(id, 'drop');
    await page.goto(`/executions/${id}`);
    await waitState(page, 'RUNNING');
    // Started by the signed-in admin (its token): not "your" approval.
    const said = await page.getByTestId('approval-banner').innerText();
    assert.match(said, /^drop waits for approval since .+\./);
    assert.doesNotMatch(said, /until/);
    await page.getByRole('button', { name: 'Review the approval of drop' }).click();
    const panel = page.getByTestId('approval-panel');
    assert.equal(await panel.getByTestId('approval-self').innerText(), 'The person who started it (e2e@example.com) may not approve.');
    assert.equal(await panel.getByTestId('approval-approvers').innerText(), `the operator role or above on the namespace (${NS})`);
    assert.equal(await panel.getByTestId('approval-deadline').innerText(), 'None: it waits until someone decides or the execution is cancelled.');
    for (const name of ['Approve', 'Reject']) assert.equal(await panel.getByRole('button', { name }).isDisabled(), true, name);
    assert.equal(await panel.getByTestId('approval-refused').innerText(), 'You started this execution, and the person who started it may not approve.');
    await shot(page, 'approvals-07-self-approval');
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await waitState(page, 'CANCELLED', 90_000);
    await page.getByTestId('approval-banner').waitFor({ state: 'detached' });
    // Nobody decided: the panel says so, with no form left.
    await panel.getByTestId('approval-undecided').waitFor();
    assert.equal(await panel.getByRole('button', { name: 'Approve' }).count(), 0);
  });

  it('pauses a running execution: the next task does not start until Resume, then it finishes', async () => {
    const page = ui.admin;
    const { id } = await ui.stack.trigger(NS, 'pausable');
    await ui.stack.waitFor(id, (e: Ex) => run(e, 'first')?.state === 'RUNNING', 90_000);
    await page.goto(`/executions/${id}`);
    await waitState(page, 'RUNNING');
    assert.equal(await page.getByRole('button', { name: 'Resume' }).count(), 0);
    await page.getByRole('button', { name: 'Pause' }).click();
    const badge = page.getByTestId('paused-badge');
    await badge.waitFor();
    assert.equal(await badge.innerText(), 'Paused');
    // Still RUNNING: paused is a reason, not a state.
    await waitState(page, 'RUNNING');
    assert.match(await page.getByTestId('paused-notice').innerText(), /^Paused by e2e@example\.com at .+ \(reason paused\): no new task starts until it is resumed/);
    const paused = await ui.stack.waitFor(id, (e: { paused?: boolean; reason?: string | null }) => e.paused === true);
    assert.equal(paused.reason, 'paused');

    // first ends; second does not start while paused.
    fs.writeFileSync(path.join(gates, 'first'), '');
    await graph(page).getByRole('button', { name: 'Task first: SUCCESS' }).waitFor({ timeout: 60_000 });
    await shot(page, 'approvals-08-paused');
    // A viewer sees Resume, disabled with its reason.
    await vic.goto(`/executions/${id}`);
    await vic.getByTestId('paused-badge').waitFor();
    assert.equal(await vic.getByRole('button', { name: 'Resume' }).isDisabled(), true);
    await new Promise((r) => setTimeout(r, 3000));
    const held = await ui.stack.waitFor(id, () => true);
    assert.equal(held.state, 'RUNNING');
    const second = run(held, 'second');
    assert.ok(!second || (['PENDING', 'QUEUED'].includes(second.state) && !second.started_at), `second did not start: ${JSON.stringify(second)}`);
    assert.match(
      (await graph(page)
        .getByRole('button', { name: /^Task second:/ })
        .getAttribute('aria-label')) ?? '',
      /^Task second: (PENDING|QUEUED)/,
    );
    assert.equal(await page.getByTestId('paused-badge').count(), 1);

    await page.getByRole('button', { name: 'Resume' }).click();
    await badge.waitFor({ state: 'detached' });
    await graph(page).getByRole('button', { name: 'Task second: SUCCESS' }).waitFor({ timeout: 60_000 });
    await waitState(page, 'SUCCESS');
    assert.equal(await page.getByTestId('paused-notice').count(), 0);
    await shot(page, 'approvals-09-resumed');
  });

  it('offers approval_requested among the events of an alert rule', async () => {
    const page = ui.admin;
    await page.goto('/alerts');
    await page.getByRole('button', { name: 'New rule' }).click();
    const box = page.getByRole('checkbox', { name: 'Approval requested (a task waits for a person)' });
    await box.check();
    assert.equal(await box.isChecked(), true);
    await shot(page, 'approvals-10-alert-event');
  });
});
