// AI triage on a failed execution's page, in the browser: a flow
// succeeds once, then fails after its task printed a secret; the user opens
// the failed run from the executions list, asks for a triage, sees it run and
// end with the summary, probable cause and suggested fix the model gave, and
// its evidence with the items the answer cites marked. Each item links to its
// place: the failed task run selects its task (graph and logs), each line of
// the log tail opens the logs scrolled to that very line, marked, and the
// last success opens that execution. The secret value is nowhere on the
// page. A successful execution has no triage section, and a viewer may read a
// triage but not ask for one. The model is a local OpenAI-compatible stand-in
// over real HTTP; the gateway, PostgreSQL, the dispatcher and the task are real.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { startOpenAIStandin, type Standin } from '../../../e2e/test/openai-standin.ts';
import { flow, sh } from '../../../e2e/test/engine-support.ts';
import { browserSkipReason, login, newUser, shot, startUi, type Ui } from './browser.ts';
import { linesStored } from './ai-support.ts';

const skip = browserSkipReason();
const NS = 'triageui';
const SECRET = 'tri-sec-' + crypto.randomBytes(8).toString('hex');
const VIEWER = 'vic@example.com';
const TRIAGE = {
  summary: 'The push task failed: the registry refused the token',
  probable_cause: 'The REGISTRY token expired since the last success',
  suggested_fix: 'Rotate the REGISTRY secret and run again',
  evidence: ['E2', 'E3'],
};

