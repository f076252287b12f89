// A `file` input on the run form, in the browser: the input is a drop zone;
// a CSV dropped onto it is uploaded at once (createUpload) and shown with its
// name, size and sha256; Run then starts an execution with the upload's id as
// the input's value, and the execution's Files tab lists the file as an input
// file with the same size and sha256. A file over SVC_MAX_INPUT_FILE_BYTES
// shows the service's 413 message and leaves the input without a value; the
// file picker in the zone uploads too. Run without a file says one is needed.
// Replay offers the same drop zone for a file input: the file dropped there
// replaces the original's, the plan names the input changed, and the replay
// reads the new file.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.inputs';
const LIMIT = 1024;
const CSV = 'quarter,revenue\nQ1,100\nQ2,120\nQ3,"1,250"\n';
const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
const FLOW = JSON.stringify({
  id: 'report',
  inputs: [
    { id: 'report', type: 'file', required: true, description: 'The quarter as CSV' },
    { id: 'note', type: 'string', default: 'none' },
  ],
  tasks: [{ id: 'load', type: 'command', command: ['sh', '-c', 'echo loaded'] }],
});

/** Drops a file named `name` holding `content` onto the drop zone of input `input`, as a drag from the desktop does. */
async function dropFile(page: Page, input: string, name: string, content: string): Promise<void> {
  const zone = page.getByRole('group', { name: `Drop a file for ${input}` });
  const dataTransfer = await page.evaluateHandle(
    ([n, c]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([c], n, { type: 'text/csv' }));
      return dt;
    },
    [name, content] as const,
  );
  await zone.dispatchEvent('dragenter', { dataTransfer });
  await zone.dispatchEvent('dragover', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
}

