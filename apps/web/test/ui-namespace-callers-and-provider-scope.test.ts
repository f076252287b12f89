// What a flow names outside its namespace, in the browser: an
// admin lets team-a call into team-b from team-b's page in the editor
// (Allowed callers), sets the namespaces a secret provider serves in
// Settings › Secret providers (when adding it and later); Nora, whose global
// role is `none` and who is bound editor on team-a, reads team-a's allowed
// callers and is told she needs the admin role to change them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, login, newUser, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();

describe('allowed callers and provider namespaces', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi({ maintenance: false });
    for (const ns of ['team-a', 'team-b']) assert.equal((await ui.stack.api('POST', '/api/v1/namespaces', { name: ns })).status, 201);
    assert.equal((await ui.stack.api('POST', '/api/v1/users', { email: 'nora@example.com', role: 'none', password: 'none password 12' })).status, 201);
    assert.equal((await ui.stack.api('POST', '/api/v1/role-bindings', { namespace: 'team-a', user: 'nora@example.com', role: 'editor' })).status, 201);
  });
  after(async () => ui?.stop());

  it("an admin sets team-b's allowed callers in the editor; the list shows what is allowed", async () => {
    const page = ui.admin;
    await page.goto('/editor/team-b');
    const section = page.getByRole('region', { name: 'Allowed callers' });
    await section.getByText('No other namespace.').waitFor();
    const form = section.getByRole('form', { name: 'Set the allowed callers of team-b' });
    await form.getByLabel('Allowed callers').fill('team-a, ops.tools');
    await form.getByRole('button', { name: 'Set callers' }).click();
    const list = section.getByRole('list', { name: 'Allowed callers of team-b' });
    await list.getByText('team-a', { exact: true }).waitFor();
    await list.getByText('ops.tools', { exact: true }).waitFor();
    assert.deepEqual((await ui.stack.api('GET', '/api/v1/namespaces/team-b')).body.allowed_callers, ['ops.tools', 'team-a']);
    await shot(page, 'namespace-allowed-callers');

    // A bad name is refused with the API's message, and the list stays.
    await form.getByLabel('Allowed callers').fill('Not Valid');
    await form.getByRole('button', { name: 'Set callers' }).click();
    await section
      .getByText(/allowed_callers/)
      .first()
      .waitFor();
    assert.deepEqual((await ui.stack.api('GET', '/api/v1/namespaces/team-b')).body.allowed_callers, ['ops.tools', 'team-a']);
  });

  it('a none user bound editor on team-a reads its allowed callers and may not change them', async () => {
    const nora = (await newUser(ui.browser, ui.stack.url)).page;
    await login(nora, 'nora@example.com', 'none password 12');
    await nora.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await nora.goto('/editor/team-a');
    const section = nora.getByRole('region', { name: 'Allowed callers' });
    await section.getByText('No other namespace.').waitFor();
    await section.getByText(/Needs the admin role/).waitFor();
    assert.equal(await section.getByRole('form').count(), 0);
  });

  it('an admin adds a provider with its namespaces and changes them later', async () => {
    const page = ui.admin;
    await page.goto('/admin/providers');
    const section = page.getByRole('region', { name: 'Secret providers' });
    const form = section.getByRole('form', { name: 'Add a secret provider' });
    await form.getByLabel('Name').fill('scoped');
    await form.getByLabel('Serves flows of').fill('team-a');
    await form.getByLabel('Variable prefix').fill('WEBSCOPE_');
    await form.getByRole('button', { name: 'Add provider' }).click();
    const row = section.getByRole('row', { name: /scoped/ });
    await row.getByText('team-a', { exact: true }).waitFor();
    await section.getByRole('button', { name: 'Set the namespaces of provider scoped' }).click();
    const edit = section.getByRole('form', { name: 'Namespaces of provider scoped' });
    await edit.getByLabel('Serves flows of').fill('team-a, team-b.etl');
    await edit.getByRole('button', { name: 'Save namespaces' }).click();
    await row.getByText('team-b.etl', { exact: true }).waitFor();
    const listed = (await ui.stack.api('GET', '/api/v1/secret-providers')).body.items.find((p: { name: string }) => p.name === 'scoped');
    assert.deepEqual(listed.namespaces, ['team-a', 'team-b.etl']);
    await shot(page, 'settings-provider-namespaces');
    await section.getByRole('button', { name: 'Set the namespaces of provider scoped' }).click();
    await edit.getByLabel('Serves flows of').fill('');
    await edit.getByRole('button', { name: 'Save namespaces' }).click();
    await row.getByText('none: no flow may use it').waitFor();
  });
});
