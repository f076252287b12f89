// Settings in the browser: secret providers added, checked, disabled and
// deleted (a credential never shown); the instances page (online and offline,
// the pools served, versions); storage status by kind; and the namespace tree
// walked with the arrow keys.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();

describe('settings pages', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi();
  });
  after(async () => ui?.stop());

  it('adds, checks, disables and deletes secret providers; a credential is never shown', async () => {
    const page = ui.admin;
    await page.goto('/admin/providers');
    const section = page.getByRole('region', { name: 'Secret providers' });
    await section.getByText('No providers').waitFor();
    const form = section.getByRole('form', { name: 'Add a secret provider' });
    await form.getByLabel('Name').fill('envsrc');
    await form.getByLabel('Variable prefix').fill('WEBTEST_');
    await form.getByRole('button', { name: 'Add provider' }).click();
    const env = section.getByRole('row', { name: /envsrc/ });
    await env.getByText('prefix:').waitFor();
    await env.getByText('enabled', { exact: true }).waitFor();
    await section.getByRole('button', { name: 'Check provider envsrc' }).click();
    const result = section.getByTestId('provider-check');
    await result.getByText(/envsrc: works — 0 environment variable\(s\) start with WEBTEST_/).waitFor();

    // A vault that cannot be reached: its token is write-only, and the check says what failed.
    await form.getByLabel('Name').fill('vaultsrc');
    await form.getByLabel('Type').selectOption('vault');
    await form.getByLabel('Vault address').fill('http://127.0.0.1:9');
    await form.getByLabel('Token').fill('tok-very-s3cret');
    await form.getByRole('button', { name: 'Add provider' }).click();
    const vault = section.getByRole('row', { name: /vaultsrc/ });
    await vault.getByText('set (hidden)').waitFor();
    assert.equal(await page.getByText('tok-very-s3cret').count(), 0, 'the token is never shown');
    assert.equal(await page.locator('input').evaluateAll((els) => els.filter((e) => (e as HTMLInputElement).value.includes('tok-very')).length), 0, 'nor left in a field');
    await section.getByRole('button', { name: 'Check provider vaultsrc' }).click();
    await result.getByText(/vaultsrc: does not work — /).waitFor({ timeout: 60_000 });
    assert.doesNotMatch(await result.innerText(), /tok-very-s3cret/);
    await shot(page, 'settings-01-providers');

    await section.getByRole('button', { name: 'Disable provider envsrc' }).click();
    await env.getByText('disabled', { exact: true }).waitFor();
    const listed = await ui.stack.api('GET', '/api/v1/secret-providers');
    assert.equal(listed.body.items.find((p: { name: string }) => p.name === 'envsrc').enabled, false);
    assert.doesNotMatch(JSON.stringify(listed.body), /tok-very-s3cret/);
    await section.getByRole('button', { name: 'Enable provider envsrc' }).click();
    await env.getByText('enabled', { exact: true }).waitFor();
    await section.getByRole('button', { name: 'Delete provider vaultsrc' }).click();
    await vault.waitFor({ state: 'detached' });
    assert.equal((await ui.stack.api('GET', '/api/v1/secret-providers')).body.items.length, 1);
  });

  it('shows instances online and offline, with the pools they serve', async () => {
    const page = ui.admin;
    const gpu = ui.stack.startApp('dispatcher', { SVC_POOLS: 'gpu' });
    await page.goto('/admin/instances');
    const section = page.getByRole('region', { name: 'Instances' });
    const served = section.getByRole('list', { name: 'Pools served now' });
    // The stack's gateway, dispatcher and maintenance, and the gpu dispatcher once its heartbeat is in.
    for (let i = 0; i < 60 && !(await served.getByText('gpu').count()); i++) {
      await section.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(1000);
    }
    await served
      .getByRole('listitem')
      .filter({ hasText: /^gpu: .*process/ })
      .waitFor();
    await served
      .getByRole('listitem')
      .filter({ hasText: /^default: .*process/ })
      .waitFor();
    await section
      .getByTestId('instance-summary')
      .getByText(/^4 online, 0 offline/)
      .waitFor();
    const table = section.getByRole('table', { name: 'Instances' });
    assert.equal(await table.getByText('Online', { exact: true }).count(), 4);
    await table.getByRole('row', { name: /dispatcher .*gpu/ }).waitFor();
    await shot(page, 'settings-02-instances');

    // Stopped: it leaves the online list and shows only when offline ones are asked for.
    gpu.child.kill('SIGTERM');
    await gpu.exited;
    for (let i = 0; i < 60 && (await served.getByText('gpu').count()); i++) {
      await section.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(1000);
    }
    await section
      .getByTestId('instance-summary')
      .getByText(/^3 online, 1 offline/)
      .waitFor();
    assert.equal(await table.getByText('Offline', { exact: true }).count(), 0);
    await section.getByLabel('Show offline instances').check();
    const offline = table.getByRole('row').filter({ hasText: 'Offline' });
    await offline.waitFor();
    assert.match(await offline.innerText(), /gpu/);
    assert.match(await offline.innerText(), /stopped/);
  });

  it('shows storage by kind of object, with the cleanup status', async () => {
    await ui.stack.saveFlow('web.settings', { 'a.flow.yaml': 'id: a\ntasks:\n  - {id: t, type: command, command: ["echo", "stored"]}\n' });
    const ex = await ui.stack.trigger('web.settings', 'a');
    await ui.stack.waitEnded(ex.id, 60_000);
    const page = ui.admin;
    await page.goto('/admin/storage');
    const section = page.getByRole('region', { name: 'Storage' });
    const table = section.getByRole('table', { name: 'Stored objects by kind' });
    await table.waitFor();
    const status = (await ui.stack.api('GET', '/api/v1/storage')).body;
    const files = table.getByRole('row', { name: /^files/ });
    assert.equal(await files.getByRole('cell').first().innerText(), String(status.objects.files.objects));
    assert.ok(status.objects.files.objects >= 1);
    assert.match(await table.getByRole('row', { name: /^total/ }).innerText(), /\d+ (B|KiB|MiB)/);
    await section.getByText(new RegExp(`Store ${status.store}`)).waitFor();
    await section.getByText(/No cleanup has run yet|Last run started/).waitFor();
    await section.getByRole('button', { name: 'Scan again' }).click();
    await shot(page, 'settings-03-storage');
  });

  it('walks the namespace tree and the file list with the arrow keys', async () => {
    await ui.stack.saveFlow('web.keys', { 'one.flow.yaml': 'id: one\ntasks:\n  - {id: t, type: command, command: ["true"]}\n', 'two.txt': 'two\n' });
    const page = ui.admin;
    await page.goto('/flows');
    const tree = page.getByRole('navigation', { name: 'Namespaces' });
    await tree.getByRole('button', { name: 'All namespaces' }).focus();
    await page.keyboard.press('ArrowDown'); // "web", the parent of web.keys and web.settings
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'web');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'keys');
    await page.keyboard.press('Enter');
    await page.waitForURL(/namespace=web.keys/);
    await page.getByRole('heading', { name: 'Flows in web.keys' }).waitFor();
    await page.keyboard.press('End');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'settings');
    await page.keyboard.press('Home');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'All namespaces');
    // The editor's file list: arrows move, Enter opens.
    await page.goto('/editor/web.keys');
    const files = page.getByRole('navigation', { name: 'Files' });
    await files.getByRole('button', { name: 'one.flow.yaml' }).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(/file=two.txt/);
    await page.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('two'));
    await shot(page, 'settings-04-keyboard');
  });
});
