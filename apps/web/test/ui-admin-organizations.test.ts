// Settings › Organizations in the browser: an admin adds an
// organization, makes a key (shown once, then gone from the page for good),
// verifies a sending domain and sets a daily quota; the organization's app
// sends through POST /api/v1/emails with the key, and the admin sees the
// emails (queued: no SMTP server in this stack), today's use against the
// quota and the key's last use; a revoked key is refused at once, and a
// removed sender leaves none. The admin allows namespaces to send as the
// organization; on the Alerts page a rule of a namespace it does not allow is
// refused with the field named, and saved once the namespace is allowed.
// Everything shown comes from the real service.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();

describe('organizations screen', { skip, concurrency: false }, () => {
  let ui: Ui;
  let key = '';

  before(async () => {
    ui = await startUi({ maintenance: false, dispatchers: 0, env: { SVC_ORG_DAILY_QUOTA: '100', SVC_ORG_RATE_LIMIT: '50' } });
  });
  after(async () => ui?.stop());

  const screen = (page: Page) => page.getByRole('region', { name: 'Organizations' });
  const detail = (page: Page) => page.getByRole('region', { name: 'Organization acme' });
  const rows = (page: Page, table: string) =>
    detail(page)
      .getByRole('table', { name: table })
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((c) => (c as HTMLElement).innerText.trim())));
  const send = (k: string, subject: string) =>
    fetch(`${ui.stack.url}/api/v1/emails`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'Billing <billing@acme.test>', to: 'bob@example.test', subject, text: 'The body' }),
    });
  /** The key is nowhere the user can see it: not in the page's text, not in any field. */
  const keyNowhere = async (page: Page) => {
    assert.ok(!(await page.locator('body').innerText()).includes(key), 'the key is not on the page');
    const inFields = await page.locator('input, textarea').evaluateAll((els, k) => els.filter((e) => (e as HTMLInputElement).value.includes(k)).length, key);
    assert.equal(inFields, 0, 'nor in a field');
  };

  it('an admin adds an organization and makes a key that is shown once', async () => {
    const page = ui.admin;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Organizations' }).click();
    await screen(page).getByText('No organizations yet.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/organizations');

    await screen(page).getByRole('form', { name: 'Add an organization' }).getByLabel('Name').fill('acme');
    await screen(page).getByRole('button', { name: 'Add organization' }).click();
    await detail(page).waitFor();
    assert.equal(new URL(page.url()).searchParams.get('org'), 'acme');
    assert.match(await detail(page).getByTestId('org-quota').innerText(), /^0 of 100 emails sent today \(UTC\) · the server default \(SVC_ORG_DAILY_QUOTA\) · rate limit 50\/s/);
    await detail(page).getByText('No keys: make one to send email.').waitFor();

    await detail(page).getByLabel('Key name').fill('billing app');
    await detail(page).getByRole('button', { name: 'Create key' }).click();
    const once = detail(page).getByTestId('org-new-key');
    await once.waitFor();
    key = await once.getByTestId('org-new-key-value').innerText();
    assert.match(key, /^svc_live_[0-9A-Za-z]{43}$/);
    assert.match(await once.innerText(), /copy it now, it is not shown again/);
    const keys = await rows(page, 'Keys');
    assert.deepEqual(
      keys.map((r) => [r[0], r[1], r[3], r[4]]),
      [['billing app', `${key.slice(0, 15)}…`, 'never', 'live']],
    );
    await shot(page, 'admin-organizations-new-key');

    await once.getByRole('button', { name: 'Done' }).click();
    await once.waitFor({ state: 'detached' });
    await keyNowhere(page);
    await page.reload();
    await detail(page).getByRole('table', { name: 'Keys' }).getByText('billing app').waitFor();
    await keyNowhere(page);
    assert.ok(!JSON.stringify((await ui.stack.api('GET', '/api/v1/organizations')).body).includes(key), 'nor in the API list');
  });

  it('a verified sender and a quota; the emails the key sends show with today’s use', async () => {
    const page = ui.admin;
    // No sender yet: the service refuses every from.
    assert.equal((await send(key, 'Too early')).status, 422);
    await detail(page).getByLabel('Domain or address').fill('acme.test');
    await detail(page).getByRole('button', { name: 'Add sender' }).click();
    await detail(page).getByRole('list', { name: 'Verified senders' }).getByText('any address at this domain (not subdomains)').waitFor();

    await detail(page)
      .getByLabel(/Own quota/)
      .fill('2');
    await detail(page).getByRole('button', { name: 'Save quota' }).click();
    await detail(page)
      .getByTestId('org-quota')
      .getByText(/^0 of 2 emails sent today \(UTC\) · its own quota/)
      .waitFor();

    assert.equal((await send(key, 'Invoice 1')).status, 202);
    assert.equal((await send(key, 'Invoice 2')).status, 202);
    assert.equal((await send(key, 'Invoice 3')).status, 429, 'past the quota');
    await detail(page).getByRole('button', { name: 'Refresh' }).click();
    await detail(page).getByRole('table', { name: 'Sent emails' }).getByText('Invoice 2').waitFor();
    assert.deepEqual(
      (await rows(page, 'Sent emails')).map((r) => r.slice(1, 6)).sort((a, b) => a[2]!.localeCompare(b[2]!)),
      [
        ['Billing <billing@acme.test>', 'bob@example.test', 'Invoice 1', 'queued', '—'],
        ['Billing <billing@acme.test>', 'bob@example.test', 'Invoice 2', 'queued', '—'],
      ],
    );
    await detail(page)
      .getByTestId('org-quota')
      .getByText(/^2 of 2 emails sent today/)
      .waitFor();
    assert.equal(await detail(page).getByRole('meter', { name: 'Emails sent today of the daily quota' }).getAttribute('value'), '2');
    assert.notEqual((await rows(page, 'Keys'))[0]![3], 'never', 'the key was used');
    const listRow = screen(page).getByRole('row', { name: /acme/ });
    assert.match(await listRow.innerText(), /acme\s+2 \/ 2\s+acme\.test\s+none\s+1/);
    await keyNowhere(page);
    await shot(page, 'admin-organizations-emails');
  });

  it('a revoked key is refused at once; a removed sender leaves none', async () => {
    const page = ui.admin;
    await detail(page)
      .getByRole('button', { name: `Revoke key ${key.slice(0, 15)}` })
      .click();
    await detail(page)
      .getByRole('table', { name: 'Keys' })
      .getByText(/^revoked /)
      .waitFor();
    assert.equal((await send(key, 'After revoke')).status, 401);
    await detail(page).getByRole('button', { name: 'Remove sender acme.test' }).click();
    await detail(page).getByText('None: every email is refused until a sender is added.').waitFor();
    const audit = (await ui.stack.api('GET', '/api/v1/audit?action=organization.*&limit=50')).body.items.map((a: { action: string }) => a.action);
    assert.ok(audit.includes('organization.key_revoke') && audit.includes('organization.sender_remove'), audit.join(','));
    await keyNowhere(page);
    await shot(page, 'admin-organizations-revoked');
  });

  it('allows namespaces; an alert rule of another namespace is refused with the field named, then saved once allowed', async () => {
    const page = ui.admin;
    for (const name of ['team-a', 'team-b']) assert.equal((await ui.stack.api('POST', '/api/v1/namespaces', { name })).status, 201);
    const allowed = detail(page).getByRole('list', { name: 'Allowed namespaces' });
    await allowed.getByText('None: no alert rule may send as this organization until a namespace is added.').waitFor();
    const allow = async (ns: string) => {
      await detail(page).getByRole('form', { name: 'Allow a namespace' }).getByLabel('Namespace').fill(ns);
      await detail(page).getByRole('button', { name: 'Allow namespace' }).click();
    };
    await allow('team-b');
    await allowed.getByText('team-b', { exact: true }).waitFor();
    await allow('Not A Namespace');
    await detail(page)
      .getByRole('alert')
      .getByText(/namespaces/)
      .first()
      .waitFor();
    assert.match(await screen(page).getByRole('row', { name: /acme/ }).innerText(), /team-b/);
    await shot(page, 'admin-organizations-namespaces');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).click();
    const rules = page.getByRole('region', { name: 'Alert rules' });
    await rules.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('form', { name: 'Alert rule' });
    await form.getByLabel('Name', { exact: true }).fill('a by email');
    await form.getByLabel('Namespace', { exact: true }).fill('team-a');
    const channel = form.getByRole('group', { name: 'Channel 1' });
    await channel.getByLabel('Organization').fill('acme');
    await channel.getByLabel('From', { exact: true }).fill('alerts@acme.test');
    await channel.getByLabel('To', { exact: true }).fill('oncall@example.test');
    await form.getByRole('button', { name: 'Create rule' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'channels[0].organization' });
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /channels\[0\]\.organization: organization acme does not allow namespace team-a/);
    await shot(page, 'alerts-email-organization-refused');

    // The admin allows team-a; the same form saves.
    await ui.stack.api('PATCH', '/api/v1/organizations/acme', { namespaces: ['team-b', 'team-a'] });
    await form.getByRole('button', { name: 'Create rule' }).click();
    await form.waitFor({ state: 'detached' });
    await rules.getByRole('button', { name: 'a by email', exact: true }).waitFor();
    await page.goBack();
  });
});
