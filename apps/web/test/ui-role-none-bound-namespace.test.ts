// A user whose global role is `none` in the browser: Nora, bound
// as editor to `alpha`, sees only alpha's dashboard figures, flows, executions
// and alert rules (nothing of `zulu`), no Settings in the navigation, and may open "New rule"
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
  let zuluFailure = '';

  before(async () => {
    // The alert rule names a loopback receiver: an on-premise setting (SVC_ALERT_ALLOW_PRIVATE_TARGETS).
    ui = await startUi({ maintenance: false, env: { SVC_ALERT_ALLOW_PRIVATE_TARGETS: 'true' } });
    for (const ns of ['alpha', 'zulu']) {
      await ui.stack.saveFlow(ns, { [`${ns}-load.flow.yaml`]: JSON.stringify({ id: `${ns}-load`, tasks: [{ id: 't', type: 'command', command: ['true'] }] }) });
      for (let i = 0; i < 2; i++) await ui.stack.waitEnded((await ui.stack.trigger(ns, `${ns}-load`)).id, 60_000);
      if (ns === 'zulu') {
        // Figures the dashboard must not count for Nora: two more runs in zulu, one of them a failure.
        await ui.stack.waitEnded((await ui.stack.trigger(ns, `${ns}-load`)).id, 60_000);
        await ui.stack.saveFlow(ns, { 'zulu-broken.flow.yaml': JSON.stringify({ id: 'zulu-broken', tasks: [{ id: 't', type: 'command', command: ['sh', '-c', 'exit 3'] }] }) });
        zuluFailure = (await ui.stack.waitEnded((await ui.stack.trigger(ns, 'zulu-broken')).id, 60_000)).id;
      }
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

  it("navigates without Settings; the dashboard counts its namespace's executions, none of zulu's", async () => {
    const links = await nav(nora).getByRole('link').allInnerTexts();
    assert.deepEqual(links, ['Dashboard', 'Executions', 'Flows', 'Editor', 'Alerts']);
    // Right after the bindings were made: a `none` user's getMe never comes from the "no bindings" shortcut.
    await nora.getByRole('heading', { name: 'Ended executions per bucket' }).waitFor();
    assert.equal(await nora.getByText('No namespace is open to you').count(), 0);
    // Every namespace of hers (only alpha): alpha's two successes; zulu's four runs and its failure are not there.
    assert.equal(await nora.getByLabel('Namespace').inputValue(), '');
    assert.deepEqual(await nora.getByLabel('Namespace').locator('option').allInnerTexts(), ['all of mine', 'alpha']);
    const kpis = nora.getByTestId('kpis');
    await kpis.getByLabel('Executions: 2').waitFor();
    await kpis.getByLabel('Succeeded: 2').waitFor();
    await kpis.getByLabel('Failed: 0').waitFor();
    const failures = nora.getByRole('region', { name: 'Recent failures' });
    assert.equal(await failures.getByText('zulu').count(), 0);
    assert.equal(await nora.getByText(zuluFailure).count(), 0, "zulu's failure is not listed");
    assert.equal(await nora.locator('main').getByText('zulu').count(), 0, 'nothing of zulu on the dashboard');
    await shot(nora, 'role-none-dashboard');
    // The admin's dashboard of every namespace counts zulu's too (the figures above are alpha's, not a stale zero).
    const all = await ui.stack.api('GET', '/api/v1/stats/dashboard?range=24h');
    assert.equal(all.body.kpis.executions, 6);
    assert.equal(all.body.kpis.failed, 1);
    // The picker still narrows to one namespace.
    await nora.getByLabel('Namespace').selectOption('alpha');
    await nora.waitForURL(/namespace=alpha/);
    await kpis.getByLabel('Executions: 2').waitFor();
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
