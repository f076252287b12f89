// The web UI driven as its users drive it, in Debian's Chromium against a real
// stack (gateway, dispatcher, maintenance): sign in; change a temporary
// password; create a namespace and a flow in the editor, accepting a schema
// completion and seeing an inline error; run it from the run form and watch
// its logs arrive; cancel a running execution; restart a failed one and see the
// reused task; the dashboard counting the runs; a viewer without edit actions.
// Each step saves a screenshot under .test-data/screenshots/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startStack, type Stack } from '../../../e2e/test/stack.ts';
import { browserSkipReason, connect, cspViolations, login, newUser, shot } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.demo';
const FLOW = `id: hello
description: Prints lines, then checks the mode
inputs:
  - id: lines
    type: int
    default: 20
  - id: pause
    type: string
    default: "0.01"
  - id: mode
    type: select
    values: [ok, fail]
    default: ok
tasks:
  - id: first
    type: command
    command: ["sh", "-c", "for i in $(seq 1 {{ inputs.lines }}); do echo line $i; sleep {{ inputs.pause }}; done"]
  - id: second
    type: command
    depends_on: [first]
    command: ["sh", "-c", "echo mode {{ inputs.mode }}; test {{ inputs.mode }} = ok"]
`;

describe('web UI walkthrough', { skip, concurrency: false }, () => {
  let stack: Stack;
  let browser: Browser;
  let admin: Page;

  before(async () => {
    [stack, browser] = await Promise.all([startStack(), connect()]);
    admin = (await newUser(browser, stack.url)).page;
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const stateOf = (page: Page) => page.locator('h1 + .badge[class*="state-"]').first();

  async function runFromForm(page: Page, values: { lines?: string; pause?: string; mode?: string }): Promise<string> {
    await page.goto(`/flows/${NS}/hello`);
    const form = page.getByRole('form', { name: 'Run the flow' });
    if (values.lines) await form.getByLabel(/^lines/).fill(values.lines);
    if (values.pause) await form.getByLabel(/^pause/).fill(values.pause);
    if (values.mode) await form.getByLabel(/^mode/).selectOption(values.mode);
    await form.getByRole('button', { name: 'Run' }).click();
    await page.waitForURL(/\/executions\/[^/]+$/);
    return page.url().split('/').pop()!;
  }

  it('signs in with email and password', async () => {
    await login(admin, 'e2e@example.com', 'e2e password 1');
    await admin.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await admin.getByRole('link', { name: /Profile of e2e@example.com \(admin\)/ }).waitFor();
    await shot(admin, '01-signed-in');
  });

  it('a wrong password shows the error with its request ID', async () => {
    const { page, context } = await newUser(browser, stack.url);
    await login(page, 'e2e@example.com', 'not the password');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /request ID/);
    assert.ok((await page.getByTestId('request-id').innerText()).length > 5);
    await context.close();
  });

  it('a user with a temporary password must choose a new one first', async () => {
    const created = await stack.api('POST', '/api/v1/users', { email: 'temp@example.com', role: 'operator' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const temp = created.body.temporary_password as string;
    const { page, context } = await newUser(browser, stack.url, 'dark');
    await login(page, 'temp@example.com', temp);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await shot(page, '02-temporary-password');
    await page.getByLabel('Current password').fill(temp);
    await page.getByLabel('New password', { exact: true }).fill('a brand new password');
    await page.getByLabel('New password again').fill('a brand new password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await context.close();
  });

  it('creates a namespace and a flow in the editor: a completion accepted, an inline error shown', async () => {
    await admin.goto('/flows');
    await admin.getByLabel('New namespace').fill(NS);
    await admin.getByRole('button', { name: 'Create namespace' }).click();
    await admin.waitForURL(`**/editor/${NS}`);
    await admin.getByLabel('File path').fill('hello.flow.yaml');
    await admin.getByRole('button', { name: 'New file' }).click();
    const content = admin.getByRole('textbox', { name: 'File content' });
    await content.waitFor();
    await admin.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('id: hello'));
    await content.click();
    await admin.keyboard.press('Control+a');
    await admin.keyboard.press('Delete');
    await admin.keyboard.insertText(FLOW);
    // A completion from the served schema: "max_par" offers max_parallel.
    await admin.keyboard.press('Control+End');
    await admin.keyboard.type('max_par');
    const option = admin.locator('.cm-tooltip-autocomplete li', { hasText: 'max_parallel' }).first();
    await option.waitFor();
    await shot(admin, '03-editor-completion');
    await admin.keyboard.press('Enter');
    await admin.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('max_parallel'));
    // Whatever the completion inserted after the key, make the line `max_parallel: 0`.
    await admin.keyboard.press('Shift+Home');
    await admin.keyboard.insertText('max_parallel: 0');
    // An unknown key: the service's validateFile flags it inline, with its line.
    await admin.keyboard.press('Enter');
    await admin.keyboard.press('Shift+Home');
    await admin.keyboard.insertText('timeoutt: 5m');
    const problems = admin.getByTestId('problems');
    await problems.getByText(/line 23, column 1: .*unknown property "timeoutt"/).waitFor();
    await admin.locator('.cm-lintRange-error, .cm-lint-marker-error').first().waitFor();
    await shot(admin, '04-editor-inline-error');
    // Saving it is refused by the service; the error shows its request ID.
    await admin.getByRole('button', { name: 'Save' }).click();
    const alert = admin.getByRole('alert').filter({ hasText: 'request ID' });
    await alert.waitFor();
    // Remove the bad line (the last one) and save.
    await content.click();
    await admin.keyboard.press('Control+End');
    await admin.keyboard.press('Shift+Home');
    await admin.keyboard.press('Backspace');
    await admin.keyboard.press('Backspace');
    await admin.getByTestId('problems').waitFor({ state: 'detached' });
    await admin.getByLabel('Message').fill('first version of hello');
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.getByRole('cell', { name: 'first version of hello' }).waitFor();
    const flow = await stack.api('GET', `/api/v1/flows/${NS}/hello`);
    assert.equal(flow.status, 200);
    assert.match(flow.body.source, /max_parallel: 0/);
  });

  it("a save over someone else's newer version opens the conflict dialog with both versions", async () => {
    // Someone else saves the file while it is open here.
    const theirs = FLOW.replace('Prints lines, then checks the mode', 'Changed by someone else') + 'max_parallel: 0\n';
    const r = await stack.api('POST', `/api/v1/namespaces/${NS}/changes`, { message: 'elsewhere', changes: [{ op: 'put', path: 'hello.flow.yaml', content: theirs }] });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const content = admin.getByRole('textbox', { name: 'File content' });
    await content.click();
    await admin.keyboard.press('Control+Home');
    await admin.keyboard.insertText('# mine\n');
    await admin.getByRole('button', { name: 'Save' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Someone saved this namespace meanwhile' });
    await dialog.waitFor();
    assert.match(await dialog.getByTestId('conflict-theirs').innerText(), /Changed by someone else/);
    assert.match(await dialog.getByTestId('conflict-mine').innerText(), /# mine/);
    await shot(admin, '04b-editor-conflict');
    await dialog.getByRole('button', { name: /Save mine over version/ }).click();
    await dialog.waitFor({ state: 'detached' });
    const now = await stack.api('GET', `/api/v1/flows/${NS}/hello`);
    assert.match(now.body.source, /^# mine/);
  });

  it('runs the flow from its run form and shows the logs as they arrive', async () => {
    await admin.goto(`/flows/${NS}/hello`);
    const form = admin.getByRole('form', { name: 'Run the flow' });
    // The form checks values before sending.
    await form.getByLabel(/^lines/).fill('2.5');
    await form.getByRole('button', { name: 'Run' }).click();
    await form.getByText('Must be a whole number').waitFor();
    await shot(admin, '05a-flow-page');
    const id = await runFromForm(admin, { lines: '40', pause: '0.05' });
    const log = admin.getByRole('log', { name: 'Log lines' });
    await log.getByText('line 3', { exact: true }).waitFor();
    await admin.getByText('line 40', { exact: true }).waitFor({ timeout: 30_000 });
    await admin.getByText('mode ok').waitFor();
    await admin.waitForFunction(() => document.querySelector('h1 + .badge')?.textContent === 'SUCCESS');
    await admin.getByRole('button', { name: 'Task second: SUCCESS' }).waitFor();
    const file = await shot(admin, '05-execution-success');
    const docs = path.resolve(import.meta.dirname, '../../../docs/ui-execution.png');
    if (process.env.SVC_UPDATE_SCREENSHOTS) fs.copyFileSync(file, docs);
    const ex = await stack.api('GET', `/api/v1/executions/${id}`);
    assert.equal(ex.body.state, 'SUCCESS');
  });

  it('cancels a running execution', async () => {
    await runFromForm(admin, { lines: '2000', pause: '0.1' });
    await admin.getByText('line 2', { exact: true }).waitFor();
    await admin.getByRole('button', { name: 'Cancel' }).click();
    await admin.waitForFunction(() => document.querySelector('h1 + .badge')?.textContent === 'CANCELLED', undefined, { timeout: 30_000 });
    await shot(admin, '06-execution-cancelled');
    assert.equal(await stateOf(admin).innerText(), 'CANCELLED');
  });

  it('restarts a failed execution, showing and then reusing the succeeded task', async () => {
    const failed = await runFromForm(admin, { lines: '3', mode: 'fail' });
    await admin.waitForFunction(() => document.querySelector('h1 + .badge')?.textContent === 'FAILED', undefined, { timeout: 30_000 });
    await admin.getByRole('button', { name: 'Restart from failed…' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Restart from failed' });
    assert.equal((await dialog.getByTestId('restart-reused').innerText()).trim(), 'first');
    assert.equal((await dialog.getByTestId('restart-again').innerText()).trim(), 'second');
    await shot(admin, '07-restart-plan');
    await dialog.getByRole('button', { name: 'Restart' }).click();
    await admin.waitForURL((u) => !u.pathname.endsWith(failed));
    await admin.getByRole('link', { name: failed }).waitFor(); // "Restart of …"
    await admin.getByRole('button', { name: /Task first: SUCCESS, reused/ }).waitFor();
    await admin.waitForFunction(() => document.querySelector('h1 + .badge')?.textContent === 'FAILED', undefined, { timeout: 30_000 });
    await shot(admin, '08-restarted');
  });

  it('the dashboard reflects the new runs', async () => {
    await admin.goto('/');
    const tiles = admin.getByTestId('kpis');
    await tiles.waitFor();
    // One success, two failures (the failed run and its restart), one cancellation.
    await admin.getByLabel('Succeeded: 1').waitFor();
    await admin.getByLabel('Failed: 2').waitFor();
    await admin.getByLabel('Cancelled: 1').waitFor();
    await admin.getByLabel('Executions: 4').waitFor();
    await admin.getByRole('region', { name: 'Recent failures' }).getByRole('link', { name: 'hello' }).first().waitFor();
    await shot(admin, '09-dashboard');
  });

  it('a viewer sees no edit actions', async () => {
    const created = await stack.api('POST', '/api/v1/users', { email: 'viewer@example.com', role: 'viewer', password: 'viewer password 1' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { page, context } = await newUser(browser, stack.url);
    await login(page, 'viewer@example.com', 'viewer password 1');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.goto(`/flows/${NS}/hello`);
    const run = page.getByRole('form', { name: 'Run the flow' }).getByRole('button', { name: 'Run' });
    assert.equal(await run.isDisabled(), true);
    assert.match((await run.getAttribute('title')) ?? '', /Needs the operator role/);
    assert.equal(await page.getByRole('button', { name: 'Disable' }).isDisabled(), true);
    const last = (await stack.api('GET', `/api/v1/executions?namespace=${NS}&limit=1`)).body.items[0].id as string;
    await page.goto(`/executions/${last}`);
    // An ended execution's logs are read in pages, not streamed.
    await page.getByRole('log', { name: 'Log lines' }).getByText('mode fail').waitFor();
    await page
      .getByTestId('log-status')
      .getByText(/lines · ended/)
      .waitFor();
    for (const name of ['Cancel', 'Rerun', 'Restart from failed…']) assert.equal(await page.getByRole('button', { name }).isDisabled(), true, name);
    await page.goto(`/editor/${NS}?file=hello.flow.yaml`);
    await page.getByText('read only').waitFor();
    assert.equal(await page.getByRole('button', { name: 'New file' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Save' }).isDisabled(), true);
    await page.goto('/admin/users');
    await page.getByText('Needs the admin role (you are viewer)').waitFor();
    await shot(page, '10-viewer');
    await context.close();
  });

  it('says why a queued execution and a queued task run wait', async () => {
    await stack.saveFlow('web.queue', {
      'limited.flow.yaml': 'id: limited\nconcurrency: {limit: 1}\ntasks:\n  - {id: hold, type: command, command: [sleep, "60"]}\n',
      'nopool.flow.yaml': 'id: nopool\ntasks:\n  - {id: t, type: command, executor: {pool: nowhere}, command: ["true"]}\n',
    });
    const holder = await stack.trigger('web.queue', 'limited');
    await stack.waitFor(holder.id, (e) => e.state === 'RUNNING');
    const waiting = await stack.trigger('web.queue', 'limited');
    const parked = await stack.trigger('web.queue', 'nopool');
    await stack.waitFor(parked.id, (e) => e.task_runs.some((r: { reason: string }) => r.reason === 'no_instance_for_pool'));
    await admin.goto(`/executions/${waiting.id}`);
    const why = admin.getByTestId('wait-reason');
    await why.getByText(/concurrency limit \(1\) is full/).waitFor();
    await why.getByRole('link', { name: holder.id }).waitFor();
    await shot(admin, '11-queued-execution');
    await admin.goto(`/executions/${parked.id}`);
    await admin
      .getByTestId('task-wait')
      .getByText(/no online instance serves pool "nowhere" with the process executor/)
      .waitFor();
    await shot(admin, '12-queued-task-run');
    for (const e of [waiting, parked, holder]) await stack.api('POST', `/api/v1/executions/${e.id}/cancel`);
  });

  it('an admin sets a secret and a variable, and sees users, audit, instances and storage', async () => {
    await admin.goto('/admin/secrets');
    const secrets = admin.getByRole('region', { name: 'Secrets' });
    await secrets.getByLabel('Key').fill('API_KEY');
    await secrets.getByLabel('Value').fill('s3cr3t-value');
    await secrets.getByRole('button', { name: 'Set secret' }).click();
    await secrets.getByRole('cell', { name: 'API_KEY', exact: true }).waitFor();
    assert.equal(await admin.getByText('s3cr3t-value').count(), 0, 'a secret value is never shown');
    const vars = admin.getByRole('region', { name: 'Variables' });
    await vars.getByLabel('Key').fill('region');
    await vars.getByLabel('Value').fill('eu-west');
    await vars.getByRole('button', { name: 'Set variable' }).click();
    await vars.getByRole('cell', { name: 'eu-west', exact: true }).waitFor();
    await shot(admin, '13-secrets-and-variables');
    await admin.getByRole('link', { name: 'Users' }).click();
    await admin.getByRole('cell', { name: 'temp@example.com', exact: true }).waitFor();
    await admin.getByRole('link', { name: 'Audit log' }).click();
    await admin.getByRole('cell', { name: 'execution.restart', exact: true }).first().waitFor();
    await admin.getByRole('link', { name: 'Instances' }).click();
    await admin.getByRole('cell', { name: 'dispatcher', exact: true }).first().waitFor();
    await admin.getByRole('link', { name: 'Storage' }).click();
    await admin.getByRole('region', { name: 'Storage' }).getByRole('table', { name: 'Stored objects by kind' }).waitFor();
    await admin.getByRole('link', { name: 'Secret providers' }).click();
    await admin.getByRole('button', { name: 'Add provider' }).waitFor();
  });

  // Every page above ran under the gateway's Content-Security-Policy.
  it('no page of the walkthrough broke the Content-Security-Policy', () => {
    assert.deepEqual(cspViolations, []);
  });
});
