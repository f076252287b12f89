// The Alerts page in the browser: an editor (the admin here)
// opens Alerts from the main navigation, creates a rule for a namespace with
// a signed webhook channel, sees it listed; a real execution of the namespace
// fails, the maintenance process delivers the alert to a local receiver that
// refuses the first try (HTTP 500), and the rule's deliveries show the
// delivery with both attempts; the rule is edited and deleted. The page
// passes axe-core's naming and ARIA rules with the form and deliveries open.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.alerts';

describe('alerts page', { skip, concurrency: false }, () => {
  let ui: Ui;
  let hook: http.Server;
  let hookUrl = '';
  const received: string[] = [];
  let refuseNext = 1;

  before(async () => {
    hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        if (refuseNext-- > 0) return void res.writeHead(500).end('busy');
        received.push(body);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/svc`;
    // The receiver is on loopback: an on-premise setting (SVC_ALERT_ALLOW_PRIVATE_TARGETS).
    ui = await startUi({ env: { SVC_ALERT_ALLOW_PRIVATE_TARGETS: 'true' } });
    await ui.stack.saveFlow(NS, {
      'boom.flow.yaml': JSON.stringify({ id: 'boom', tasks: [{ id: 'explode', type: 'command', command: ['sh', '-c', 'echo going down; exit 1'] }] }),
    });
    assert.equal((await ui.stack.api('PUT', '/api/v1/secrets/ALERT_SIGNING_KEY', { value: 'ui-alert-signing-value-77' })).status, 200);
  });
  after(async () => {
    await ui?.stop();
    await new Promise<void>((r) => hook.close(() => r()));
  });

  const rules = (page: Page) => page.getByRole('region', { name: 'Alert rules' });
  const cells = (page: Page, region: string, table: string) =>
    page
      .getByRole('region', { name: region })
      .getByRole('table', { name: table })
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((c) => (c as HTMLElement).innerText.trim())));

  it('creates a rule with a signed webhook channel', async () => {
    const page = ui.admin;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).click();
    await rules(page).getByText('No alert rules yet.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/alerts');

    await rules(page).getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('form', { name: 'Alert rule' });
    await form.getByLabel('Name', { exact: true }).fill('web failures');
    await form.getByLabel('Namespace', { exact: true }).fill('web');
    assert.equal(await form.getByLabel('Failed', { exact: true }).isChecked(), true);
    assert.equal(await form.getByLabel('Timed out').isChecked(), true);
    const channel = form.getByRole('group', { name: 'Channel 1' });
    await channel.getByRole('combobox').selectOption('webhook');
    await channel.getByLabel('URL', { exact: true }).fill(hookUrl);
    await channel.getByLabel('Signing secret (name)').fill('ALERT_SIGNING_KEY');
    await shot(page, 'alerts-new-rule');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await form.waitFor({ state: 'detached' });
    // The form closes before the list has reloaded: wait for the new row.
    await rules(page).getByRole('button', { name: 'web failures', exact: true }).waitFor();

    const listed = await cells(page, 'Alert rules', 'Alert rules');
    assert.deepEqual(
      listed.map((r) => r.slice(0, 5)),
      [['web failures', 'web and children', 'failed, timed_out', `Webhook ${hookUrl} (signed with secret ALERT_SIGNING_KEY)`, 'yes']],
    );
    await page.getByRole('region', { name: 'Deliveries of web failures' }).getByText('No deliveries yet.').waitFor();
    assert.ok(new URL(page.url()).searchParams.get('rule'));
  });

  it("shows a failed execution's delivery with its attempts, retried after a refusal", async () => {
    const page = ui.admin;
    const e = await ui.stack.waitEnded((await ui.stack.trigger(NS, 'boom')).id, 60_000);
    assert.equal(e.state, 'FAILED');
    const deliveries = page.getByRole('region', { name: 'Deliveries of web failures' });
    await deliveries.getByText('delivered', { exact: true }).waitFor({ timeout: 90_000 });
    const rows = await cells(page, 'Deliveries of web failures', 'Deliveries');
    assert.equal(rows.length, 1);
    const [, event, execution, channel, status, attempts] = rows[0]!;
    assert.equal(event, 'failed');
    assert.equal(execution, e.id);
    assert.equal(channel, `webhook ${hookUrl}`);
    assert.equal(status, 'delivered');
    assert.match(attempts!, /^#1 .* failed · HTTP 500 · \d+ ms · HTTP 500: busy\n#2 .* ok · HTTP 200 · \d+ ms · HTTP 200$/);
    assert.equal(received.filter((b) => b.includes(e.id)).length, 1);
    assert.ok(!(await page.locator('body').innerText()).includes('ui-alert-signing-value-77'), 'the signing key is never shown');
    await shot(page, 'alerts-deliveries');

    // The execution link opens the execution.
    await deliveries.getByRole('link', { name: e.id }).click();
    await page.waitForURL(`**/executions/${e.id}`);
    await page.goBack();
    await rules(page).waitFor();
  });

  it('passes the naming and ARIA rules with the form and the deliveries open', async () => {
    const page = ui.admin;
    await rules(page).getByRole('button', { name: 'Edit web failures' }).click();
    await page.getByRole('form', { name: 'Alert rule' }).waitFor();
    const r = await new AxeBuilder({ page: page as never })
      .withRules([
        'button-name',
        'link-name',
        'label',
        'select-name',
        'aria-allowed-attr',
        'aria-required-attr',
        'aria-roles',
        'aria-valid-attr',
        'aria-valid-attr-value',
        'nested-interactive',
      ])
      .analyze();
    assert.deepEqual(
      r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      [],
    );
  });

  it('edits and deletes the rule', async () => {
    const page = ui.admin;
    const form = page.getByRole('form', { name: 'Alert rule' });
    await form.getByLabel('Name', { exact: true }).fill('web failures and recoveries');
    await form.getByLabel('Recovered (first success after a failure)').check();
    await form.getByRole('button', { name: 'Save rule' }).click();
    await form.waitFor({ state: 'detached' });
    await rules(page).getByText('failed, timed_out, recovered').waitFor();
    assert.deepEqual(
      (await ui.stack.api('GET', '/api/v1/alerts')).body.items.map((x: { name: string }) => x.name),
      ['web failures and recoveries'],
    );

    await rules(page).getByRole('button', { name: 'Delete web failures and recoveries' }).click();
    await rules(page).getByText('No alert rules yet.').waitFor();
    assert.equal((await ui.stack.api('GET', '/api/v1/alerts')).body.items.length, 0);
  });
});
