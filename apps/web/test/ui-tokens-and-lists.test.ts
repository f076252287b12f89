// In the browser: API tokens on the profile page (created with a role and an
// expiry, the secret shown once with a copy button, then revoked), the
// execution list's filters (state, namespace, flow, label) and cursor paging,
// and the flows search (ids, descriptions and namespaces, searched by the
// server once the typing pauses; an empty result says what it searched).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();

describe('API tokens, the execution list and the flows search', { skip, concurrency: false }, () => {
  let ui: Ui;
  const ids: Record<string, string[]> = { ok: [], bad: [], other: [] };

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow('web.lists', {
      'ok.flow.yaml': 'id: ok\ntasks:\n  - {id: t, type: command, command: ["true"]}\n',
      'bad.flow.yaml': 'id: bad\ndescription: Fails ON PURPOSE\ntasks:\n  - {id: t, type: command, command: ["false"]}\n',
    });
    await ui.stack.saveFlow('web.other', { 'ok.flow.yaml': 'id: ok\ntasks:\n  - {id: t, type: command, command: ["true"]}\n' });
    for (let i = 0; i < 3; i++) ids.ok!.push((await ui.stack.trigger('web.lists', 'ok', { labels: { team: i === 0 ? 'red' : 'blue' } })).id);
    ids.bad!.push((await ui.stack.trigger('web.lists', 'bad')).id);
    ids.other!.push((await ui.stack.trigger('web.other', 'ok')).id);
    for (const id of Object.values(ids).flat()) await ui.stack.waitEnded(id, 120_000);
  });
  after(async () => ui?.stop());

  it('creates a token with a role and an expiry, shows its secret once, and revokes it', async () => {
    const page = ui.admin;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ui.stack.url });
    await page.goto('/profile');
    const section = page.getByRole('region', { name: 'API tokens' });
    await section.getByLabel('Token name').fill('ci reader');
    await section.getByLabel('Role').selectOption('viewer');
    await section.getByLabel('Expires in days').fill('7');
    await section.getByRole('button', { name: 'Create token' }).click();
    const secret = await section.getByTestId('token-secret').innerText();
    assert.ok(secret.length > 20);
    await section.getByRole('button', { name: 'Copy token' }).click();
    await section.getByRole('button', { name: 'Copy token' }).filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await shot(page, 'tokens-01-created');
    // The token works, with the role it was given.
    const me = await fetch(`${ui.stack.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(((await me.json()) as { role: string }).role, 'viewer');
    const row = section.getByRole('row', { name: /ci reader/ });
    assert.match(await row.innerText(), /viewer/);
    await row.getByText('active', { exact: true }).waitFor();
    const expires = await ui.stack.api('GET', '/api/v1/tokens');
    const created = expires.body.items.find((t: { name: string }) => t.name === 'ci reader');
    const days = (Date.parse(created.expires_at) - Date.now()) / 86_400_000;
    assert.ok(days > 6.9 && days <= 7.01, `expires in ${days} days`);
    // Shown once: after Done, and after a reload, the secret is nowhere on the page.
    await section.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByText(secret).count(), 0);
    await page.reload();
    await row.waitFor();
    assert.equal(await page.getByText(secret).count(), 0);
    await section.getByRole('button', { name: 'Revoke token ci reader' }).click();
    // Revoked at once: the row says so and offers no second revoke.
    await row.getByText(/^revoked /).waitFor();
    assert.equal(await section.getByRole('button', { name: 'Revoke token ci reader' }).count(), 0);
    const after = await fetch(`${ui.stack.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(after.status, 401);
  });

  it('filters executions by state, namespace, flow and label', async () => {
    const page = ui.admin;
    await page.goto('/executions');
    const filters = page.getByRole('search', { name: 'Filter executions' });
    const shown = async () => (await page.locator('table.list tbody tr td:first-child code').allInnerTexts()).sort();
    const until = async (want: string[]) => {
      const sorted = [...want].sort();
      for (let i = 0; i < 100; i++) {
        if (JSON.stringify(await shown()) === JSON.stringify(sorted)) return;
        await page.waitForTimeout(200);
      }
      assert.deepEqual(await shown(), sorted);
    };
    await until(Object.values(ids).flat());
    await filters.getByLabel('State').selectOption('FAILED');
    await until(ids.bad!);
    await page.waitForURL(/state=FAILED/);
    await filters.getByLabel('State').selectOption('');
    await filters.getByLabel('Namespace').fill('web.other');
    await until(ids.other!);
    await filters.getByLabel('Namespace').fill('web.lists');
    await filters.getByLabel('Flow').fill('ok');
    await until(ids.ok!);
    await filters.getByLabel('Labels').fill('team:blue');
    await until(ids.ok!.slice(1));
    await shot(page, 'executions-01-filtered');
    // The filters live in the URL: a reload keeps them.
    await page.reload();
    await until(ids.ok!.slice(1));
    assert.equal(await filters.getByLabel('Labels').inputValue(), 'team:blue');
  });

  it('searches flows by namespace as well as id, and says what an empty search looked for', async () => {
    const page = ui.admin;
    await page.goto('/flows');
    const search = page.getByRole('searchbox', { name: 'Search' });
    const shown = () => page.locator('table.list tbody tr').evaluateAll((rows) => rows.map((r) => `${r.children[1]!.textContent}/${r.children[0]!.textContent}`).sort());
    const until = async (want: string[]) => {
      for (let i = 0; i < 100; i++) {
        if (JSON.stringify(await shown()) === JSON.stringify(want)) return;
        await page.waitForTimeout(200);
      }
      assert.deepEqual(await shown(), want);
    };
    await until(['web.lists/bad', 'web.lists/ok', 'web.other/ok']);
    // "other" is in no flow id or description: only the namespace web.other matches.
    await search.fill('other');
    await until(['web.other/ok']);
    await page.waitForURL(/q=other/);
    await shot(page, 'flows-01-search-namespace');
    // Part of a namespace name, in capitals: its flows, whatever their ids.
    await search.fill('LISTS');
    await until(['web.lists/bad', 'web.lists/ok']);
    // An id still matches through the API's search.
    await search.fill('bad');
    await until(['web.lists/bad']);
    // Nothing found: the page says what it searched and offers no "Create one".
    await search.fill('no-such-flow');
    const empty = page.getByText('No flows match “no-such-flow” by id, description or namespace.');
    await empty.waitFor();
    assert.equal(await page.locator('table.list').count(), 0);
    assert.equal(await page.getByText('Create one').count(), 0);
    await shot(page, 'flows-02-search-empty');
    // Within a selected namespace it says where it looked.
    await page.getByRole('tree', { name: 'Namespace tree' }).getByRole('button', { name: 'lists' }).click();
    await page.getByText('No flows match “no-such-flow” by id, description or namespace in web.lists and its children.').waitFor();
    await page.getByRole('button', { name: 'Clear the search' }).click();
    await until(['web.lists/bad', 'web.lists/ok']);
    assert.equal(await search.inputValue(), '');
  });

  it('searches flows on the server once typing pauses, by description and by a fragment of a namespace', async () => {
    const page = ui.admin;
    await page.goto('/flows');
    const search = page.getByRole('searchbox', { name: 'Search' });
    const rows = page.locator('table.list tbody tr');
    const shown = () => rows.evaluateAll((trs) => trs.map((r) => `${r.children[1]!.textContent}/${r.children[0]!.textContent}`).sort());
    const until = async (want: string[]) => {
      for (let i = 0; i < 100; i++) {
        if (JSON.stringify(await shown()) === JSON.stringify(want)) return;
        await page.waitForTimeout(200);
      }
      assert.deepEqual(await shown(), want);
    };
    await until(['web.lists/bad', 'web.lists/ok', 'web.other/ok']);
    // The q of every flows listing the page asks for from here on.
    const asked: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/api/v1/flows') asked.push(u.searchParams.get('q') ?? '');
    });
    // Typed key by key, in other case than the description: the server finds it, asked once the typing pauses, not once a key.
    const whole = page.waitForRequest((r) => {
      const u = new URL(r.url());
      return u.pathname === '/api/v1/flows' && u.searchParams.get('q') === 'on purpose';
    });
    await search.click();
    await page.keyboard.type('on purpose', { delay: 40 });
    // The listing of the whole text is asked for (a key typed while an earlier pause's listing lands is kept).
    await whole;
    await until(['web.lists/bad']);
    await page.waitForURL(/q=on\+purpose/);
    assert.equal(await search.inputValue(), 'on purpose');
    assert.equal(asked[asked.length - 1], 'on purpose');
    // A browser stalled by a loaded machine can see a pause mid-word (one more listing), never one per key (ten).
    assert.ok(asked.length <= 3, `one listing per pause, not one per key: ${JSON.stringify(asked)}`);
    assert.equal(await rows.first().locator('td').nth(2).innerText(), 'Fails ON PURPOSE');
    await shot(page, 'flows-03-search-description');
    // A fragment of a namespace name across its dot: web.other's flows, and a namespace it does not cut (web.lists) is not listed.
    asked.length = 0;
    await search.fill('B.OTH');
    await until(['web.other/ok']);
    assert.deepEqual(asked, ['B.OTH']);
    await shot(page, 'flows-04-search-namespace-fragment');
    // The search lives in the URL: a reload lists the same rows and shows the text.
    await page.reload();
    await until(['web.other/ok']);
    assert.equal(await search.inputValue(), 'B.OTH');
  });

  it('pages through executions with the cursor, forwards and back', async () => {
    const page = ui.admin;
    await page.goto('/executions?limit=2');
    const rows = () => page.locator('table.list tbody tr td:first-child code').allInnerTexts();
    const seen: string[] = [];
    await page.getByTestId('page-number').getByText('Page 1').waitFor();
    await page.locator('table.list tbody tr').nth(1).waitFor();
    const first = await rows();
    assert.equal(first.length, 2);
    seen.push(...first);
    for (const n of [2, 3]) {
      await page.getByRole('button', { name: 'Next →' }).click();
      await page.getByTestId('page-number').getByText(`Page ${n}`).waitFor();
      await page.waitForFunction((prev) => {
        const now = [...document.querySelectorAll('table.list tbody tr td:first-child code')].map((e) => e.textContent);
        return now.length > 0 && !now.some((x) => prev.includes(x!));
      }, seen);
      seen.push(...(await rows()));
    }
    // Five executions in all, each seen once; the last page has no next.
    assert.deepEqual([...seen].sort(), Object.values(ids).flat().sort());
    assert.equal(await page.getByRole('button', { name: 'Next →' }).isDisabled(), true);
    await page.getByRole('button', { name: '← Previous' }).click();
    await page.getByTestId('page-number').getByText('Page 2').waitFor();
    await page.waitForFunction(
      (want) => JSON.stringify([...document.querySelectorAll('table.list tbody tr td:first-child code')].map((e) => e.textContent)) === JSON.stringify(want),
      seen.slice(2, 4),
    );
    await shot(page, 'executions-02-paged');
  });
});
