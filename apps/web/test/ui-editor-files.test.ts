// The namespace editor beyond the walkthrough, in the browser: a namespace
// version compared with the head side by side, a revert to it, and the upload
// of a binary file that then reads back byte for byte.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.files';
const V1 = 'id: etl\ndescription: first\ntasks:\n  - {id: a, type: command, command: ["echo", "one"]}\n';
const V2 = 'id: etl\ndescription: second\ntasks:\n  - {id: a, type: command, command: ["echo", "two"]}\n';

describe('editor: versions, diff, revert, upload', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'etl.flow.yaml': V1 });
    await ui.stack.saveFlow(NS, { 'etl.flow.yaml': V2, 'notes.md': '# notes\n' });
  });
  after(async () => ui?.stop());

  const content = () => ui.admin.locator('.cm-content').innerText();

  it('compares version 1 with the head, for the open file and for the whole namespace', async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}?file=etl.flow.yaml`);
    await page.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('description: second'));
    const versions = page.getByRole('region', { name: 'Versions' });
    await versions.getByRole('button', { name: 'Diff version 2 with the head' }).waitFor();
    await versions.getByRole('button', { name: 'Diff version 1 with the head' }).click();
    const result = versions.getByTestId('version-diff');
    await result.getByRole('heading', { name: 'Version 1 → version 2, etl.flow.yaml only: 1 file changed' }).waitFor();
    const diff = result.getByRole('table', { name: 'Differences between etl.flow.yaml at version 1 and version 2' });
    assert.deepEqual(await diff.locator('td.code.del').allInnerTexts(), ['description: first', '  - {id: a, type: command, command: ["echo", "one"]}']);
    assert.deepEqual(await diff.locator('td.code.add').allInnerTexts(), ['description: second', '  - {id: a, type: command, command: ["echo", "two"]}']);
    await shot(page, 'editor-01-version-diff');
    // With no file open, the diff covers every file of the namespace: notes.md was added in version 2.
    await page.goto(`/editor/${NS}`);
    await versions.getByRole('button', { name: 'Diff version 1 with the head' }).click();
    await result.getByRole('heading', { name: 'Version 1 → version 2: 2 files changed' }).waitFor();
    await result.getByRole('heading', { name: 'notes.md added' }).waitFor();
    const added = result.getByRole('table', { name: 'Differences between notes.md at version 1 and version 2' });
    assert.deepEqual(await added.locator('td.code.add').allInnerTexts(), ['# notes']);
  });

  it("reverts the namespace to version 1: a new head with version 1's files", async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}?file=etl.flow.yaml`);
    await page.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('description: second'));
    const versions = page.getByRole('region', { name: 'Versions' });
    await versions.getByRole('button', { name: 'Revert to version 1' }).click();
    // The new head's message; exact, since version 1's action cell (shown while its button has the focus) is named after its buttons too.
    await versions.getByRole('cell', { name: 'Revert to version 1', exact: true }).waitFor();
    await page.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('description: first'));
    assert.match(await content(), /echo", "one"/);
    // The file list follows: notes.md did not exist in version 1.
    await page.getByRole('navigation', { name: 'Files' }).getByRole('button', { name: 'notes.md' }).waitFor({ state: 'detached' });
    await shot(page, 'editor-02-reverted');
    const head = await ui.stack.api('GET', `/api/v1/namespaces/${NS}/file?path=etl.flow.yaml`);
    assert.equal(head.body.content, V1);
    assert.equal(head.body.version, 3);
  });

  it('uploads a binary file, which then reads back byte for byte and cannot be edited as text', async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}`);
    const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]), crypto.randomBytes(2000)]);
    await page.getByLabel('File path').fill('assets/logo.png');
    await page.getByLabel('Upload file…').setInputFiles({ name: 'picked.png', mimeType: 'image/png', buffer: bytes });
    const files = page.getByRole('navigation', { name: 'Files' });
    await files.getByRole('button', { name: 'assets/logo.png' }).click();
    await page.getByText(new RegExp(`^Binary file, ${bytes.length.toLocaleString('en-US')} bytes\\.`)).waitFor();
    const save = page.getByRole('button', { name: 'Save' });
    assert.equal(await save.isDisabled(), true);
    assert.equal(await save.getAttribute('title'), 'Binary files are replaced by upload');
    await page.getByRole('region', { name: 'Versions' }).getByRole('cell', { name: 'Upload assets/logo.png' }).waitFor();
    await shot(page, 'editor-03-uploaded');
    const got = await ui.stack.api('GET', `/api/v1/namespaces/${NS}/file?path=assets/logo.png`);
    assert.equal(got.status, 200);
    assert.equal(got.body.content, undefined);
    assert.ok(Buffer.from(got.body.content_base64, 'base64').equals(bytes), 'the stored bytes are the uploaded ones');
  });
});
