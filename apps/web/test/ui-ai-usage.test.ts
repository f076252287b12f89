// Settings › AI usage in the browser: an admin opens it from the
// navigation and reads today's totals against the deployment's limits and
// each user's figures against the per-user limits (a user at a limit marked),
// picks another day with the day picker (kept in the URL) and comes back to
// today; a viewer gets no link to it, and opening its URL shows the role it
// needs, no figures, and makes no request for them. The usage rows are
// written in the database (the CLI's test produces them with real turns).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, login, newUser, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const VIEWER = 'vera@example.com';
const PAST = '2026-03-04';
const today = new Date().toISOString().slice(0, 10);

describe('AI usage screen', { skip, concurrency: false }, () => {
  let ui: Ui;
  let viewerTemp = '';

  before(async () => {
    ui = await startUi({
      maintenance: false,
      dispatchers: 0,
      env: { SVC_AI_USER_REQUESTS_PER_DAY: '5', SVC_AI_USER_TOKENS_PER_DAY: '1000', SVC_AI_TOTAL_REQUESTS_PER_DAY: '20', SVC_AI_TOTAL_TOKENS_PER_DAY: '4000' },
    });
    const viewer = await ui.stack.api('POST', '/api/v1/users', { email: VIEWER, role: 'viewer' });
    assert.equal(viewer.status, 201, JSON.stringify(viewer.body));
    viewerTemp = viewer.body.temporary_password;
    const admin = (await ui.stack.db.query(`SELECT id FROM users WHERE email = 'e2e@example.com'`)).rows[0].id as string;
    const rows: [string, string, number, number][] = [
      [admin, today, 5, 400],
      [viewer.body.id, today, 2, 150],
      ['auto', today, 1, 50],
      [viewer.body.id, PAST, 7, 700],
    ];
    for (const r of rows) await ui.stack.db.query(`INSERT INTO ai_usage (user_id, day, requests, tokens) VALUES ($1, $2::date, $3, $4)`, r);
  });
  after(async () => ui?.stop());

  const screen = (page: Page) => page.getByRole('region', { name: 'AI usage' });
  /** The cells of a table's body rows, as the user reads them. */
  const cells = (page: Page, table: string) =>
    screen(page)
      .getByRole('table', { name: table })
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => (c as HTMLElement).innerText.trim()).filter(Boolean)));

  it("an admin opens AI usage from the navigation and reads today's totals and users against the limits", async () => {
    const page = ui.admin;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'AI usage' }).click();
    await screen(page).getByRole('table', { name: 'AI usage per user' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/ai-usage');
    assert.equal(await page.getByRole('link', { name: 'AI usage' }).getAttribute('aria-current'), 'page');
    assert.match(await screen(page).innerText(), new RegExp(`provider tokens of ${today} \\(UTC\\)`));
    assert.equal(await screen(page).getByLabel('Day (UTC)').inputValue(), today);

    assert.deepEqual(await cells(page, 'Deployment totals'), [
      ['Requests', '8', '20', '40%'],
      ['Tokens', '600', '4,000', '15%'],
    ]);
    assert.deepEqual(await cells(page, 'AI usage per user'), [
      ['e2e@example.com', '5 / 5 limit reached', '400 / 1,000'],
      [VIEWER, '2 / 5', '150 / 1,000'],
      ['Automatic triage', '1', '50'],
    ]);
    assert.equal(await screen(page).getByRole('meter', { name: 'Requests used of the daily limit' }).getAttribute('value'), '8');
    await shot(page, 'ai-usage-today');
  });

  it('the day picker shows another UTC day, kept in the URL, and Today comes back', async () => {
    const page = ui.admin;
    await screen(page).getByLabel('Day (UTC)').fill(PAST);
    await page.waitForURL(`**/admin/ai-usage?day=${PAST}`);
    await screen(page).getByText(`provider tokens of ${PAST}`).waitFor();
    assert.deepEqual(await cells(page, 'Deployment totals'), [
      ['Requests', '7', '20', '35%'],
      ['Tokens', '700', '4,000', '17%'],
    ]);
    assert.deepEqual(await cells(page, 'AI usage per user'), [[VIEWER, '7 / 5 limit reached', '700 / 1,000']]);
    await shot(page, 'ai-usage-past-day');

    await screen(page).getByLabel('Day (UTC)').fill('2020-01-01');
    await screen(page).getByText('No AI requests on 2020-01-01.').waitFor();
    assert.deepEqual(
      (await cells(page, 'Deployment totals')).map((r) => r.slice(0, 2)),
      [
        ['Requests', '0'],
        ['Tokens', '0'],
      ],
    );

    // A reload keeps the day; Today goes back to today's figures.
    await page.reload();
    await screen(page).getByText('No AI requests on 2020-01-01.').waitFor();
    await screen(page).getByRole('button', { name: 'Today' }).click();
    await screen(page).getByText(`provider tokens of ${today}`).waitFor();
    assert.equal(new URL(page.url()).search, '');
    assert.equal((await cells(page, 'AI usage per user')).length, 3);
  });

  it('a viewer gets no link to AI usage, and its URL shows the role it needs and no figures', async () => {
    const { page } = await newUser(ui.browser, ui.stack.url);
    const asked: string[] = [];
    page.on('request', (r) => void (r.url().includes('/api/v1/ai/usage') && asked.push(r.url())));
    await login(page, VIEWER, viewerTemp);
    await page.getByLabel('Current password').fill(viewerTemp);
    await page.getByLabel('New password', { exact: true }).fill('viewer password 1');
    await page.getByLabel('New password again').fill('viewer password 1');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const sections = page.getByRole('navigation', { name: 'Settings sections' });
    await sections.getByRole('link', { name: 'Secrets & variables' }).waitFor();
    assert.equal(await sections.getByRole('link', { name: 'AI usage' }).count(), 0, 'no link for a viewer');
    assert.equal(await sections.getByText('AI usage').getAttribute('title'), 'Needs the admin role (you are viewer)');

    await page.goto('/admin/ai-usage');
    await page.getByText('Needs the admin role (you are viewer)').waitFor();
    assert.equal(await screen(page).count(), 0);
    assert.ok(!(await page.locator('main').innerText()).includes(VIEWER));
    await shot(page, 'ai-usage-viewer');
    assert.deepEqual(asked, [], 'the figures are never asked for');
    await page.context().close();
  });
});