describe('AI triage on the execution page', { skip, concurrency: false }, () => {
  let ui: Ui;
  let llm: Standin;
  let okId = '';
  let failedId = '';

  before(async () => {
    llm = await startOpenAIStandin((r) => (r.body.tools ? { text: 'ok' } : { text: JSON.stringify(TRIAGE) }));
    ui = await startUi();
    const s = ui.stack;
    assert.equal((await s.api('POST', '/api/v1/namespaces', { name: NS })).status, 201);
    assert.equal((await s.api('PUT', `/api/v1/namespaces/${NS}/secrets/REGISTRY`, { value: SECRET })).status, 200);
    await s.saveFlow(NS, {
      'deploy.flow.yaml': flow({
        id: 'deploy',
        inputs: [{ id: 'fail', type: 'boolean', default: false }],
        tasks: [
          { id: 'build', type: 'command', command: sh('echo built') },
          {
            id: 'push',
            type: 'command',
            depends_on: ['build'],
            env: { T: "{{ secret('REGISTRY') }}", FAIL: '{{ inputs.fail }}' },
            command: sh(
              'for i in 1 2 3 4 5; do echo "step $i"; done; echo "pushing with $T"; if [ "$FAIL" = true ]; then echo "error: registry refused the token" >&2; exit 4; fi',
            ),
          },
        ],
      }),
    });
    okId = (await s.trigger(NS, 'deploy', { inputs: { fail: false } })).id;
    assert.equal((await s.waitEnded(okId, 120_000)).state, 'SUCCESS');
    failedId = (await s.trigger(NS, 'deploy', { inputs: { fail: true } })).id;
    assert.equal((await s.waitEnded(failedId, 120_000)).state, 'FAILED');
    await linesStored(s, failedId, 8);
    assert.equal((await s.api('PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-triage', base_url: llm.url })).status, 200);
    const v = await s.api('POST', '/api/v1/users', { email: VIEWER, role: 'viewer' });
    assert.equal(v.status, 201);
    viewerTemp = v.body.temporary_password;
  });
  let viewerTemp = '';
  after(async () => {
    await ui?.stop();
    await llm?.close();
  });

  const section = (page: Page) => page.getByRole('region', { name: 'AI triage' });
  const evidence = (page: Page) => section(page).getByRole('list', { name: 'Evidence' });

  it('the user opens the failed run, asks for a triage and reads its answer and evidence', async () => {
    const page = ui.admin;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Executions' }).click();
    await page.getByRole('link', { name: failedId }).click();
    await page.getByRole('heading', { name: `Execution ${failedId}` }).waitFor();
    await section(page).getByText('Not triaged yet.', { exact: false }).waitFor();
    await section(page).getByRole('button', { name: 'Triage with AI' }).click();
    await section(page).getByText(TRIAGE.summary).waitFor({ timeout: 60_000 });

    const kv = await section(page).locator('dl.kv').innerText();
    assert.match(kv, new RegExp(`Probable cause\\s+${TRIAGE.probable_cause}`));
    assert.match(kv, new RegExp(`Suggested fix\\s+${TRIAGE.suggested_fix}`));
    assert.match(await section(page).innerText(), /stand-in-triage · .* · rests on 2 of 5 evidence items/);
    const items = evidence(page).locator(':scope > li');
    assert.deepEqual(await items.evaluateAll((lis) => lis.map((li) => li.getAttribute('aria-label'))), [
      'E1 Execution',
      'E2 Failed task run, cited',
      'E3 Log lines, cited',
      'E4 Flow definition',
      'E5 Since the last success',
    ]);
    assert.equal(await section(page).getByRole('button', { name: 'Triage again' }).isEnabled(), true);
    await shot(page, 'ai-triage-insight');

    // The log tail, line by line, the secret masked; nowhere on the page is the value.
    await items.nth(2).locator('summary').click();
    const lines = section(page).getByRole('list', { name: 'Log lines of push' });
    await lines.getByRole('link', { name: /pushing with \*\*\*/ }).waitFor();
    await lines.getByRole('link', { name: /error: registry refused the token/ }).waitFor();
    for (const i of [0, 1, 3, 4]) await items.nth(i).locator('summary').click();
    await shot(page, 'ai-triage-evidence');
    assert.ok(!(await page.content()).includes(SECRET), 'the secret value is on the page');
    // axe-core's naming and ARIA rules (those of ui-accessibility) on the whole section, evidence open.
    const rules = ['button-name', 'link-name', 'aria-allowed-attr', 'aria-roles', 'aria-valid-attr', 'aria-valid-attr-value', 'nested-interactive', 'scrollable-region-focusable'];
    const axe = await new AxeBuilder({ page: page as never }).include('section[aria-label="AI triage"]').withRules(rules).analyze();
    assert.deepEqual(
      axe.violations.flatMap((v) => v.nodes.map((n) => `${v.id} at ${n.target.join(' ')}`)),
      [],
    );
  });

  it('each evidence item links to its place: the task run, the log line, the last success', async () => {
    const page = ui.admin;
    // The failed task run: its task selected, its logs shown.
    await evidence(page).getByRole('link', { name: 'Task push, attempt 1' }).click();
    await page.waitForURL(`**/executions/${failedId}?task=push`);
    assert.equal(await page.getByLabel('Show logs of task').inputValue(), 'push');
    await page.getByTestId('log-status').getByText(/ended/).waitFor();
    assert.match(await page.getByTestId('log-status').innerText(), /^7 of \d+ lines/);
    const taskCells = await page.getByRole('log', { name: 'Log lines' }).locator('.log-task').allInnerTexts();
    assert.deepEqual([...new Set(taskCells)], ['push'], 'the lines of push only');

    // A line of the tail: the logs scrolled to it, marked.
    const line = evidence(page).getByRole('link', { name: /Line \d+ of push: \[stdout\] pushing with \*\*\*/ });
    const n = Number(/Line (\d+)/.exec((await line.getAttribute('aria-label'))!)![1]);
    await line.click();
    await page.waitForURL((u) => u.searchParams.get('log')?.endsWith(`:${n}`) === true && u.searchParams.get('task') === 'push');
    const marked = page.getByRole('log', { name: 'Log lines' }).locator('.log-line.marked');
    await marked.waitFor();
    assert.match(await marked.innerText(), /push\s+pushing with \*\*\*/);
    assert.equal(await marked.getAttribute('aria-current'), 'true');
    assert.ok(await marked.isVisible(), 'the marked line is on screen');
    await shot(page, 'ai-triage-log-line');

    // The last success.
    await evidence(page)
      .getByRole('link', { name: `Last success ${okId}` })
      .click();
    await page.getByRole('heading', { name: `Execution ${okId}` }).waitFor();
    assert.equal(await section(page).count(), 0, 'a successful execution has no triage section');
    assert.ok(!(await page.content()).includes(SECRET));
  });

  it('a viewer reads the triage but may not ask for one', async () => {
    const { page } = await newUser(ui.browser, ui.stack.url);
    await login(page, VIEWER, viewerTemp);
    await page.getByLabel('Current password').fill(viewerTemp);
    await page.getByLabel('New password', { exact: true }).fill('viewer password 1');
    await page.getByLabel('New password again').fill('viewer password 1');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.goto(`/executions/${failedId}`);
    await section(page).getByText(TRIAGE.summary).waitFor();
    const again = section(page).getByRole('button', { name: 'Triage again' });
    assert.equal(await again.isDisabled(), true);
    assert.equal(await again.getAttribute('title'), 'Needs the operator role (you are viewer)');
    await page.context().close();
  });
});
