// A namespace mapped from a git source, in the browser, against a real bare
// repository served by `git daemon` on loopback and synced by a real
// scheduler process: the editor names the source (repository, branch, path,
// last synced commit) and keeps the namespace read-only, saying why; an edit
// is pushed as a branch that then exists in the repository (the namespace
// unchanged), and a push the service refuses shows its error. An execution
// of the synced flow shows its git_sha, short with the full commit on hover,
// on its page and in the execution list.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startGitDaemon, TestRepo, tempRoot, type TestServer } from '../../../packages/git-sources/src/testing.ts';
import { browserSkipReason, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.gitmapped';
const FLOW = 'id: daily\ndescription: Synced from git\ntasks:\n  - id: hello\n    type: command\n    command: ["echo", "hello from git"]\n';

describe('editor: a git-mapped namespace', { skip, concurrency: false }, () => {
  let ui: Ui;
  let root: string;
  let daemon: TestServer;
  let repo: TestRepo;
  let synced = '';
  let sourceId = '';

  before(async () => {
    ui = await startUi();
    ui.stack.startApp('scheduler', { SVC_GIT_SYNC_TICK_MS: '100' });
    root = tempRoot();
    daemon = await startGitDaemon(root);
    repo = new TestRepo(root, 'webrepo');
    synced = repo.commit({ 'flows/daily.flow.yaml': FLOW, 'README.md': '# not mapped\n' }, 'Add the daily flow');
    const created = await ui.stack.api('POST', '/api/v1/git-sources', {
      name: 'web-repo',
      repo_url: `${daemon.url}/webrepo.git`,
      mappings: [{ namespace: NS, repo_path: 'flows' }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    sourceId = created.body.id;
    for (let i = 0; i < 600; i++) {
      if ((await ui.stack.api('GET', `/api/v1/git-sources/${sourceId}`)).body.last_synced_sha === synced) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail('the scheduler did not sync the source within 60 s');
  });
  after(async () => {
    await ui?.stop();
    await daemon?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  const content = () => ui.admin.locator('.cm-content').innerText();
  const opened = (text: string) => ui.admin.waitForFunction((t) => document.querySelector('.cm-content')?.textContent?.includes(t), text);

  it('names the source, repository, branch and path, and keeps the namespace read-only', async () => {
    const page = ui.admin;
    await page.goto('/editor');
    // Through the namespace tree, as a user finds it.
    await page.getByRole('tree', { name: 'Namespace tree' }).getByRole('button', { name: 'gitmapped', exact: true }).click();
    await page.waitForURL(new RegExp(`/editor/${NS.replace('.', '\\.')}$`));
    await page.getByRole('navigation', { name: 'Files' }).getByRole('button', { name: 'daily.flow.yaml' }).click();
    await opened('hello from git');
    const panel = page.getByRole('region', { name: 'Git source' });
    await panel.getByText('Read-only: mapped from the git source web-repo.').waitFor();
    assert.equal(await panel.getByTestId('git-repo').innerText(), `${daemon.url}/webrepo.git`);
    assert.equal(await panel.getByTestId('git-branch').innerText(), 'main');
    assert.equal(await panel.getByTestId('git-path').innerText(), 'flows');
    const sha = panel.getByTestId('git-sha');
    assert.equal(await sha.innerText(), synced.slice(0, 7));
    assert.equal(await sha.getAttribute('title'), synced);
    assert.match(await panel.innerText(), /· success/);
    // Saving, new files, uploads and reverts are off, and say why.
    const save = page.getByRole('button', { name: 'Save' });
    assert.equal(await save.isDisabled(), true);
    assert.equal(await save.getAttribute('title'), 'The namespace is read-only: it is mapped from the git source web-repo');
    assert.equal(await page.getByRole('button', { name: 'New file' }).count(), 0);
    const revert = page.getByRole('region', { name: 'Versions' }).getByRole('button', { name: 'Revert to version 1' });
    assert.equal(await revert.isDisabled(), true);
    // The text cannot be edited either.
    await page.locator('.cm-content').click();
    await page.keyboard.type('typed');
    assert.equal((await content()).trim(), FLOW.trim());
    await page.getByRole('region', { name: 'Versions' }).getByRole('cell', { name: 'Add the daily flow' }).waitFor();
    await shot(page, 'editor-git-01-read-only');
  });

  it('pushes an edit as a branch: the branch is in the repository, the namespace unchanged', async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}?file=daily.flow.yaml`);
    await opened('hello from git');
    const panel = page.getByRole('region', { name: 'Git source' });
    await panel.getByRole('button', { name: 'Edit for a branch' }).click();
    const push = panel.getByRole('button', { name: 'Push as a branch' });
    assert.equal(await push.getAttribute('title'), 'Change the file first: the branch holds your edit');
    const edited = FLOW.replace('hello from git', 'hello from a branch');
    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(edited);
    await panel.getByLabel('Branch message').fill('Say hello from a branch');
    await push.click();
    const result = panel.getByTestId('pushed-branch');
    await result.waitFor();
    const branch = (await result.locator('code').nth(1).innerText()).trim();
    assert.match(branch, /^svc\/say-hello-from-a-branch-[0-9a-f]{6}$/);
    assert.match(await result.innerText(), new RegExp(`Pushed daily\\.flow\\.yaml to the new branch ${branch.replace('/', '\\/')} .*open a pull request from it into main\\.`));
    await shot(page, 'editor-git-02-pushed-branch');
    // In the repository: the branch, on top of the synced commit, with the edit under the mapped path.
    assert.ok(repo.branches().includes(branch), `branches: ${repo.branches().join(', ')}`);
    assert.equal(repo.show(branch, 'flows/daily.flow.yaml'), edited);
    assert.equal(repo.log(branch).parent, synced);
    assert.equal(repo.log(branch).author, 'e2e@example.com');
    assert.equal(await result.getByTestId('git-sha').getAttribute('title'), repo.revParse(branch));
    // The namespace itself did not change.
    assert.equal((await ui.stack.api('GET', `/api/v1/namespaces/${NS}/file?path=daily.flow.yaml`)).body.content, FLOW);
    // Stopping drops the edit: the file reads as the namespace has it, read-only again.
    await panel.getByRole('button', { name: 'Stop editing (drop the edit)' }).click();
    await opened('hello from git');
    await panel.getByRole('button', { name: 'Edit for a branch' }).waitFor();
  });

  it('shows the error of a push the service refuses', async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}?file=daily.flow.yaml`);
    await opened('hello from git');
    const panel = page.getByRole('region', { name: 'Git source' });
    await panel.getByRole('button', { name: 'Edit for a branch' }).click();
    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(FLOW.replace('description:', 'schedule_everything: true\ndescription:'));
    const before = repo.branches().length;
    await panel.getByRole('button', { name: 'Push as a branch' }).click();
    const alert = panel.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /flow_invalid · HTTP 422/);
    assert.match(await alert.innerText(), /schedule_everything/);
    await shot(page, 'editor-git-03-push-refused');
    assert.equal(repo.branches().length, before, 'nothing was pushed');
  });

  it("shows an execution's git_sha on its page and in the execution list", async () => {
    const page = ui.admin;
    await page.goto(`/flows/${NS}/daily`);
    await page.getByRole('form', { name: 'Run the flow' }).getByRole('button', { name: 'Run' }).click();
    await page.waitForURL(/\/executions\/[^/]+$/);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    await waitState(page, 'SUCCESS');
    assert.equal((await ui.stack.api('GET', `/api/v1/executions/${id}`)).body.git_sha, synced);
    const header = page.locator('.page > p.muted').first();
    const sha = header.getByTestId('git-sha');
    assert.equal(await sha.innerText(), synced.slice(0, 7));
    assert.equal(await sha.getAttribute('title'), synced);
    assert.match(await header.innerText(), new RegExp(`Flow ${NS.replace('.', '\\.')}/daily · commit ${synced.slice(0, 7)} · \\w+ by e2e@example\\.com`));
    await sha.hover();
    await shot(page, 'executions-git-sha-01-execution');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Executions' }).click();
    await page.getByRole('textbox', { name: 'Namespace', exact: true }).fill(NS);
    const row = page.getByRole('row').filter({ hasText: id });
    await row.waitFor();
    await page.getByRole('columnheader', { name: 'Commit' }).waitFor();
    assert.equal(await row.getByTestId('git-sha').innerText(), synced.slice(0, 7));
    assert.equal(await row.getByTestId('git-sha').getAttribute('title'), synced);
    await shot(page, 'executions-git-sha-02-list');
  });
});
