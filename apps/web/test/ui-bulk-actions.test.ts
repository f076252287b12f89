// A bulk action from the executions list, in the browser: with no filter the
// button says why it waits; filtered on a label, the dialog repeats the
// filter, counts what matches (dry run), lists the successful execution a
// restart refuses, and restarts the failed ones on confirm, with one result
// per execution linking the new ones. Switching to cancel shows the count
// for cancel. A viewer's button says it needs the operator role.
// Screenshots: bulk-dry-run, bulk-results.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, login, newUser, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.bulk';
// The task fails until this file exists; tasks may run as SVC_TASK_USER.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-bulk-'));
fs.chmodSync(dir, 0o755);
const OK = path.join(dir, 'ok');
const FLAKY = JSON.stringify({ id: 'flaky', tasks: [{ id: 'check', type: 'command', command: ['test', '-f', OK] }] });

describe('bulk actions on the executions list', { skip, concurrency: false }, () => {
  let ui: Ui;
  const failed: string[] = [];
  let succeeded = '';

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'flaky.flow.yaml': FLAKY });
    for (let i = 0; i < 3; i++) failed.push((await ui.stack.trigger(NS, 'flaky', { labels: { wave: 'w1' } })).id);
    for (const id of failed) assert.equal((await ui.stack.waitEnded(id)).state, 'FAILED');
    fs.writeFileSync(OK, '');
    succeeded = (await ui.stack.trigger(NS, 'flaky', { labels: { wave: 'w1' } })).id;
    assert.equal((await ui.stack.waitEnded(succeeded)).state, 'SUCCESS');
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await ui?.stop();
  });

  it('counts with a dry run, lists what the action refuses, restarts on confirm and shows each result', async () => {
    const page = ui.admin;
    await page.goto('/executions');
    const button = page.getByRole('button', { name: 'Bulk action…' });
    // No filter: nothing to act on.
    assert.equal(await button.isDisabled(), true);
    assert.match((await button.getAttribute('title')) ?? '', /Set a filter first/);

    await page.getByLabel('Labels').fill('wave:w1');
    await page.getByRole('cell', { name: succeeded }).waitFor();
    await button.click();
    const dialog = page.getByRole('dialog', { name: 'Bulk action' });
    await dialog.waitFor();
    assert.equal(await dialog.getByTestId('bulk-filter').textContent(), 'label wave:w1');
    // Cancel first: all four have ended.
    await dialog.getByTestId('bulk-matched').getByText('4').waitFor();
    assert.equal(await dialog.getByTestId('bulk-eligible').textContent(), '0');
    assert.equal(await dialog.getByRole('button', { name: /^Cancel \d* ?execution/ }).isDisabled(), true);

    await dialog.getByLabel('Restart from failed').check();
    await dialog.getByTestId('bulk-eligible').getByText('3').waitFor();
    assert.equal(await dialog.getByTestId('bulk-matched').textContent(), '4');
    const refused = dialog.getByTestId('bulk-ineligible');
    await refused.getByRole('link', { name: succeeded }).waitFor();
    assert.match((await refused.textContent()) ?? '', /SUCCESS.*not_restartable/);
    await shot(page, 'bulk-dry-run');
    // The dry run changed nothing.
    assert.equal(Number((await ui.stack.db.query(`SELECT count(*) AS n FROM executions WHERE restart_of_id = ANY($1)`, [failed])).rows[0].n), 0);

    await dialog.getByRole('button', { name: 'Restart from failed 3 execution(s)' }).click();
    const results = dialog.getByTestId('bulk-results');
    await results.waitFor();
    await results.getByText(/Restarted 3 of 4 execution\(s\); 1 not\./).waitFor();
    const rows = (await ui.stack.db.query(`SELECT id, restart_of_id FROM executions WHERE restart_of_id = ANY($1)`, [failed])).rows as { id: string; restart_of_id: string }[];
    assert.equal(rows.length, 3);
    for (const r of rows) {
      await results.getByRole('link', { name: r.id }).waitFor();
      await results.getByRole('link', { name: r.restart_of_id }).waitFor();
    }
    assert.match((await results.getByRole('row').filter({ hasText: succeeded }).textContent()) ?? '', /not_restartable/);
    await shot(page, 'bulk-results');
    for (const r of rows) assert.equal((await ui.stack.waitEnded(r.id)).state, 'SUCCESS');

    // A new execution's link opens it.
    await results.getByRole('link', { name: rows[0]!.id }).click();
    await page.waitForURL(`**/executions/${rows[0]!.id}`);
  });

  it("a viewer's button says it needs the operator role", async () => {
    assert.equal((await ui.stack.api('POST', '/api/v1/users', { email: 'vic@example.com', role: 'viewer', password: 'viewer password 1' })).status, 201);
    const vic = (await newUser(ui.browser, ui.stack.url)).page;
    await login(vic, 'vic@example.com', 'viewer password 1');
    await vic.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await vic.goto('/executions?label=wave:w1');
    const button = vic.getByRole('button', { name: 'Bulk action…' });
    await button.waitFor();
    assert.equal(await button.isDisabled(), true);
    assert.match((await button.getAttribute('title')) ?? '', /Needs the operator role/);
  });
});
