// Single sign-on in the browser: an admin configures OpenID
// Connect in Settings › Single sign-on against a real provider on loopback
// (oidc-provider, e2e/test/oidc-provider-standin.ts); a new user then clicks
// "Sign in with Test IdP" on the login page, signs in at the provider's own
// forms, lands on the dashboard with the role of their group, and signs out
// through the provider's logout page. A refused login (an unverified email)
// comes back to the login page with its reason. The sign-up controls
// (docs/operating/sso.md): an IdP account with the admin's email is refused with the way to
// link; the admin links an IdP identity from Profile › Single sign-on; the
// admin sets allowed domains, hd, tid, existing users only and the maximum
// session age in the settings form. Screenshots of each step.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startIdp, type TestIdp } from '../../../e2e/test/oidc-provider-standin.ts';
import { browserSkipReason, newUser, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const SECRET = `ui-oidc-secret-${crypto.randomBytes(8).toString('hex')}`;

describe('single sign-on', { skip, concurrency: false }, () => {
  let ui: Ui;
  let idp: TestIdp;

  before(async () => {
    ui = await startUi({ maintenance: false, dispatchers: 0 });
    idp = await startIdp({ clientId: 'svc-ui', clientSecret: SECRET, redirectUri: `${ui.stack.url}/api/v1/sso/oidc/callback`, postLogoutRedirectUri: `${ui.stack.url}/login` });
    idp.accounts.set('erin', { email: 'erin@example.com', email_verified: true, name: 'Erin Example', groups: ['platform'] });
    idp.accounts.set('frank', { email: 'frank@example.com', email_verified: false, name: 'Frank', groups: [] });
    idp.accounts.set('impostor', { email: 'e2e@example.com', email_verified: true, name: 'Not the admin', groups: ['admins'] });
    idp.accounts.set('root-idp', { email: 'root@corp.example.com', email_verified: true, name: 'Admin at the IdP', groups: ['admins'] });
    assert.equal((await ui.stack.api('PUT', '/api/v1/platform-secrets/oidc_ui_secret', { value: SECRET })).status, 200);
  });
  after(async () => {
    await ui?.stop();
    await idp?.close();
  });

  it('an admin configures OIDC in Settings › Single sign-on', async () => {
    const page = ui.admin;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Single sign-on' }).click();
    const screen = page.getByRole('region', { name: 'Single sign-on' });
    await screen.getByText('Single sign-on is not configured').waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/sso');
    const form = screen.getByRole('form', { name: 'Single sign-on settings' });
    await form.getByLabel('Button name').fill('Test IdP');
    await form.getByLabel('Issuer URL').fill(idp.issuer);
    await form.getByLabel('Client ID').fill('svc-ui');
    await form.getByLabel('Client secret (platform secret name)').fill('no_such_secret');
    await form.getByLabel('Scopes').fill('email profile groups');
    await form.getByLabel('Group mapping (one “group = role” per line)').fill('platform = operator\nadmins = admin');
    await form.getByRole('button', { name: 'Save' }).click();
    // The gateway refuses a secret it cannot read, naming the field.
    await screen.getByText(/client_secret_secret/).waitFor();
    await form.getByLabel('Client secret (platform secret name)').fill('oidc_ui_secret');
    await form.getByRole('button', { name: 'Save' }).click();
    await screen.getByRole('status').getByText(`Saved: sign in with Test IdP through ${idp.issuer}`).waitFor();
    const status = await screen.getByTestId('sso-status').innerText();
    assert.match(status, /enabled/);
    assert.ok(status.includes(`${ui.stack.url}/api/v1/sso/oidc/callback`), 'the redirect URI to register is shown');
    await shot(page, 'sso-admin-settings');
    assert.ok(!(await page.locator('body').innerText()).includes(SECRET), 'the secret value is not on the page');
    const saved = await ui.stack.api('GET', '/api/v1/sso/oidc');
    assert.deepEqual(saved.body.group_roles, [
      { group: 'platform', role: 'operator' },
      { group: 'admins', role: 'admin' },
    ]);
  });

  it('a user signs in with the IdP from the login page, gets the role of their group, and signs out at the IdP too', async () => {
    const { context, page } = await newUser(ui.browser, ui.stack.url);
    try {
      await page.goto('/');
      const button = page.getByRole('link', { name: 'Sign in with Test IdP' });
      await button.waitFor();
      await shot(page, 'sso-login-page');
      await button.click();
      // The provider's own login form.
      await page.waitForURL((u) => u.href.startsWith(idp.issuer));
      await page.locator('input[name="login"]').fill('erin');
      await page.locator('input[name="password"]').fill('any password');
      await shot(page, 'sso-idp-login');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click(); // consent
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      assert.equal(new URL(page.url()).origin, ui.stack.url);
      await shot(page, 'sso-signed-in');
      const me = await page.evaluate(async () => (await fetch('/api/v1/auth/me')).json());
      assert.equal(me.email, 'erin@example.com');
      assert.equal(me.name, 'Erin Example');
      assert.equal(me.role, 'operator');

      await page.getByRole('button', { name: 'Sign out' }).click();
      // The provider asks to confirm its own logout, then sends the browser back to /login.
      await page.waitForURL((u) => u.href.startsWith(idp.issuer));
      await shot(page, 'sso-idp-logout');
      await page
        .getByRole('button', { name: /yes|sign.?out/i })
        .first()
        .click();
      await page.waitForURL((u) => u.href.startsWith(ui.stack.url));
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
      const after = await page.evaluate(async () => (await fetch('/api/v1/auth/me')).status);
      assert.equal(after, 401, 'the svc session ended');
    } finally {
      await context.close();
    }
  });

  it('a refused SSO login comes back to the login page with its reason', async () => {
    const { context, page } = await newUser(ui.browser, ui.stack.url);
    try {
      await page.goto('/');
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
      await page.waitForURL((u) => u.href.startsWith(idp.issuer));
      await page.locator('input[name="login"]').fill('frank');
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page
        .getByRole('alert')
        .getByText(/does not vouch for your email address/)
        .waitFor();
      assert.equal(new URL(page.url()).search, '?sso_error=email_unverified');
      await shot(page, 'sso-refused');
      assert.equal((await ui.stack.db.query(`SELECT count(*)::int AS n FROM users WHERE email = 'frank@example.com'`)).rows[0].n, 0);
    } finally {
      await context.close();
    }
  });

  it("an IdP account with the admin's email does not sign in as the admin: the login page says how to link", async () => {
    const { context, page } = await newUser(ui.browser, ui.stack.url);
    try {
      await page.goto('/');
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
      await page.waitForURL((u) => u.href.startsWith(idp.issuer));
      await page.locator('input[name="login"]').fill('impostor');
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page
        .getByRole('alert')
        .getByText(/link your identity provider account from your profile/)
        .waitFor();
      assert.equal(new URL(page.url()).search, '?sso_error=link_required');
      await shot(page, 'sso-link-required');
      const linked = await ui.stack.db.query(`SELECT count(*)::int AS n FROM sso_identities i JOIN users u ON u.id = i.user_id WHERE u.email = 'e2e@example.com'`);
      assert.equal(linked.rows[0].n, 0, 'nothing linked to the admin');
    } finally {
      await context.close();
    }
  });

  it('the admin links an IdP identity from Profile › Single sign-on', async () => {
    const page = ui.admin;
    await page.goto('/profile');
    const section = page.getByRole('region', { name: 'Single sign-on' });
    await section.getByText('No identity provider account is linked to yours').waitFor();
    await shot(page, 'sso-profile-link-button');
    await section.getByRole('button', { name: 'Link my SSO identity' }).click();
    await page.waitForURL((u) => u.href.startsWith(idp.issuer));
    await page.locator('input[name="login"]').fill('root-idp');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL((u) => u.href.startsWith(ui.stack.url) && u.pathname === '/profile');
    assert.equal(new URL(page.url()).search, '?sso_linked=1');
    const back = page.getByRole('region', { name: 'Single sign-on' });
    await back.getByRole('status').getByText('Your identity provider account is linked').waitFor();
    assert.match(await back.getByTestId('sso-identities').innerText(), new RegExp(`Linked to ${idp.issuer.replace(/[.]/g, '\\.')}`));
    assert.equal(await back.getByRole('button', { name: 'Link my SSO identity' }).count(), 0, 'no second link offered');
    await shot(page, 'sso-profile-linked');
    const rows = await ui.stack.db.query(`SELECT i.subject FROM sso_identities i JOIN users u ON u.id = i.user_id WHERE u.email = 'e2e@example.com'`);
    assert.deepEqual(
      rows.rows.map((r: { subject: string }) => r.subject),
      ['root-idp'],
    );
    assert.equal((await ui.stack.db.query(`SELECT count(*)::int AS n FROM users WHERE email = 'root@corp.example.com'`)).rows[0].n, 0);
  });

  it('an admin sets who may sign in: domains, hd, tid, existing users only, link by email, maximum session age', async () => {
    const page = ui.admin;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Single sign-on' }).click();
    const screen = page.getByRole('region', { name: 'Single sign-on' });
    const form = screen.getByRole('form', { name: 'Single sign-on settings' });
    const who = form.getByRole('group', { name: 'Who may sign in' });
    await who.getByLabel(/Allowed email domains/).fill('example.com, Corp.Example.com');
    await who.getByLabel(/Google Workspace domain/).fill('example.com');
    await who.getByLabel(/Entra tenant ID/).fill('11111111-2222-3333-4444-555555555555');
    await who.getByLabel(/Existing users only/).check();
    assert.equal(await who.getByLabel(/Link an IdP identity to the existing user/).isChecked(), false, 'off by default');
    // Under the 5 minutes the API takes: the browser keeps the form from being sent.
    await who.getByLabel(/Maximum SSO session age/).fill('3');
    assert.equal(await who.getByLabel(/Maximum SSO session age/).evaluate((el) => (el as HTMLInputElement).validity.rangeUnderflow), true);
    await who.getByLabel(/Maximum SSO session age/).fill('720');
    await form.getByRole('button', { name: 'Save' }).click();
    await screen.getByRole('status').getByText('Saved: sign in with Test IdP').waitFor();
    await shot(page, 'sso-signup-controls');
    const saved = (await ui.stack.api('GET', '/api/v1/sso/oidc')).body;
    assert.deepEqual(
      [saved.allowed_email_domains, saved.google_hd, saved.entra_tid, saved.existing_users_only, saved.link_by_email, saved.session_max_age_seconds, saved.default_role],
      [['example.com', 'corp.example.com'], 'example.com', '11111111-2222-3333-4444-555555555555', true, false, 43_200, 'none'],
    );
    // The form shows the stored values when the page is opened again.
    await page.reload();
    const again = page.getByRole('region', { name: 'Single sign-on' }).getByRole('group', { name: 'Who may sign in' });
    assert.equal(await again.getByLabel(/Maximum SSO session age/).inputValue(), '720');
    assert.equal(await again.getByLabel(/Existing users only/).isChecked(), true);
    assert.ok(!(await page.locator('body').innerText()).includes(SECRET), 'the secret value is not on the page');
  });
});
