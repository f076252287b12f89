// The audit log page (filters by actor, action, resource, namespace and time
// range, kept in the URL; paging forwards and back; Download takes every event
// the filters select as NDJSON) and the global keyboard shortcuts
// (`?` lists them, `g` + a key goes to a page, `/` focuses the search; keys
// typed into a field stay there), in the browser.
import assert from 'node:assert/strict';
import { text as streamText } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
/** 25 events an hour apart from 2020-01-01T00:00Z, on resources thing:0 .. thing:24. */
const TICKS = 25;
const tickAt = (i: number) => new Date(Date.UTC(2020, 0, 1, i));

describe('audit log and keyboard shortcuts', { skip, concurrency: false }, () => {
  let ui: Ui;
  let otherId: string;

  before(async () => {
    ui = await startUi();
    const db = ui.stack.db;
    // Old events written straight into the table (their times cannot be made through the API).
    for (let i = 0; i < TICKS; i++) {
      await db.query(
        `INSERT INTO audit_events (id, at, actor_id, actor_type, action, target_type, target_id, details) VALUES ($1, $2, NULL, 'system', 'test.tick', 'thing', $3, $4)`,
        [`tick${String(i).padStart(3, '0')}`, tickAt(i), String(i), JSON.stringify({ n: i })],
      );
    }
    // Events of namespaces: team-a, one below it, and team-ab (not below team-a).
    for (const [n, ns] of [
      [1, 'team-a'],
      [2, 'team-a.etl'],
      [3, 'team-ab'],
    ] as const) {
      await db.query(
        `INSERT INTO audit_events (id, at, actor_id, actor_type, action, target_type, target_id, details) VALUES ($1, $2, NULL, 'system', 'demo.ns', 'namespace', $3, $4)`,
        [`ns${n}`, new Date(Date.UTC(2022, 0, 1, n)), ns, JSON.stringify({ namespace: ns })],
      );
    }
    const other = await ui.stack.api('POST', '/api/v1/users', { email: 'other@example.com', role: 'viewer' });
    otherId = other.body.id;
    const me = (await db.query(`SELECT id FROM users WHERE email = 'e2e@example.com'`)).rows[0].id as string;
    for (const [n, actor] of [
      [1, me],
      [2, otherId],
      [3, me],
      [4, otherId],
      [5, me],
    ] as const) {
      await db.query(`INSERT INTO audit_events (id, at, actor_id, actor_type, action, target_type, target_id) VALUES ($1, $2, $3, 'user', 'test.act', 'thing', 'acted')`, [
        `act${n}`,
        new Date(Date.UTC(2021, 0, 1, n)),
        actor,
      ]);
    }
  });
  after(async () => ui?.stop());

  const table = (page: Page) => page.getByRole('table', { name: 'Audit events' });
  /** The Resource column of the shown rows. */
  const resources = (page: Page) => table(page).locator('tbody tr td:nth-child(4)').allInnerTexts();
  const filters = (page: Page) => page.getByRole('search', { name: 'Filter audit events' });
  /** Waits for the page's status to read `text`; on a timeout, fails with what the page showed instead. */
  const showsStatus = async (page: Page, text: string) => {
    try {
      await page.getByTestId('audit-page').getByText(text).waitFor();
    } catch (err) {
      const seen = await page.evaluate(() => ({
        url: location.href,
        status: document.querySelector('[data-testid="audit-page"]')?.textContent ?? '(no status: not loaded)',
        alerts: [...document.querySelectorAll('[role="alert"]')].map((e) => e.textContent),
      }));
      throw new Error(`waited for the status "${text}"; the page showed ${JSON.stringify(seen)}`, { cause: err });
    }
  };

  it('filters by action and pages through the events, forwards and back', async () => {
    const page = ui.admin;
    await page.goto('/admin/audit');
    await table(page).waitFor();
    await filters(page).getByLabel('Action').fill('test.tick');
    await filters(page).getByLabel('Per page').selectOption('20');
    await showsStatus(page, 'Page 1 · 20 events');
    // Newest first.
    const first = await resources(page);
    assert.deepEqual(
      first,
      Array.from({ length: 20 }, (_, i) => `thing:${24 - i}`),
    );
    await shot(page, 'audit-01-action-page-1');
    await page.getByRole('button', { name: 'Older →' }).click();
    await showsStatus(page, 'Page 2 · 5 events');
    assert.deepEqual(await resources(page), ['thing:4', 'thing:3', 'thing:2', 'thing:1', 'thing:0']);
    assert.equal(await page.getByRole('button', { name: 'Older →' }).isDisabled(), true);
    await page.getByRole('button', { name: '← Newer' }).click();
    await showsStatus(page, 'Page 1 · 20 events');
    assert.deepEqual(await resources(page), first);
    // A prefix: `test.*` takes both kinds of test events (25 + 5).
    await filters(page).getByLabel('Per page').selectOption('50');
    await filters(page).getByLabel('Action').fill('test.*');
    await showsStatus(page, 'Page 1 · 30 events');
  });

  it("filters by time range, keeps the filters in the URL, and shows an event's details", async () => {
    const page = ui.admin;
    await page.goto('/admin/audit?action=test.tick');
    await showsStatus(page, 'Page 1 · 25 events');
    await filters(page).getByLabel('From', { exact: true }).fill('2020-01-01T03:00:00');
    await filters(page).getByLabel('To', { exact: true }).fill('2020-01-01T07:30:00');
    // The fields are in the browser's time zone: which ticks fall in [from, to) is worked out from the instants it means.
    const [from, to] = await page.evaluate(() => [new Date('2020-01-01T03:00:00').getTime(), new Date('2020-01-01T07:30:00').getTime()]);
    const expected = Array.from({ length: TICKS }, (_, i) => i)
      .filter((i) => tickAt(i).getTime() >= from! && tickAt(i).getTime() < to!)
      .reverse()
      .map((i) => `thing:${i}`);
    assert.ok(expected.length >= 4);
    await page.waitForFunction((n) => document.querySelector('[data-testid="audit-page"]')?.textContent?.includes(`· ${n} event`), expected.length);
    assert.deepEqual(await resources(page), expected);
    await shot(page, 'audit-02-time-range');
    // The URL keeps the filters: a reload shows the same rows.
    assert.match(page.url(), /action=test\.tick/);
    assert.match(page.url(), /from=2020-01-01T03(%3A|:)00/);
    await page.reload();
    await page.waitForFunction((n) => document.querySelector('[data-testid="audit-page"]')?.textContent?.includes(`· ${n} event`), expected.length);
    assert.deepEqual(await resources(page), expected);
    // Details of one event: its payload.
    const row = table(page).getByRole('row').filter({ hasText: expected[0]! });
    await row.getByRole('button', { name: /^Details of test\.tick/ }).click();
    assert.deepEqual(JSON.parse(await row.locator('pre.json').innerText()), { n: Number(expected[0]!.split(':')[1]) });
    await filters(page).getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((u) => !u.search.includes('action='));
  });

  it('filters by resource and by actor, also by clicking a value', async () => {
    const page = ui.admin;
    await page.goto('/admin/audit');
    await filters(page).getByLabel('Resource').fill('thing:7');
    await showsStatus(page, 'Page 1 · 1 event');
    assert.deepEqual(await resources(page), ['thing:7']);
    // By actor (an email): only other@example.com's two events.
    await filters(page).getByLabel('Resource').fill('thing:acted');
    await showsStatus(page, 'Page 1 · 5 events');
    await filters(page).getByLabel('Actor').fill('other@example.com');
    await showsStatus(page, 'Page 1 · 2 events');
    const actors = await table(page).locator('tbody tr td:nth-child(3)').allInnerTexts();
    assert.deepEqual(actors, ['other@example.com', 'other@example.com']);
    await shot(page, 'audit-03-actor');
    // Clicking a resource in the table filters by it: the user created for this test, by the admin.
    await filters(page).getByRole('button', { name: 'Clear filters' }).click();
    await filters(page).getByLabel('Action').fill('user.create');
    await table(page)
      .getByRole('button', { name: `user:${otherId}` })
      .click();
    await page.waitForURL((u) => u.searchParams.get('resource') === `user:${otherId}`);
    await showsStatus(page, 'Page 1 · 1 event');
    assert.deepEqual(await table(page).locator('tbody tr td:nth-child(3)').allInnerTexts(), ['e2e@example.com']);
    // A filter that matches nothing says so.
    await filters(page).getByLabel('Actor').fill('nobody@example.com');
    await page.getByText('No audit events match these filters.').waitFor();
  });

  it('filters by namespace and downloads every event the filters select as NDJSON', async () => {
    const page = ui.admin;
    await page.goto('/admin/audit?action=test.tick&limit=20');
    await showsStatus(page, 'Page 1 · 20 events');
    // The download is not the page: all 25 ticks, newest first, one JSON object a line.
    const [all] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download' }).click()]);
    assert.match(all.suggestedFilename(), /^audit-.*\.ndjson$/);
    const lines = (await streamText(await all.createReadStream()))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { action: string; target: string; payload: { n: number } });
    assert.deepEqual(
      lines.map((e) => e.target),
      Array.from({ length: TICKS }, (_, i) => `thing:${TICKS - 1 - i}`),
    );
    assert.ok(lines.every((e) => e.action === 'test.tick'));
    // Namespace team-a: its events and those below it, not team-ab's; the download follows the filter.
    await filters(page).getByLabel('Action').fill('');
    await filters(page).getByLabel('Namespace').fill('team-a');
    await showsStatus(page, 'Page 1 · 2 events');
    assert.deepEqual(await resources(page), ['namespace:team-a.etl', 'namespace:team-a']);
    assert.match(page.url(), /namespace=team-a/);
    await shot(page, 'audit-04-namespace-download');
    const [some] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download' }).click()]);
    const ns = (await streamText(await some.createReadStream()))
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { payload: { namespace: string } }).payload.namespace);
    assert.deepEqual(ns, ['team-a.etl', 'team-a']);
  });

  it('? lists the shortcuts; g then a key goes to a page; / focuses the search; typing in a field is left alone', async () => {
    const page = ui.admin;
    await page.goto('/');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.keyboard.press('Shift+?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    for (const k of ['Go to Dashboard', 'Go to Flows', 'Go to Executions', 'Go to Editor (code)', 'Go to Settings']) await help.getByText(k).waitFor();
    await shot(page, 'keys-01-help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    // The header's ? button opens the same list.
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    await help.waitFor();
    await help.getByRole('button', { name: 'Close' }).click();
    await help.waitFor({ state: 'detached' });

    await page.keyboard.press('g');
    await page.keyboard.press('f');
    await page.waitForURL((u) => u.pathname === '/flows');
    await page.getByRole('heading', { name: 'Flows', level: 1 }).waitFor();
    await page.keyboard.press('g');
    await page.keyboard.press('e');
    await page.waitForURL((u) => u.pathname === '/executions');
    await page.getByRole('heading', { name: 'Executions', level: 1 }).waitFor();
    await page.keyboard.press('g');
    await page.keyboard.press('d');
    await page.waitForURL((u) => u.pathname === '/');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();

    // `/` on a page with no search: to the flow list, its search focused.
    await page.keyboard.press('/');
    await page.waitForURL((u) => u.pathname === '/flows');
    await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.type === 'search');
    // Keys typed into a field are text, not shortcuts.
    await page.keyboard.type('ge/?');
    assert.equal(await page.getByRole('searchbox', { name: 'Search' }).inputValue(), 'ge/?');
    assert.equal(new URL(page.url()).pathname, '/flows');
    assert.equal(await help.count(), 0);
    await shot(page, 'keys-02-search-focused');

    // `/` on the execution list: its first filter field.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('g');
    await page.keyboard.press('e');
    await page.waitForURL((u) => u.pathname === '/executions');
    await page.keyboard.press('/');
    await page.waitForFunction(() => document.activeElement?.closest('[role="search"]') !== null && document.activeElement?.tagName === 'INPUT');

    // `/` on an execution page: the log search.
    const ns = 'web.keys';
    await ui.stack.saveFlow(ns, { 'one.flow.yaml': 'id: one\ntasks:\n  - {id: say, type: command, command: ["echo", "hi"]}\n' });
    const ex = await ui.stack.trigger(ns, 'one');
    await page.goto(`/executions/${ex.id}`);
    await waitState(page, 'SUCCESS');
    await page.keyboard.press('/');
    await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.placeholder === 'text in lines');
  });
});
