// User administration and the own profile in the browser: an admin creates a
// user (the temporary password shown once), changes the role, disables and
// enables the account and resets its password; the user chooses a password,
// changes the name and the password on the profile page, and signs in with
// the new password (the old one refused).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApiOperations, components } from '@svc/api-spec';
import type { BrowserContext, Page } from 'playwright-core';
import { browserSkipReason, login, newUser, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const EMAIL = 'dora@example.com';

describe('users and profile', { skip, concurrency: false }, () => {
  let ui: Ui;
  let dora: { context: BrowserContext; page: Page };
  let userId: string;

  before(async () => {
    ui = await startUi();
    dora = await newUser(ui.browser, ui.stack.url);
  });
  after(async () => ui?.stop());

  const users = () => ui.admin.getByRole('region', { name: 'Users' });
  const row = () => users().getByRole('row').filter({ hasText: EMAIL });
  const tempPassword = async () => (await users().getByRole('status').filter({ hasText: 'Temporary password' }).locator('code').innerText()).trim();
  type User = components['schemas']['User'];
  const apiUser = async (): Promise<User> =>
    ((await ui.stack.api('GET', '/api/v1/users?limit=200')).body as ApiOperations['listUsers']['responses'][200]['content']['application/json']).items.find(
      (u) => u.id === userId,
    )!;
  /** Polls the user through the API until `pred` holds (the UI's PATCH may still be on its way). */
  async function waitUser(pred: (u: User) => boolean): Promise<User> {
    const until = Date.now() + 30_000;
    for (;;) {
      const u = await apiUser();
      if (pred(u)) return u;
      if (Date.now() > until) throw new Error(`user never matched: ${JSON.stringify(u)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async function choosePassword(page: Page, temp: string, next: string) {
    await login(page, EMAIL, temp);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('Current password').fill(temp);
    await page.getByLabel('New password', { exact: true }).fill(next);
    await page.getByLabel('New password again').fill(next);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  }

  it('creates a user, whose temporary password is shown once and must be changed', async () => {
    const page = ui.admin;
    await page.goto('/admin/users');
    const form = users().getByRole('form', { name: 'Create a user' });
    await form.getByLabel('Email').fill(EMAIL);
    await form.getByRole('combobox').selectOption('viewer');
    await form.getByRole('button', { name: 'Create user' }).click();
    await row().waitFor();
    const temp = await tempPassword();
    assert.ok(temp.length >= 12, `a temporary password: ${temp.length} chars`);
    assert.equal(await row().getByRole('cell').nth(3).innerText(), 'temporary password');
    const list = (await ui.stack.api('GET', '/api/v1/users?limit=200')).body as { items: User[] };
    userId = list.items.find((u) => u.email === EMAIL)!.id;
    await shot(page, 'users-01-created');
    // Gone after a reload: it is shown once.
    await page.reload();
    await row().waitFor();
    assert.equal(await page.getByText(temp).count(), 0);

    await choosePassword(dora.page, temp, 'dora first password');
    await dora.page.getByRole('link', { name: `Profile of ${EMAIL} (viewer)` }).waitFor();
  });

  it('changes the role: shown at once, kept, and the user is shown with it', async () => {
    const page = ui.admin;
    await page.goto('/admin/users');
    await row()
      .getByRole('combobox', { name: `Role of ${EMAIL}` })
      .selectOption('operator');
    // The select shows the new role at once and keeps it once the list reloads.
    assert.equal(
      await row()
        .getByRole('combobox', { name: `Role of ${EMAIL}` })
        .inputValue(),
      'operator',
    );
    await waitUser((u) => u.role === 'operator');
    await page.reload();
    assert.equal(
      await row()
        .getByRole('combobox', { name: `Role of ${EMAIL}` })
        .inputValue(),
      'operator',
    );
    await shot(page, 'users-02-role');
    // Dora's next page load shows her as an operator.
    await dora.page.goto('/');
    await dora.page.getByRole('link', { name: `Profile of ${EMAIL} (operator)` }).waitFor();
  });

  it('disables the account (signed out, sign-in refused) and enables it again', async () => {
    const page = ui.admin;
    await page.goto('/admin/users');
    await row()
      .getByRole('button', { name: `Disable ${EMAIL}` })
      .click();
    await row().getByRole('cell', { name: 'disabled', exact: true }).waitFor();
    // The row shows the change at once; the PATCH may still be on its way.
    assert.equal((await waitUser((u) => u.disabled)).disabled, true);
    await shot(page, 'users-03-disabled');
    // Her open session no longer works: the next page shows the sign-in form; signing in is refused with a reason.
    await dora.page.goto('/');
    await dora.page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    await login(dora.page, EMAIL, 'dora first password');
    const alert = dora.page.getByRole('alert');
    await alert.waitFor();
    await alert.getByTestId('request-id').waitFor();
    await shot(dora.page, 'users-04-disabled-sign-in');

    await row()
      .getByRole('button', { name: `Enable ${EMAIL}` })
      .click();
    await row().getByRole('cell', { name: 'active', exact: true }).waitFor();
    assert.equal((await waitUser((u) => !u.disabled)).disabled, false);
    await login(dora.page, EMAIL, 'dora first password');
    await dora.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });

  it('resets the password: a new temporary one, the old password refused', async () => {
    const page = ui.admin;
    await page.goto('/admin/users');
    await row()
      .getByRole('button', { name: `Reset the password of ${EMAIL}` })
      .click(); // the confirm() is accepted
    await row().getByRole('cell', { name: 'temporary password', exact: true }).waitFor();
    const temp = await tempPassword();
    assert.equal((await apiUser()).must_change_password, true);
    await shot(page, 'users-05-reset');
    await dora.context.clearCookies();
    await login(dora.page, EMAIL, 'dora first password');
    await dora.page.getByRole('alert').waitFor();
    await choosePassword(dora.page, temp, 'dora second password');
  });

  it('the user changes the name and the password on the profile page, then signs in with the new one', async () => {
    const page = dora.page;
    await page.getByRole('link', { name: /^Profile of / }).click();
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    const account = page.getByRole('region', { name: 'Account' });
    await account.getByLabel('Name').fill('Dora Explorer');
    await account.getByRole('button', { name: 'Save name' }).click();
    // The header greets her by the new name.
    await page.getByRole('banner').getByText('Dora Explorer').waitFor();
    await waitUser((u) => u.name === 'Dora Explorer');

    const pw = page.getByRole('region', { name: 'Password' });
    // A wrong current password is refused, with the reason and the request ID.
    await pw.getByLabel('Current password').fill('not my password');
    await pw.getByLabel('New password', { exact: true }).fill('dora third password');
    await pw.getByLabel('New password again').fill('dora third password');
    await pw.getByRole('button', { name: 'Change password' }).click();
    await pw.getByRole('alert').getByTestId('request-id').waitFor();
    await pw.getByLabel('Current password').fill('dora second password');
    await pw.getByRole('button', { name: 'Change password' }).click();
    await pw.getByText('Password changed.').waitFor();
    await shot(page, 'profile-01-changed');

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await login(page, EMAIL, 'dora second password');
    await page.getByRole('alert').waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Dashboard' }).count(), 0);
    await login(page, EMAIL, 'dora third password');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page
      .getByRole('link', { name: `Profile of ${EMAIL} (operator)` })
      .getByText('Dora Explorer')
      .waitFor();
    await shot(page, 'profile-02-signed-in-again');
  });
});