describe('run form: file inputs', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi({ env: { SVC_MAX_INPUT_FILE_BYTES: String(LIMIT) } });
    await ui.stack.saveFlow(NS, { 'report.flow.yaml': FLOW });
  });
  after(async () => ui?.stop());

  it('uploads a dropped file, runs the flow with it, and lists it in the Files tab', async () => {
    const page = ui.admin;
    await page.goto(`/flows/${NS}/report`);
    const form = page.getByRole('form', { name: 'Run the flow' });
    // No file yet: Run says one is needed, and nothing starts.
    await form.getByRole('button', { name: 'Run' }).click();
    await form.getByRole('alert').getByText('Required: drop or choose a file').waitFor();
    assert.match(page.url(), /\/flows\//);

    await dropFile(page, 'report', 'q3.csv', CSV);
    const status = form.getByRole('group', { name: 'Drop a file for report' }).getByRole('status');
    await status.getByText(`Uploaded q3.csv, ${CSV.length} B`).waitFor();
    // The file answers the "Required" said before.
    assert.equal(await form.getByText('Required: drop or choose a file').count(), 0);
    const uploadId = await status.locator('[data-upload-id]').getAttribute('data-upload-id');
    assert.ok(uploadId, 'the upload id is kept');
    assert.match((await status.locator('[title]').getAttribute('title'))!, new RegExp(`^${sha(CSV)}$`));
    await shot(page, 'run-file-01-uploaded');

    await form.getByRole('button', { name: 'Run' }).click();
    await page.waitForURL(/\/executions\/[^/]+$/);
    const id = page.url().split('/').pop()!;
    // The execution got the upload's id as the input's value.
    const ex = (await ui.stack.api('GET', `/api/v1/executions/${id}`)).body;
    assert.equal(ex.inputs.report, uploadId, JSON.stringify(ex.inputs));
    assert.equal(ex.inputs.note, 'none');
    await waitState(page, 'SUCCESS');

    await page.getByRole('tab', { name: 'Files' }).click();
    const panel = page.getByRole('tabpanel', { name: 'Files' });
    const table = panel.getByRole('table', { name: 'Input files' });
    await table.waitFor();
    const rows = await table.locator('tbody tr').evaluateAll((trs) =>
      trs.map((tr) =>
        [...tr.querySelectorAll('td')]
          .slice(0, 3)
          .map((td) => td.textContent)
          .concat(tr.querySelector('[data-sha256]')?.getAttribute('data-sha256') ?? ''),
      ),
    );
    assert.deepEqual(rows, [['—', 'report/q3.csv', `${CSV.length} B`, sha(CSV)]]);
    await panel.getByRole('button', { name: 'Preview report/q3.csv' }).click();
    const csv = panel.getByRole('table', { name: 'CSV preview of report/q3.csv' });
    await csv.waitFor();
    assert.deepEqual(await csv.locator('thead th').allInnerTexts(), ['quarter', 'revenue']);
    assert.deepEqual(await csv.locator('tbody tr:last-child td').allInnerTexts(), ['Q3', '1,250']);
    await shot(page, 'run-file-02-files-tab');
  });

  it("shows the service's message for a file over the limit, and uploads a file chosen with the picker", async () => {
    const page = ui.admin;
    await page.goto(`/flows/${NS}/report`);
    const form = page.getByRole('form', { name: 'Run the flow' });
    const zone = form.getByRole('group', { name: 'Drop a file for report' });
    await dropFile(page, 'report', 'big.csv', 'x'.repeat(LIMIT + 1));
    const alert = zone.getByRole('alert');
    await alert.getByText(`big.csv is ${LIMIT + 1} bytes, over SVC_MAX_INPUT_FILE_BYTES (${LIMIT} bytes)`).waitFor();
    assert.match(await alert.innerText(), /too_large · HTTP 413/);
    await shot(page, 'run-file-03-too-large');
    // The input has no value: Run asks for a file instead of starting.
    const before = (await ui.stack.api('GET', `/api/v1/executions?namespace=${NS}`)).body.items.length;
    await form.getByRole('button', { name: 'Run' }).click();
    await form.getByText('Required: drop or choose a file').waitFor();
    assert.equal((await ui.stack.api('GET', `/api/v1/executions?namespace=${NS}`)).body.items.length, before);

    // The picker (the label names it) uploads the same way, and the failure goes.
    await form.getByLabel(/^report/).setInputFiles({ name: 'q4.csv', mimeType: 'text/csv', buffer: Buffer.from('quarter\nQ4\n') });
    await zone.getByRole('status').getByText('Uploaded q4.csv, 11 B').waitFor();
    assert.equal(await zone.getByRole('alert').count(), 0);
    assert.equal(await form.getByText('Required: drop or choose a file').count(), 0);
    await form.getByRole('button', { name: 'Run' }).click();
    await page.waitForURL(/\/executions\/[^/]+$/);
    await waitState(page, 'SUCCESS');
    const id = page.url().split('/').pop()!;
    const files = (await ui.stack.api('GET', `/api/v1/executions/${id}/artifacts`)).body.items as { kind?: string; name: string; size: number }[];
    assert.deepEqual(
      files.filter((f) => f.kind === 'input').map((f) => [f.name, f.size]),
      [['report/q4.csv', 11]],
    );
  });

  it('replays an execution with another file dropped in the replay dialog', async () => {
    const page = ui.admin;
    await page.goto(`/flows/${NS}/report`);
    const form = page.getByRole('form', { name: 'Run the flow' });
    await dropFile(page, 'report', 'q1.csv', 'quarter\nQ1\n');
    await form.getByRole('group', { name: 'Drop a file for report' }).getByRole('status').getByText('Uploaded q1.csv').waitFor();
    await form.getByRole('button', { name: 'Run' }).click();
    await page.waitForURL(/\/executions\/[^/]+$/);
    const id = page.url().split('/').pop()!;
    await waitState(page, 'SUCCESS');
    const original = (await ui.stack.api('GET', `/api/v1/executions/${id}`)).body;

    await page.getByRole('button', { name: 'Replay…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay execution' });
    await dialog.waitFor();
    // Prefilled with the original's upload; nothing changed yet.
    const value = dialog.getByRole('textbox', { name: /^report/ });
    assert.equal(await value.inputValue(), original.inputs.report);
    assert.equal(await dialog.locator('[data-changed="true"]').count(), 0);

    const fixed = 'quarter,revenue\nQ1,101\n';
    await dropFile(page, 'report', 'q1-fixed.csv', fixed);
    const status = dialog.getByRole('group', { name: 'Drop a file for report' }).getByRole('status');
    await status.getByText(`Uploaded q1-fixed.csv, ${fixed.length} B`).waitFor();
    const uploadId = await status.locator('[data-upload-id]').getAttribute('data-upload-id');
    assert.ok(uploadId && uploadId !== original.inputs.report, 'a new upload');
    assert.equal(await value.inputValue(), uploadId, 'the new upload is the value');
    assert.equal(await dialog.locator('[data-changed="true"]').count(), 1);
    await dialog.getByRole('button', { name: 'Show plan' }).click();
    await dialog.getByTestId('replay-plan').waitFor();
    assert.deepEqual(await dialog.getByTestId('replay-changed').locator('li').allInnerTexts(), ['report']);
    await shot(page, 'run-file-04-replay-plan');

    await dialog.getByRole('button', { name: 'Start replay' }).click();
    await page.waitForURL((u) => /\/executions\/[^/]+$/.test(u.pathname) && !u.pathname.endsWith(id));
    const newId = new URL(page.url()).pathname.split('/').pop()!;
    await waitState(page, 'SUCCESS');
    const replay = (await ui.stack.api('GET', `/api/v1/executions/${newId}`)).body;
    assert.equal(replay.replay_of, id);
    assert.equal(replay.inputs.report, uploadId);
    const files = (await ui.stack.api('GET', `/api/v1/executions/${newId}/artifacts`)).body.items as { kind?: string; name: string; size: number; sha256?: string }[];
    assert.deepEqual(
      files.filter((f) => f.kind === 'input').map((f) => [f.name, f.size, f.sha256]),
      [['report/q1-fixed.csv', fixed.length, sha(fixed)]],
    );
  });
});
