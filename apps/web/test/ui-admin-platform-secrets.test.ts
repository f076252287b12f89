// Settings › Platform secrets in the browser: an admin sets a
// platform secret through the form (a password field, cleared after the
// save), the table lists it by name with its master key, a global secret of
// the same name is flagged as flow-readable, a delete in the table removes
// it; the value is on no page, in no field and in no API answer; both
// changes are audited. A user of role `none` bound editor on a namespace
// is not shown the screen and the API refuses it.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, login, newUser, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const VALUE = `ui-platform-${crypto.randomBytes(10).toString('hex')}`;

describe('platform secrets screen', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi({ maintenance: false, dispatchers: 0 });
    assert.equal((await ui.stack.api('POST', '/api/v1/namespaces', { name: 'team-a' })).status, 201);
    assert.equal((await ui.stack.api('POST', '/api/v1/users', { email: 'bound@example.com', role: 'none', password: 'bound password 1' })).status, 201);
    assert.equal((await ui.stack.api('POST', '/api/v1/role-bindings', { namespace: 'team-a', user: 'bound@example.com', role: 'editor' })).status, 201);
  });
  after(async () => ui?.stop());

  const screen = (page: Page) => page.getByRole('region', { name: 'Platform secrets' });
  const rows = (page: Page) =>
    screen(page)
      .getByRole('table', { name: 'Platform secrets' })
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((c) => (c as HTMLElement).innerText.trim())));

  it('an admin sets, sees (by name only) and deletes a platform secret', async () => {
    const page = ui.admin;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Platform secrets' }).click();
    await screen(page).getByText('No platform secrets yet.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/platform-secrets');

    const form = screen(page).getByRole('form', { name: 'Set a platform secret' });
    await form.getByLabel('Name').fill('GIT_TOKEN');
    await form.getByLabel('Value').fill(VALUE);
    await form.getByRole('button', { name: 'Save secret' }).click();
    await screen(page).getByRole('status').getByText('Platform secret GIT_TOKEN saved.').waitFor();
    await screen(page).getByRole('cell', { name: 'GIT_TOKEN', exact: true }).waitFor();
    assert.equal(await form.getByLabel('Value').inputValue(), '', 'the value field is cleared');

    // A global secret of the same name: flows can read that one, and the table says so.
    assert.equal((await ui.stack.api('PUT', '/api/v1/secrets/SSO_CLIENT', { value: `global-${VALUE}` })).status, 200);
    await form.getByLabel('Name').fill('SSO_CLIENT');
    await form.getByLabel('Value').fill(VALUE);
    await form.getByRole('button', { name: 'Save secret' }).click();
    await screen(page).getByRole('cell', { name: 'SSO_CLIENT', exact: true }).waitFor();
    const listed = await rows(page);
    assert.deepEqual(
      listed.map((r) => [r[0], r[2]]),
      [
        ['GIT_TOKEN', 'k1'],
        ['SSO_CLIENT', 'k1'],
      ],
    );
    assert.equal(listed[0][3], '');
    assert.match(listed[1][3], /A global secret of this name exists too: flows can read it/);
    await shot(page, 'settings-platform-secrets');
    assert.ok(!(await page.locator('body').innerText()).includes(VALUE), 'the value is not on the page');

    await screen(page).getByRole('button', { name: 'Delete the platform secret SSO_CLIENT' }).click();
    await screen(page).getByRole('status').getByText('Platform secret SSO_CLIENT deleted.').waitFor();
    await screen(page).getByRole('cell', { name: 'SSO_CLIENT', exact: true }).waitFor({ state: 'detached' });
    const api = await ui.stack.api('GET', '/api/v1/platform-secrets');
    assert.deepEqual(
      api.body.items.map((p: { name: string }) => p.name),
      ['GIT_TOKEN'],
    );
    const audit = await ui.stack.api('GET', '/api/v1/audit?action=platform_secret.*');
    assert.deepEqual(audit.body.items.map((a: { action: string }) => a.action).sort(), ['platform_secret.delete', 'platform_secret.set', 'platform_secret.set']);
    for (const p of ['/api/v1/platform-secrets', '/api/v1/audit?limit=200']) assert.ok(!JSON.stringify((await ui.stack.api('GET', p)).body).includes(VALUE), p);
  });

  it('a none user bound editor on team-a is not shown the screen and the API is closed', async () => {
    const { context, page } = await newUser(ui.browser, ui.stack.url);
    try {
      await login(page, 'bound@example.com', 'bound password 1');
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      await page.goto(`${ui.stack.url}/admin/platform-secrets`);
      await page.waitForLoadState('networkidle');
      assert.equal(await page.getByRole('region', { name: 'Platform secrets' }).count(), 0, 'the screen is not shown');
      assert.equal(await page.getByRole('form', { name: 'Set a platform secret' }).count(), 0);
      const r = await page.evaluate(async () => (await fetch('/api/v1/platform-secrets')).status);
      assert.equal(r, 403);
    } finally {
      await context.close();
    }
  });
});
