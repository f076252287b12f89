// A user whose global role is `none` (issue #34) in the browser: Nora, bound
// as editor to `alpha`, sees only alpha's flows, executions and alert rules
// (nothing of `zulu`), no Settings in the navigation, and may open "New rule"
// on the Alerts page (her binding allows rules on alpha) and create one there;
// Vic, bound as viewer only, sees the button disabled with its reason.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, login, newUser, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();

describe('a none user bound to one namespace', { skip, concurrency: false }, () => {
  let ui: Ui;
  let nora: Page;

  before(async () => {
    ui = await startUi({ maintenance: false });
    for (const ns of ['alpha', 'zulu']) {
      await ui.stack.saveFlow(ns, { [`${ns}-load.flow.yaml`]: JSON.stringify({ id: `${ns}-load`, tasks: [{ id: 't', type: 'command', command: ['true'] }] }) });
      for (let i = 0; i < 2; i++) await ui.stack.waitEnded((await ui.stack.trigger(ns, `${ns}-load`)).id, 60_000);
      const rule = await ui.stack.api('POST', '/api/v1/alerts', {
        name: `${ns} failures`,
        namespace: ns,
        events: ['failed'],
        channels: [{ type: 'webhook', url: 'http://127.0.0.1:9/x', signing_secret: 'K' }],
      });
      assert.equal(rule.status, 201, JSON.stringify(rule.body));
    }
    for (const [email, role] of [
      ['nora@example.com', 'editor'],
      ['vic@example.com', 'viewer'],
    ] as const) {
      assert.equal((await ui.stack.api('POST', '/api/v1/users', { email, role: 'none', password: 'none password 12' })).status, 201);
      assert.equal((await ui.stack.api('POST', '/api/v1/role-bindings', { namespace: 'alpha', user: email, role })).status, 201);
    }
    nora = (await newUser(ui.browser, ui.stack.url)).page;
    await login(nora, 'nora@example.com', 'none password 12');
    await nora.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });
  after(async () => ui?.stop());

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
  const column = (page: Page, header: string) =>
    page
      .locator('main table.list')
      .first()
      .evaluate((table, h) => {
        const i = [...table.querySelectorAll('thead th')].findIndex((th) => (th as HTMLElement).innerText.trim() === h);
        return [...table.querySelectorAll('tbody tr')].map((tr) => (tr.querySelectorAll('td')[i] as HTMLElement | undefined)?.innerText.trim() ?? '');
      }, header);

  it('navigates without Settings; the dashboard is that of its namespace', async () => {
    const links = await nav(nora).getByRole('link').allInnerTexts();
    assert.deepEqual(links, ['Dashboard', 'Executions', 'Flows', 'Editor', 'Alerts']);
    // Right after the bindings were made: a `none` user's getMe never comes from the "no bindings" shortcut.
    await nora.getByRole('heading', { name: 'Ended executions per bucket' }).waitFor();
    assert.equal(await nora.getByText('No namespace is open to you').count(), 0);
    assert.equal(await nora.getByLabel('Namespace').inputValue(), 'alpha');
    assert.deepEqual(await nora.getByLabel('Namespace').locator('option').allInnerTexts(), ['alpha']);
    await shot(nora, 'role-none-dashboard');
  });

  it("lists only the bound namespace's flows and executions", async () => {
    await nav(nora).getByRole('link', { name: 'Flows' }).click();
    await nora.getByRole('link', { name: 'alpha-load' }).waitFor();
    assert.deepEqual(await column(nora, 'Namespace'), ['alpha']);
    assert.equal(await nora.getByText('zulu').count(), 0, 'nothing of zulu on the flows page');
    await shot(nora, 'role-none-flows');

    await nav(nora).getByRole('link', { name: 'Executions' }).click();
    await nora.locator('main table.list tbody tr').nth(1).waitFor();
    const namespaces = await column(nora, 'Namespace');
    assert.equal(namespaces.length, 2, namespaces.join(','));
    assert.deepEqual([...new Set(namespaces)], ['alpha']);
    assert.equal(await nora.getByText('zulu').count(), 0, 'nothing of zulu on the executions page');
    await shot(nora, 'role-none-executions');
  });

  it('offers "New rule" by the editor binding and creates a rule on its namespace', async () => {
    await nav(nora).getByRole('link', { name: 'Alerts' }).click();
    const rules = nora.getByRole('region', { name: 'Alert rules' });
    await rules.getByRole('button', { name: 'alpha failures', exact: true }).waitFor();
    assert.equal(await rules.getByText('zulu failures').count(), 0);
    const newRule = rules.getByRole('button', { name: 'New rule' });
    assert.equal(await newRule.isEnabled(), true);
    await newRule.click();
    const form = nora.getByRole('form', { name: 'Alert rule' });
    await form.getByLabel('Name', { exact: true }).fill('alpha late');
    await form.getByLabel('Namespace', { exact: true }).fill('alpha');
    const channel = form.getByRole('group', { name: 'Channel 1' });
    await channel.getByRole('combobox').selectOption('webhook');
    await channel.getByLabel('URL', { exact: true }).fill('http://127.0.0.1:9/y');
    await channel.getByLabel('Signing secret (name)').fill('ALPHA_KEY');
    await shot(nora, 'role-none-new-rule');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await form.waitFor({ state: 'detached' });
    await rules.getByRole('button', { name: 'alpha late', exact: true }).waitFor();
    const stored = await ui.stack.api('GET', '/api/v1/alerts');
    assert.ok(stored.body.items.some((r: { name: string; namespace: string }) => r.name === 'alpha late' && r.namespace === 'alpha'));
  });

  it('keeps "New rule" disabled, with its reason, for one bound as viewer only', async () => {
    const vic = (await newUser(ui.browser, ui.stack.url)).page;
    await login(vic, 'vic@example.com', 'none password 12');
    await nav(vic).getByRole('link', { name: 'Alerts' }).click();
    const rules = vic.getByRole('region', { name: 'Alert rules' });
    await rules.getByRole('button', { name: 'alpha failures', exact: true }).waitFor();
    const newRule = rules.getByRole('button', { name: 'New rule' });
    assert.equal(await newRule.isDisabled(), true);
    assert.match((await newRule.getAttribute('title')) ?? '', /Needs the editor role on some namespace/);
    await shot(vic, 'role-none-viewer-alerts');
  });
});
