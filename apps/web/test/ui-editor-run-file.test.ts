// Running a file from the editor (runFile), in the browser: Run… is offered
// on scripts and executable files only (saying why elsewhere, and to a
// viewer), a refused environment name comes back as the service's 422 with
// its field, and a run with arguments and environment lands on its execution
// page, whose logs show what the script received, passed literally.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, login, newUser, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.runfile';
const SCRIPT = '#!/bin/sh\necho "args: $# [$1] [$2]"\necho "greeting: $GREETING"\necho "shell: $REPORT_SHELL"\n';
const TOOL = '#!/bin/sh\necho "tool ran in $(basename "$PWD")"\n';

describe('editor: run a file', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'scripts/report.sh': SCRIPT, 'bin/tool': TOOL, 'notes.md': '# notes\n' }, ['bin/tool']);
  });
  after(async () => ui?.stop());

  /** Waits until the service holds `n` log lines of execution `id`. */
  const logLines = async (id: string, n: number) => {
    for (let i = 0; i < 300; i++) {
      if ((await ui.stack.api('GET', `/api/v1/executions/${id}/logs`)).body.items.length >= n) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`execution ${id} has fewer than ${n} log lines after 30 s`);
  };
  const runButton = () => ui.admin.getByRole('button', { name: 'Run…' });
  const opened = (text: string) => ui.admin.waitForFunction((t) => document.querySelector('.cm-content')?.textContent?.includes(t), text);

  it('offers Run… on scripts and executable files only, saying why elsewhere', async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}`);
    const files = page.getByRole('navigation', { name: 'Files' });
    await files.getByRole('button', { name: 'notes.md' }).click();
    await opened('# notes');
    assert.equal(await runButton().isDisabled(), true);
    assert.equal(await runButton().getAttribute('title'), 'Only scripts (.py, .sh, .ts, .js) and executable files run');
    // An executable file without a known extension runs as a command.
    await files.getByRole('button', { name: 'bin/tool' }).click();
    await opened('tool ran in');
    assert.equal(await runButton().isDisabled(), false);
    // A new file cannot run before it is saved.
    await page.getByLabel('File path').fill('scripts/new.sh');
    await page.getByRole('button', { name: 'New file' }).click();
    await page.getByText('scripts/new.sh', { exact: true }).waitFor();
    assert.equal(await runButton().getAttribute('title'), 'Save the file first: a run uses the saved version');
  });

  it('shows the service refusing a reserved environment name, with its field', async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}?file=scripts/report.sh`);
    await opened('greeting: $GREETING');
    await runButton().click();
    const dialog = page.getByRole('dialog', { name: 'Run scripts/report.sh' });
    await dialog.getByLabel('Environment, NAME=value a line').fill('PATH=/tmp/elsewhere');
    await dialog.getByRole('button', { name: 'Run file' }).click();
    const alert = dialog.getByRole('alert');
    await alert.getByText('env.PATH').waitFor();
    assert.match(await alert.innerText(), /validation_failed · HTTP 422/);
    // A line that is not NAME=value is caught before sending.
    await dialog.getByLabel('Environment, NAME=value a line').fill('GREETING');
    await dialog.getByText('Line 1: write NAME=value').waitFor();
    assert.equal(await dialog.getByRole('button', { name: 'Run file' }).isDisabled(), true);
    await shot(page, 'editor-run-01-refused-env');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    const runs = (await ui.stack.api('GET', `/api/v1/executions?namespace=${NS}`)).body.items;
    assert.equal(runs.length, 0, 'nothing ran');
  });

  it('runs the script with arguments and environment and lands on its execution', async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}?file=scripts/report.sh`);
    await opened('greeting: $GREETING');
    await runButton().click();
    const dialog = page.getByRole('dialog', { name: 'Run scripts/report.sh' });
    await dialog.getByText(`Runs the file as saved in version 1 of ${NS}, with bash, from its extension,`).waitFor();
    await dialog.getByLabel('Arguments, one a line').fill('first arg\n{{ inputs.x }}');
    await dialog.getByLabel('Environment, NAME=value a line').fill('GREETING=hello = world\n\nREPORT_SHELL=sh');
    await shot(page, 'editor-run-02-dialog');
    await dialog.getByRole('button', { name: 'Run file' }).click();
    await page.waitForURL(/\/executions\/[^/]+$/);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    await waitState(page, 'SUCCESS');
    await page.getByText(`File run in ${NS}`).waitFor();
    // The ended run's logs, read in pages after a reload once the service has them (live streaming is
    // ui-walkthrough's and ui-live-and-related's to test).
    await logLines(id, 3);
    await page.reload();
    const log = page.getByRole('log', { name: 'Log lines' });
    // Arguments and values as typed: a `{{` is not a template, an `=` after the first is the value's.
    await log.getByText('args: 2 [first arg] [{{ inputs.x }}]').waitFor();
    await log.getByText('greeting: hello = world').waitFor();
    await log.getByText('shell: sh').waitFor();
    await shot(page, 'editor-run-03-execution');
    const ex = (await ui.stack.api('GET', `/api/v1/executions/${id}`)).body;
    assert.equal(ex.trigger_type, 'file');
    assert.equal(ex.flow_id, null);
    assert.deepEqual(ex.trigger_payload, { path: 'scripts/report.sh', args: ['first arg', '{{ inputs.x }}'], env: { GREETING: 'hello = world', REPORT_SHELL: 'sh' } });
    assert.equal(ex.created_by, 'e2e@example.com');
  });

  it('runs an executable file, and a viewer is told the role it takes', async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}?file=bin/tool`);
    await opened('tool ran in');
    await runButton().click();
    const dialog = page.getByRole('dialog', { name: 'Run bin/tool' });
    await dialog.getByText('as a command: the file itself, executable').waitFor();
    await dialog.getByRole('button', { name: 'Run file' }).click();
    await page.waitForURL(/\/executions\/[^/]+$/);
    await waitState(page, 'SUCCESS');
    await logLines(new URL(page.url()).pathname.split('/').pop()!, 1);
    await page.reload();
    await page
      .getByRole('log', { name: 'Log lines' })
      .getByText(/^tool ran in /)
      .waitFor();

    const created = await ui.stack.api('POST', '/api/v1/users', { email: 'runfile-viewer@example.com', role: 'viewer', password: 'viewer password 1' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { page: viewer, context } = await newUser(ui.browser, ui.stack.url);
    await login(viewer, 'runfile-viewer@example.com', 'viewer password 1');
    await viewer.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await viewer.goto(`/editor/${NS}?file=scripts/report.sh`);
    await viewer.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('greeting'));
    const run = viewer.getByRole('button', { name: 'Run…' });
    assert.equal(await run.isDisabled(), true);
    assert.match((await run.getAttribute('title')) ?? '', /Needs the operator role/);
    await context.close();
  });
});
