// Replay in the browser: an execution of `extract -> transform -> load` that
// failed on a wrong input (load refuses the date) offers Replay…; its dialog
// is prefilled with the original's inputs and labels, and a field changed
// is marked "(changed)"; replaying from load on the pinned revision shows the
// plan first (extract and transform reused, load runs, date changed), then
// starts and lands on the new execution, which succeeds with the first two
// reused and links back to the one it replays. A wrong type shows the
// server's 422 beside its field. axe-core finds no unnamed control and no
// invalid ARIA in the dialog.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { components } from '@svc/api-spec';
import { browserSkipReason, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.replay';
type Ex = components['schemas']['Execution'];
const run = (e: Ex, task: string) => e.task_runs.filter((r) => r.task_key === task).at(-1);

const ETL = JSON.stringify({
  id: 'etl',
  labels: { team: 'data' },
  inputs: [
    { id: 'date', type: 'string' },
    { id: 'batch', type: 'int', default: 1 },
  ],
  tasks: [
    { id: 'extract', type: 'command', command: ['echo', 'extracted'] },
    { id: 'transform', type: 'command', depends_on: ['extract'], command: ['echo', 'transformed'] },
    {
      id: 'load',
      type: 'command',
      depends_on: ['transform'],
      command: ['sh', '-c', 'case "{{ inputs.date }}" in 2026-*) echo "loaded {{ inputs.date }}";; *) echo "bad date" >&2; exit 1;; esac'],
    },
  ],
});

const AXE_RULES = ['button-name', 'link-name', 'label', 'select-name', 'aria-allowed-attr', 'aria-valid-attr-value', 'aria-roles', 'nested-interactive', 'duplicate-id-aria'];

describe('replay on the execution page', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'etl.flow.yaml': ETL });
  });
  after(async () => {
    await ui?.stop();
  });

  it('replays a failed execution from its third task with the input fixed: the plan first, then the new execution reusing the first two', async () => {
    const page = ui.admin;
    const { id } = await ui.stack.trigger(NS, 'etl', { inputs: { date: 'yesterday' }, labels: { ticket: 't-1' } });
    const failed: Ex = await ui.stack.waitEnded(id);
    assert.equal(failed.state, 'FAILED');

    await page.goto(`/executions/${id}`);
    await waitState(page, 'FAILED');
    await page.getByRole('button', { name: 'Replay…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay execution' });
    await dialog.waitFor();
    // Prefilled with the original's inputs and labels.
    const date = dialog.getByRole('textbox', { name: /^date/ });
    assert.equal(await date.inputValue(), 'yesterday');
    assert.equal(await dialog.getByRole('textbox', { name: /^batch/ }).inputValue(), '1');
    assert.equal(await dialog.getByRole('textbox', { name: /^ticket/ }).inputValue(), 't-1');
    assert.equal(await dialog.getByRole('textbox', { name: /^team/ }).inputValue(), 'data');
    assert.equal(await dialog.getByText('(changed)').count(), 0);

    // A wrong type: the server's 422, beside the field it names.
    await dialog.getByRole('textbox', { name: /^batch/ }).fill('many');
    await dialog.getByRole('button', { name: 'Show plan' }).click();
    const batchError = dialog.locator('#replay-input-batch-err');
    await batchError.waitFor();
    assert.match(await batchError.innerText(), /integer/);
    await dialog.getByRole('textbox', { name: /^batch/ }).fill('1');

    // The input fixed is marked changed; from load, pinned.
    await date.fill('2026-11-01');
    assert.equal(await dialog.getByText('(changed)').count(), 1);
    assert.equal(await dialog.locator('[data-changed="true"]').count(), 1);
    await dialog.getByRole('combobox', { name: 'Replay from' }).selectOption('load');
    assert.ok(await dialog.getByRole('radio', { name: /^Pinned/ }).isChecked());
    assert.equal(await dialog.getByRole('button', { name: 'Start replay' }).count(), 0, 'nothing starts before the plan is shown');
    await dialog.getByRole('button', { name: 'Show plan' }).click();
    const plan = dialog.getByTestId('replay-plan');
    await plan.waitFor();
    assert.deepEqual(await dialog.getByTestId('replay-reused').locator('li').allInnerTexts(), ['extract', 'transform']);
    assert.deepEqual(await dialog.getByTestId('replay-run').locator('li').allInnerTexts(), ['load']);
    assert.deepEqual(await dialog.getByTestId('replay-changed').locator('li').allInnerTexts(), ['date']);
    await shot(page, 'replay-01-plan');
    const axe = await new AxeBuilder({ page: page as never }).include('.dialog.replay').withRules(AXE_RULES).analyze();
    assert.deepEqual(
      axe.violations.flatMap((v) => v.nodes.map((n) => `${v.id} at ${n.target.join(' ')}`)),
      [],
    );

    await dialog.getByRole('button', { name: 'Start replay' }).click();
    await page.waitForURL((u) => /\/executions\/[^/]+$/.test(u.pathname) && !u.pathname.endsWith(id));
    const newId = new URL(page.url()).pathname.split('/').pop()!;
    const done: Ex = await ui.stack.waitEnded(newId);
    assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
    assert.equal(done.replay_of, id);
    assert.equal(run(done, 'extract')?.reason, 'reused');
    assert.equal(run(done, 'transform')?.reason, 'reused');
    assert.equal(done.inputs.date, '2026-11-01');
    await waitState(page, 'SUCCESS');
    await page.getByRole('list', { name: 'Related executions' }).getByRole('link', { name: id }).waitFor();
    await shot(page, 'replay-02-new-execution');
  });
});
