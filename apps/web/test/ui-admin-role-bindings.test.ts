// Settings › Role bindings in the browser: an admin binds a user
// (global viewer) as editor on `team` and an IdP group as operator on
// `other`, through the form; the table lists them as the API has them; the
// user may then save a file on `team.etl` (a child) and not on `other`;
// deleting the binding in the table takes the role away at once. Both
// changes are in the audit log.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, login, newUser, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();

describe('role bindings screen', { skip, concurrency: false }, () => {
  let ui: Ui;
  let annToken = '';

  before(async () => {
    ui = await startUi({ maintenance: false, dispatchers: 0 });
    for (const ns of ['team', 'team.etl', 'other']) {
      assert.equal((await ui.stack.api('POST', '/api/v1/namespaces', { name: ns })).status, 201);
      const saved = await ui.stack.api('POST', `/api/v1/namespaces/${ns}/changes`, {
        message: 'flow',
        changes: [{ op: 'put', path: 'f.flow.yaml', content: JSON.stringify({ id: 'f', tasks: [{ id: 't', type: 'command', command: ['true'] }] }) }],
      });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
    }
    assert.equal((await ui.stack.api('POST', '/api/v1/users', { email: 'ann@example.com', role: 'viewer', password: 'ann password 12' })).status, 201);
  });
  after(async () => ui?.stop());

  const screen = (page: Page) => page.getByRole('region', { name: 'Role bindings' });
  const rows = (page: Page) =>
    screen(page)
      .getByRole('table', { name: 'Role bindings' })
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 4).map((c) => (c as HTMLElement).innerText.trim())));
  /** Ann's attempt to save a file on `ns`, with a token of the editor role (allowed up to her highest binding). */
  const annSaves = async (ns: string) => {
    const r = await fetch(`${ui.stack.url}/api/v1/namespaces/${ns}/changes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${annToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'by ann', changes: [{ op: 'put', path: 'notes.txt', content: 'hello' }] }),
    });
    return r.status;
  };

  it('an admin binds a user and a group to namespaces, and the role applies there only', async () => {
    const page = ui.admin;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Role bindings' }).click();
    await screen(page).getByText('No bindings: every user has their global role everywhere.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/role-bindings');

    const form = screen(page).getByRole('form', { name: 'Add a role binding' });
    await form.getByLabel('Namespace').fill('team');
    await form.getByLabel('User email').fill('ann@example.com');
    await form.getByLabel('Role').selectOption('editor');
    await form.getByRole('button', { name: 'Add binding' }).click();
    await screen(page).getByRole('cell', { name: 'ann@example.com', exact: true }).waitFor();

    await form.getByLabel('Namespace').fill('other');
    await form.getByLabel('For').selectOption('group');
    await form.getByLabel('Group name').fill('ops-team');
    await form.getByLabel('Role').selectOption('operator');
    await form.getByRole('button', { name: 'Add binding' }).click();
    await screen(page).getByRole('cell', { name: 'group ops-team', exact: true }).waitFor();
    assert.deepEqual(await rows(page), [
      ['other', 'group ops-team', 'operator', 'e2e@example.com'],
      ['team', 'ann@example.com', 'editor', 'e2e@example.com'],
    ]);
    const api = await ui.stack.api('GET', '/api/v1/role-bindings');
    assert.deepEqual(
      api.body.items.map((b: { namespace: string; role: string }) => `${b.namespace}:${b.role}`),
      ['other:operator', 'team:editor'],
    );

    // A wrong namespace is refused with the API's message, shown on the form.
    await form.getByLabel('Namespace').fill('Not A Namespace');
    await form.getByLabel('For').selectOption('user');
    await form.getByLabel('User email').fill('ann@example.com');
    await form.getByRole('button', { name: 'Add binding' }).click();
    await screen(page).getByText('has an invalid format').waitFor();
    await shot(page, 'admin-role-bindings');

    // Ann, a global viewer, is an editor on team and its child only.
    const login = await fetch(`${ui.stack.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ann@example.com', password: 'ann password 12' }),
    });
    const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
    const tok = await fetch(`${ui.stack.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ann', role: 'editor' }),
    });
    assert.equal(tok.status, 201);
    annToken = ((await tok.json()) as { secret: string }).secret;
    assert.equal(await annSaves('team.etl'), 201);
    assert.equal(await annSaves('other'), 403);
  });

  it("the bound user's screens offer what the binding allows, and only there", async () => {
    const { page } = await newUser(ui.browser, ui.stack.url);
    await login(page, 'ann@example.com', 'ann password 12');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    // Editor on team.etl through the binding on team: the flow can be disabled there.
    await page.goto('/flows/team.etl/f');
    const toggle = page.getByRole('button', { name: 'Disable' });
    await toggle.waitFor();
    assert.equal(await toggle.isEnabled(), true);
    await shot(page, 'role-binding-editor-on-child');
    // Not on other: the button says why.
    await page.goto('/flows/other/f');
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Disable' }).isEnabled(), false);
    assert.equal(await page.getByRole('button', { name: 'Disable' }).getAttribute('title'), 'Needs the editor role (you are viewer)');
    // Back on team.etl, the click works: the API agrees with the screen.
    await page.goto('/flows/team.etl/f');
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    assert.equal((await ui.stack.api('GET', '/api/v1/flows/team.etl/f')).body.enabled, false);
    await page.context().close();
  });

  it('deleting a binding in the table takes the role away at once, and both changes are audited', async () => {
    const page = ui.admin;
    await screen(page).getByRole('button', { name: 'Delete the binding of ann@example.com on team' }).click();
    await screen(page).getByRole('cell', { name: 'ann@example.com', exact: true }).waitFor({ state: 'detached' });
    assert.deepEqual(await rows(page), [['other', 'group ops-team', 'operator', 'e2e@example.com']]);
    assert.equal(await annSaves('team'), 403);
    const audit = await ui.stack.api('GET', '/api/v1/audit?action=role_binding.*');
    assert.deepEqual(audit.body.items.map((e: { action: string }) => e.action).sort(), ['role_binding.create', 'role_binding.create', 'role_binding.delete']);
  });
});
