// The execution page's Files tab in the browser, on a flow whose tasks keep
// output files (output_files) and an artifact: each listed in its table with
// task, name, size and sha256 (the service's, and the one of the bytes the
// task wrote); a CSV previewed as a table (quoted commas kept in their cell),
// a text file over 64 KiB previewed up to its last whole line within the
// first 64 KiB, binary content said to be binary; a download saves the
// file's bytes under its base name. A user bound on another namespace sees
// none of the files.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { text as streamText } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { boundUser } from '../../../e2e/test/stack.ts';
import { browserSkipReason, login, newUser, shot, startUi, waitState, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.files';
const sh = (script: string) => ['sh', '-c', script];
const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
const CSV = 'id,name,city\n1,"Smith, Ann",Oslo\n2,Bob,Rome\n';
// 20,000 numbered lines: 108,894 bytes, over the 64 KiB a preview reads.
const BIG = Array.from({ length: 20_000 }, (_, i) => `${i + 1}`).join('\n') + '\n';
const FLOW = JSON.stringify({
  id: 'files',
  tasks: [
    {
      id: 'extract',
      type: 'command',
      command: sh(
        [
          'mkdir -p out',
          `printf '${CSV.replace(/\n/g, '\\n')}' > out/rows.csv`,
          'seq 1 20000 > out/big.txt',
          "printf '\\000\\001\\002binary' > out/blob.bin",
          'printf "kept by the task" > "$SVC_ARTIFACTS_DIR/note.txt"',
        ].join(' && '),
      ),
      output_files: ['out/*'],
    },
  ],
});

describe('execution page: Files tab', { skip, concurrency: false }, () => {
  let ui: Ui;
  let id: string;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'files.flow.yaml': FLOW });
    id = (await ui.stack.trigger(NS, 'files')).id;
    const ended = await ui.stack.waitEnded(id, 120_000);
    assert.equal(ended.state, 'SUCCESS', JSON.stringify(ended));
  });
  after(async () => ui?.stop());

  it('lists output files and artifacts (no Input files section without file inputs) with task, name, size and sha256', async () => {
    const page = ui.admin;
    await page.goto(`/executions/${id}`);
    await waitState(page, 'SUCCESS');
    await page.getByRole('tab', { name: 'Files' }).click();
    const panel = page.getByRole('tabpanel', { name: 'Files' });
    await panel.getByRole('table', { name: 'Output files' }).waitFor();
    // No file inputs: no section for them.
    assert.equal(await panel.getByRole('region', { name: 'Input files' }).count(), 0);
    const rowsOf = (table: string) =>
      panel
        .getByRole('table', { name: table })
        .locator('tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) =>
            [...tr.querySelectorAll('td')]
              .slice(0, 3)
              .map((td) => td.textContent)
              .concat(tr.querySelector('[data-sha256]')?.getAttribute('data-sha256') ?? ''),
          ),
        );
    const binary = Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from('binary')]);
    assert.deepEqual(await rowsOf('Output files'), [
      ['extract', 'out/big.txt', `${BIG.length.toLocaleString('en-US')} B`, sha(BIG)],
      ['extract', 'out/blob.bin', `${binary.length} B`, sha(binary)],
      ['extract', 'out/rows.csv', `${CSV.length} B`, sha(CSV)],
    ]);
    assert.deepEqual(await rowsOf('Artifacts'), [['extract', 'note.txt', '16 B', sha('kept by the task')]]);
    // The sha256 shown is the service's.
    const listed = (await ui.stack.api('GET', `/api/v1/executions/${id}/artifacts`)).body.items as { name: string; sha256: string }[];
    assert.equal(listed.find((a) => a.name === 'out/rows.csv')!.sha256, sha(CSV));
    await shot(page, 'files-01-list');
  });

  it('previews a CSV as a table, a long text up to 64 KiB, and says binary content is binary', async () => {
    const page = ui.admin;
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e.stack ?? e)));
    await page.goto(`/executions/${id}`);
    await page.getByRole('tab', { name: 'Files' }).click();
    const panel = page.getByRole('tabpanel', { name: 'Files' });
    await panel.getByRole('button', { name: 'Preview out/rows.csv' }).click();
    const csv = panel.getByRole('table', { name: 'CSV preview of out/rows.csv' });
    await csv.waitFor().catch(async (e: unknown) => {
      await shot(page, 'files-02-csv-preview-failed');
      throw new Error(`no CSV preview; page errors: ${errors.join('\n')}`, { cause: e });
    });
    assert.deepEqual(await csv.locator('thead th').allInnerTexts(), ['id', 'name', 'city']);
    const cells = await csv.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert.deepEqual(cells, [
      ['1', 'Smith, Ann', 'Oslo'],
      ['2', 'Bob', 'Rome'],
    ]);
    await shot(page, 'files-02-csv-preview');

    await panel.getByRole('button', { name: 'Preview out/big.txt' }).click();
    const big = panel.getByRole('region', { name: 'Preview of out/big.txt' });
    await big
      .getByRole('note')
      .getByText(`The first 64 KiB of ${BIG.length.toLocaleString('en-US')} B`)
      .waitFor();
    const shown = await big.locator('pre').textContent();
    assert.ok(shown!.length <= 64 * 1024, `at most 64 KiB shown, got ${shown!.length}`);
    assert.ok(BIG.startsWith(shown!), 'the preview is the start of the file');
    assert.ok(shown!.endsWith('\n'), 'up to a whole line');
    assert.ok(shown!.length > 60 * 1024, `most of the 64 KiB is shown, got ${shown!.length}`);
    await shot(page, 'files-03-text-preview');

    await panel.getByRole('button', { name: 'Preview out/blob.bin' }).click();
    await panel.getByRole('region', { name: 'Preview of out/blob.bin' }).getByText('Binary content: no preview').waitFor();
    await panel.getByRole('button', { name: 'Close preview' }).click();
    assert.equal(await panel.getByRole('region', { name: /^Preview of / }).count(), 0);
  });

  it('downloads an output file under its base name, with its bytes', async () => {
    const page = ui.admin;
    await page.goto(`/executions/${id}`);
    await page.getByRole('tab', { name: 'Files' }).click();
    const panel = page.getByRole('tabpanel', { name: 'Files' });
    const [download] = await Promise.all([page.waitForEvent('download'), panel.getByRole('link', { name: 'Download out/rows.csv' }).click()]);
    assert.equal(download.suggestedFilename(), 'rows.csv');
    assert.equal(await streamText(await download.createReadStream()), CSV);
    const [big] = await Promise.all([page.waitForEvent('download'), panel.getByRole('link', { name: 'Download out/big.txt' }).click()]);
    assert.equal(sha(await streamText(await big.createReadStream())), sha(BIG));
  });

  it('shows a user bound on another namespace none of the files', async () => {
    await boundUser(ui.stack, { email: 'files-elsewhere@example.com', password: 'files elsewhere 1', namespace: 'web.elsewhere', role: 'operator', tokenName: 'files-ui' });
    const { context, page } = await newUser(ui.browser, ui.stack.url);
    try {
      await login(page, 'files-elsewhere@example.com', 'files elsewhere 1');
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      await page.goto(`/executions/${id}`);
      await page.getByRole('alert').first().waitFor();
      assert.equal(await page.getByRole('tab', { name: 'Files' }).count(), 0);
      assert.equal(await page.getByText('out/rows.csv').count(), 0);
      const status = await page.evaluate(async (u) => (await fetch(u)).status, `/api/v1/executions/${id}/artifacts`);
      assert.ok(status === 403 || status === 404, `the list is refused, got ${status}`);
      await shot(page, 'files-04-other-namespace');
    } finally {
      await context.close();
    }
  });
});
