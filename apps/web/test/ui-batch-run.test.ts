// The flow page's Batch run mode in the browser: a pasted NDJSON list starts
// one execution per item in one request (the created ids listed, each linking
// to its execution, in item order, with each item's inputs); a list with a
// bad item shows the server's field and creates nothing; a list that does not
// parse is refused before anything is sent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.batch';

describe('batch run', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    // No dispatcher: the executions stay as created.
    ui = await startUi({ dispatchers: 0, maintenance: false });
    await ui.stack.saveFlow(NS, {
      'daily.flow.yaml': `id: daily
inputs:
  - {id: date, type: string, required: true}
concurrency: {limit: 2}
tasks:
  - {id: echo, type: command, command: ["echo", "{{ inputs.date }}"]}
`,
    });
  });
  after(async () => ui?.stop());

  const count = async () => Number((await ui.stack.db.query(`SELECT count(*)::int AS n FROM executions WHERE namespace = $1`, [NS])).rows[0].n);

  it('starts one execution per pasted line and lists them with their states', async () => {
    const page = ui.admin;
    await page.goto(`/flows/${NS}/daily`);
    await page.getByRole('group', { name: 'Run mode' }).getByRole('button', { name: 'Batch' }).click();
    const form = page.getByRole('form', { name: 'Run a batch' });
    const lines = ['2026-12-01', '2026-12-02', '2026-12-03'].map((d) => JSON.stringify({ inputs: { date: d }, labels: { from: 'ui' } }));
    await form.getByLabel('Items').fill(lines.join('\n'));
    await form.getByRole('button', { name: 'Run batch' }).click();
    const created = form.getByRole('status');
    await created.filter({ hasText: 'Created 3 executions' }).waitFor();
    const links = form.locator('ol.batch-created a');
    assert.equal(await links.count(), 3);
    const ids = await links.allInnerTexts();
    const text = await form.locator('ol.batch-created').innerText();
    // Limit 2: the third waits.
    assert.deepEqual(
      text.split('\n').map((l) => l.split(/\s+/)[1]),
      ['RUNNING', 'RUNNING', 'QUEUED'],
    );
    await shot(page, 'batch-01-created');
    const rows = (await ui.stack.db.query(`SELECT id, inputs->>'date' AS date, labels->>'from' AS src FROM executions WHERE id = ANY($1) ORDER BY created_at`, [ids])).rows;
    assert.deepEqual(
      rows.map((r) => [r.id, r.date, r.src]),
      ids.map((id, i) => [id, `2026-12-0${i + 1}`, 'ui']),
    );
    // A created id links to its execution's page.
    await links.first().click();
    await page.waitForURL(`**/executions/${ids[0]}`);
  });

  it("a bad item shows the server's field and creates nothing; unparsable text is refused before sending", async () => {
    const page = ui.admin;
    const before = await count();
    await page.goto(`/flows/${NS}/daily`);
    await page.getByRole('group', { name: 'Run mode' }).getByRole('button', { name: 'Batch' }).click();
    const form = page.getByRole('form', { name: 'Run a batch' });
    await form.getByLabel('Items').fill('[{"inputs": {"date": "ok"}}, {"inputs": {}}]');
    await form.getByRole('button', { name: 'Run batch' }).click();
    const error = form.locator('.error[role="alert"]');
    await error.waitFor();
    assert.match(await error.innerText(), /items\[1\]\.inputs\.date/);
    await shot(page, 'batch-02-refused');
    assert.equal(await count(), before);

    await form.getByLabel('Items').fill('{"inputs": ');
    await form.getByRole('button', { name: 'Run batch' }).click();
    await form.getByText(/Line 1 is not JSON/).waitFor();
    assert.equal(await count(), before);
  });
});
