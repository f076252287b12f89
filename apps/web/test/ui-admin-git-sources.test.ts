// Settings › Git sources in the browser: a bare repository over
// file:// is the remote and a real scheduler process runs the sync workers.
// An admin adds a source with two mappings and a webhook secret, watches its
// first sync land, syncs again by hand, reads the webhook URL and the setup
// steps for GitHub, GitLab and Gitea, and sees a signed push notification
// sync a new commit; an edit to a branch that does not exist shows the failed
// run and its error; a source over https with a token credential fails to
// sync without the token ever showing; a source is deleted. Credential and
// webhook secret values are typed once and never shown again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { hubSignature } from '../../../packages/git-sources/src/webhook.ts';
import { TestRepo, tempRoot } from '../../../packages/git-sources/src/testing.ts';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const HOOK_SECRET = 'ui-hook-Very-S3cret-0815';
const TOKEN = 'ghp_uiTestVeryS3cretToken4711';
const flow = (id: string) => JSON.stringify({ id, tasks: [{ id: 't', type: 'command', command: ['true'] }] });

describe('git sources screen', { skip, concurrency: false }, () => {
  let ui: Ui;
  let root = '';
  let repo: TestRepo;
  let first = '';
  let sourceId = '';

  before(async () => {
    ui = await startUi({ maintenance: false, dispatchers: 0 });
    ui.stack.startApp('scheduler', { SVC_GIT_SYNC_TICK_MS: '100' });
    root = tempRoot();
    repo = new TestRepo(root, 'ui');
    first = repo.commit({ 'flows/hello.flow.yaml': flow('hello'), 'docs/README.md': '# docs\n' }, 'first');
  });
  after(async () => {
    await ui?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  const screen = (page: Page) => page.getByRole('region', { name: 'Git sources' });
  const detail = (page: Page, name: string) => page.getByRole('region', { name: `Git source ${name}` });
  /** The cells of the sync runs table, as the user reads them: [trigger, status, commit, error]. */
  const runRows = (page: Page, name: string) =>
    detail(page, name)
      .getByRole('table', { name: 'Sync runs' })
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((c) => (c as HTMLElement).innerText.trim())).map((c) => [c[1], c[2], c[3], c[5]]));
  /** No secret value on the page or left in a field. */
  const secretsNowhere = async (page: Page) => {
    const text = await page.locator('body').innerText();
    for (const s of [HOOK_SECRET, TOKEN]) assert.ok(!text.includes(s), `${s.slice(0, 6)}… is not on the page`);
    const inFields = await page
      .locator('input, textarea')
      .evaluateAll((els, ss) => els.filter((e) => ss.some((s) => (e as HTMLInputElement).value.includes(s))).length, [HOOK_SECRET, TOKEN]);
    assert.equal(inFields, 0, 'nor left in a field');
  };

  it('an admin adds a source with two mappings; its first sync and a manual one show in the runs', async () => {
    const page = ui.admin;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Git sources' }).click();
    await screen(page).getByText('No git sources').waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/git-sources');

    await screen(page).getByRole('button', { name: 'Add git source' }).click();
    const form = screen(page).getByRole('form', { name: 'Add a git source' });
    await form.getByLabel('Name', { exact: true }).fill('flows-repo');
    await form.getByLabel('Repository URL').fill(repo.fileUrl);
    await form.getByLabel('Mapping 1 namespace').fill('team.flows');
    await form.getByLabel('Mapping 1 repository path').fill('flows');
    await form.getByRole('button', { name: 'Add mapping' }).click();
    await form.getByLabel('Mapping 2 namespace').fill('team.docs');
    await form.getByLabel('Mapping 2 repository path').fill('docs');
    await form.getByLabel('Webhook secret (platform secret name)').fill('GIT_HOOK_SECRET');
    await form.getByLabel(/Webhook secret value/).fill(HOOK_SECRET);
    await shot(page, 'admin-git-sources-form');
    await form.getByRole('button', { name: 'Create source' }).click();
    await form.waitFor({ state: 'detached' });

    const listed = (await ui.stack.api('GET', '/api/v1/git-sources')).body.items;
    assert.equal(listed.length, 1);
    sourceId = listed[0].id;
    assert.equal(new URL(page.url()).searchParams.get('source'), sourceId, 'the new source is opened');
    // Creating queues the first sync; the scheduler runs it and the table follows.
    const d = detail(page, 'flows-repo');
    await d.getByRole('table', { name: 'Sync runs' }).getByText('success', { exact: true }).waitFor({ timeout: 60_000 });
    assert.deepEqual(await runRows(page, 'flows-repo'), [['manual', 'success', first.slice(0, 10), '']]);
    const row = screen(page).getByRole('row', { name: /flows-repo/ });
    await row.getByText(first.slice(0, 10)).waitFor();
    assert.match(await row.innerText(), /flows → team\.flows\s+docs → team\.docs/);
    assert.deepEqual(
      await d
        .getByRole('table', { name: 'Mappings' })
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).innerText.replace(/\s+/g, ' ').trim())),
      ['flows team.flows', 'docs team.docs'],
    );
    assert.equal((await ui.stack.api('GET', '/api/v1/flows/team.flows/hello')).status, 200, 'the mapped directory became the namespace');

    await row.getByRole('button', { name: 'Sync flows-repo now' }).click();
    await d.getByRole('table', { name: 'Sync runs' }).getByText('no change', { exact: true }).waitFor({ timeout: 60_000 });
    assert.deepEqual((await runRows(page, 'flows-repo'))[0]!.slice(0, 2), ['manual', 'no change']);
    await secretsNowhere(page);
    await shot(page, 'admin-git-sources-synced');
  });

  it('shows the webhook URL with the GitHub, GitLab and Gitea steps, and a signed push syncs the new commit', async () => {
    const page = ui.admin;
    const d = detail(page, 'flows-repo');
    const url = await d.getByTestId('git-webhook-url').innerText();
    assert.equal(url, (await ui.stack.api('GET', `/api/v1/git-sources/${sourceId}`)).body.webhook_url);
    assert.ok(url.endsWith(`/hooks/git/${sourceId}`), url);
    const text = await d.innerText();
    assert.match(text, /Signed with the value of the platform secret GIT_HOOK_SECRET/);
    for (const host of ['GitHub: repository Settings → Webhooks', 'GitLab: project Settings → Webhooks', 'Gitea / Forgejo: repository Settings → Webhooks'])
      assert.ok(text.includes(host), host);
    await d.getByText('Push webhook').scrollIntoViewIfNeeded();
    await shot(page, 'admin-git-sources-webhook');

    // A push, as GitHub notifies it, to the gateway's hook (the URL names the source).
    const second = repo.commit({ 'flows/bye.flow.yaml': flow('bye') }, 'second');
    const payload = JSON.stringify({ ref: 'refs/heads/main' });
    const hook = `${ui.stack.url}/hooks/git/${sourceId}`;
    const res = await fetch(hook, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': hubSignature(HOOK_SECRET, Buffer.from(payload)) },
      body: payload,
    });
    assert.equal(res.status, 202, await res.text());
    await d.getByRole('table', { name: 'Sync runs' }).getByText(second.slice(0, 10)).waitFor({ timeout: 60_000 });
    assert.deepEqual((await runRows(page, 'flows-repo'))[0], ['webhook', 'success', second.slice(0, 10), '']);
    assert.equal((await ui.stack.api('GET', '/api/v1/flows/team.flows/bye')).status, 200);
  });

  it('an edit to a missing branch resyncs and shows the failed run with its error', async () => {
    const page = ui.admin;
    await screen(page).getByRole('button', { name: 'Edit flows-repo' }).click();
    const form = screen(page).getByRole('form', { name: 'Edit git source flows-repo' });
    assert.equal(await form.getByLabel('Repository URL').inputValue(), repo.fileUrl);
    assert.equal(await form.getByLabel('Mapping 2 namespace').inputValue(), 'team.docs');
    assert.equal(await form.getByLabel(/Webhook secret value/).inputValue(), '', 'the secret value is never filled in');
    await form.getByLabel('Branch', { exact: true }).fill('no-such-branch');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.waitFor({ state: 'detached' });
    const d = detail(page, 'flows-repo');
    await d.getByRole('table', { name: 'Sync runs' }).getByText('failed', { exact: true }).waitFor({ timeout: 60_000 });
    const runs = (await ui.stack.api('GET', `/api/v1/git-sources/${sourceId}/runs`)).body.items;
    assert.equal(runs[0].status, 'failed');
    assert.ok(runs[0].error, 'the run has an error');
    const [trigger, status, , error] = (await runRows(page, 'flows-repo'))[0]!;
    assert.deepEqual([trigger, status, error], ['manual', 'failed', runs[0].error.trim()]);
    // The list says so too, with the source's last error.
    const row = screen(page).getByRole('row', { name: /flows-repo/ });
    await row.getByText('failed', { exact: true }).waitFor();
    assert.ok((await row.innerText()).includes((await ui.stack.api('GET', `/api/v1/git-sources/${sourceId}`)).body.last_error.trim()));
    await shot(page, 'admin-git-sources-failed-run');
  });

  it('a token credential is stored as a platform secret and never shown, even when the sync fails', async () => {
    const page = ui.admin;
    await screen(page).getByRole('button', { name: 'Add git source' }).click();
    const form = screen(page).getByRole('form', { name: 'Add a git source' });
    await form.getByLabel('Name', { exact: true }).fill('private');
    await form.getByLabel('Repository URL').fill('https://127.0.0.1:9/acme/private.git');
    await form.getByLabel('Authentication').selectOption('token');
    await form.getByLabel('Credential secret (platform secret name)').fill('GIT_TOKEN');
    await form.getByLabel(/Credential value/).fill(TOKEN);
    await form.getByLabel('Mapping 1 namespace').fill('private.ns');
    await form.getByRole('button', { name: 'Create source' }).click();
    await form.waitFor({ state: 'detached' });
    const d = detail(page, 'private');
    await d.getByText('token, credential in secret GIT_TOKEN (hidden)').waitFor();
    await d.getByRole('table', { name: 'Sync runs' }).getByText('failed', { exact: true }).waitFor({ timeout: 90_000 });
    await secretsNowhere(page);
    const secrets = await ui.stack.api('GET', '/api/v1/platform-secrets');
    assert.ok(JSON.stringify(secrets.body).includes('GIT_TOKEN'), 'the credential is a platform secret');
    assert.ok(!JSON.stringify((await ui.stack.api('GET', '/api/v1/secrets')).body).includes('GIT_TOKEN'), 'and no global secret');
    for (const p of ['/api/v1/secrets', '/api/v1/platform-secrets', '/api/v1/git-sources', '/api/v1/audit?limit=200'])
      assert.ok(!JSON.stringify((await ui.stack.api('GET', p)).body).includes(TOKEN), p);
    await shot(page, 'admin-git-sources-token');

    await screen(page).getByRole('button', { name: 'Delete private' }).click();
    await screen(page)
      .getByRole('row', { name: /private/ })
      .waitFor({ state: 'detached' });
    assert.equal(await detail(page, 'private').count(), 0);
    assert.deepEqual(
      (await ui.stack.api('GET', '/api/v1/git-sources')).body.items.map((s: { name: string }) => s.name),
      ['flows-repo'],
    );
  });
});
