// The AI assistant in the browser: the header's Assistant button
// opens a panel that stays beside every page; a question is answered as it
// streams (the stand-in model holds its answer after the first piece, and
// the panel shows that piece alone, still answering); the tools the assistant
// called are listed with what they answered, a task's secret values masked
// (one masked by the engine as the task printed it, one made a secret only
// after the run, masked by the assistant); proposed actions wait for the
// user: a save shows the file's diff and, confirmed, changes the file; a
// trigger refused starts nothing; a cancel confirmed cancels the running
// execution, whose page the result links to. A reload reopens the panel and
// the conversation as stored, and the conversation list resumes an earlier
// one. The model is a local OpenAI-compatible stand-in over real HTTP; the
// gateway, PostgreSQL, the dispatcher and the tasks are real.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { startOpenAIStandin, type Answer, type Standin, type StandinRequest } from '../../../e2e/test/openai-standin.ts';
import { flow, sh } from '../../../e2e/test/engine-support.ts';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';
import { linesStored } from './ai-support.ts';

const skip = browserSkipReason();
const NS = 'aiui';
const SECRET = 'ui-sec-' + crypto.randomBytes(8).toString('hex');
const LATER = 'ui-later-' + crypto.randomBytes(8).toString('hex');
const ANSWER = 'The task leak exited with code 3 right after printing its token, which is masked in what I read.';
const A11Y_RULES = [
  'button-name',
  'link-name',
  'label',
  'select-name',
  'aria-input-field-name',
  'aria-command-name',
  'aria-allowed-attr',
  'aria-required-attr',
  'aria-roles',
  'aria-valid-attr',
  'aria-valid-attr-value',
  'aria-hidden-focus',
  'duplicate-id-aria',
  'nested-interactive',
  'scrollable-region-focusable',
];
const HELLO = flow({ id: 'hello', tasks: [{ id: 'greet', type: 'command', command: sh('echo hello') }] });
const HELLO_NEW = flow({
  id: 'hello',
  description: 'Greets twice',
  tasks: [
    { id: 'greet', type: 'command', command: sh('echo hello') },
    { id: 'again', type: 'command', depends_on: ['greet'], command: sh('echo hello again') },
  ],
});

describe('AI assistant panel', { skip, concurrency: false }, () => {
  let ui: Ui;
  let llm: Standin;
  let failedId = '';
  let slowId = '';
  /** Released by the test once it has seen the first piece of the streamed answer. */
  let release: () => void = () => undefined;
  let hold: Promise<void> = Promise.resolve();

  /** The stand-in model: tools by what the user asked, then a short answer. */
  function decide(r: StandinRequest): Answer {
    const msgs = r.body.messages;
    const asked = [...msgs].reverse().find((m) => m.role === 'user')?.content ?? '';
    const afterTools = msgs[msgs.length - 1]!.role === 'tool';
    if (/why did execution/.test(asked)) {
      return afterTools
        ? { text: ANSWER, hold }
        : {
            toolCalls: [
              { name: 'read_logs', arguments: { execution_id: failedId } },
              { name: 'get_execution', arguments: { execution_id: failedId } },
            ],
          };
    }
    if (/greet twice/.test(asked)) {
      return afterTools
        ? { text: 'I proposed the change to hello.flow.yaml; confirm it to save.' }
        : { toolCalls: [{ name: 'save_flow', arguments: { namespace: NS, path: 'hello.flow.yaml', content: HELLO_NEW, message: 'greet twice' } }] };
    }
    if (/run hello/.test(asked))
      return afterTools ? { text: 'Proposed a run of hello.' } : { toolCalls: [{ name: 'trigger_flow', arguments: { namespace: NS, flow_id: 'hello' } }] };
    if (/stop the slow/.test(asked)) return afterTools ? { text: 'Proposed to cancel it.' } : { toolCalls: [{ name: 'cancel_execution', arguments: { execution_id: slowId } }] };
    return { text: 'ok' };
  }

  before(async () => {
    llm = await startOpenAIStandin((r) => decide(r));
    ui = await startUi();
    const s = ui.stack;
    assert.equal((await s.api('POST', '/api/v1/namespaces', { name: NS })).status, 201);
    assert.equal((await s.api('PUT', `/api/v1/namespaces/${NS}/secrets/TOKEN`, { value: SECRET })).status, 200);
    await s.saveFlow(NS, {
      'hello.flow.yaml': HELLO,
      'slow.flow.yaml': flow({ id: 'slow', tasks: [{ id: 'wait', type: 'command', command: sh('sleep 120') }] }),
      'leak.flow.yaml': flow({
        id: 'leak',
        inputs: [{ id: 'l', type: 'string' }],
        tasks: [
          {
            id: 'leak',
            type: 'command',
            env: { S: "{{ secret('TOKEN') }}", L: '{{ inputs.l }}' },
            command: sh('echo "token $S"; echo "later $L"; echo "failing with $L" >&2; exit 3'),
          },
        ],
      }),
    });
    const e = await s.trigger(NS, 'leak', { inputs: { l: LATER } });
    failedId = e.id;
    assert.equal((await s.waitEnded(failedId, 120_000)).state, 'FAILED');
    await linesStored(s, failedId, 3);
    // Made a secret after the run: the stored lines still hold it; only the assistant's masking hides it.
    assert.equal((await s.api('PUT', '/api/v1/secrets/LATER', { value: LATER })).status, 200);
  });
  after(async () => {
    await ui?.stop();
    await llm?.close();
  });

  const panel = (page: Page) => page.getByRole('complementary', { name: 'AI assistant' });
  const toggle = (page: Page) => page.getByRole('button', { name: 'Assistant', exact: true });
  const thread = (page: Page) => panel(page).getByRole('log', { name: 'Conversation' });
  const action = (page: Page, summary: RegExp): Locator => panel(page).getByRole('region', { name: summary });
  async function ask(page: Page, text: string) {
    await panel(page).getByLabel('Message').fill(text);
    await panel(page).getByRole('button', { name: 'Send' }).click();
  }
  /** axe-core's naming and ARIA rules (those of ui-accessibility) on the panel: none broken. */
  async function accessible(page: Page) {
    const r = await new AxeBuilder({ page: page as never }).include('#ai-panel').withRules(A11Y_RULES).analyze();
    assert.deepEqual(
      r.violations.flatMap((v) => v.nodes.map((n) => `${v.id} at ${n.target.join(' ')}`)),
      [],
    );
  }
  /** Nothing on the page, visible or not, holds a secret value. */
  async function noSecret(page: Page) {
    const html = await page.content();
    assert.ok(!html.includes(SECRET), 'the task secret is on the page');
    assert.ok(!html.includes(LATER), 'the later secret is on the page');
  }

  it('without a provider the panel says the assistant is off; with one it opens beside every page', async () => {
    const page = ui.admin;
    assert.equal(await toggle(page).getAttribute('aria-expanded'), 'false');
    await toggle(page).click();
    await panel(page).getByText('The assistant is off: no AI provider is configured.').waitFor();
    assert.ok(await panel(page).getByLabel('Message').isDisabled());
    await shot(page, 'ai-assistant-off');
    await panel(page).getByRole('button', { name: 'Close the assistant' }).click();
    assert.equal(await panel(page).count(), 0);
    assert.equal(await toggle(page).getAttribute('aria-expanded'), 'false');

    assert.equal((await ui.stack.api('PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-1', base_url: llm.url })).status, 200);
    await toggle(page).click();
    await panel(page).getByText('stand-in-1').waitFor();
    assert.ok(await panel(page).getByLabel('Message').isEnabled());
    // On every page of the navigation, the panel stays open.
    for (const [link, heading] of [
      ['Executions', 'Executions'],
      ['Flows', 'Flows'],
      ['Dashboard', 'Dashboard'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
      await page.getByRole('heading', { name: heading, exact: true }).first().waitFor();
      assert.equal(await panel(page).count(), 1, `the panel on ${link}`);
    }
  });

  it('an answer streams in as it arrives, after the tools it called, and no secret value is shown', async () => {
    const page = ui.admin;
    hold = new Promise<void>((r) => (release = r));
    await ask(page, `why did execution ${failedId} fail?`);
    // The first piece, alone, while the turn still runs.
    const answer = thread(page).locator('[data-kind=assistant]').last();
    await answer.getByText(ANSWER.slice(0, 12)).waitFor();
    assert.equal(await answer.getAttribute('aria-busy'), 'true');
    assert.ok(!(await answer.innerText()).includes(ANSWER.slice(12, 30)), 'the rest has not arrived');
    await panel(page).getByRole('status').getByText('Answering…').waitFor();
    assert.equal(await panel(page).getByRole('button', { name: 'Stop' }).count(), 1);
    await shot(page, 'ai-assistant-streaming');
    release();
    await thread(page).getByText(ANSWER).waitFor();
    // The turn's `end` ends the streaming.
    await panel(page).getByRole('button', { name: 'Send' }).waitFor();
    assert.equal(await answer.getAttribute('aria-busy'), 'false');

    // The user's question, then the two tools with what they answered, then the answer.
    const kinds = await thread(page)
      .locator('[data-kind]')
      .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.kind));
    assert.deepEqual(kinds, ['user', 'tool', 'tool', 'assistant']);
    const tools = thread(page).locator('[data-kind=tool]');
    assert.match(await tools.nth(0).locator('summary').innerText(), new RegExp(`✓ Called read_logs execution_id: ${failedId}`));
    assert.match(await tools.nth(1).locator('summary').innerText(), /Called get_execution/);
    await tools.nth(0).locator('summary').click();
    const logs = await tools.nth(0).getByLabel('What read_logs answered').innerText();
    assert.match(logs, /token \*\*\*/, 'the line the task printed, masked by the engine');
    assert.match(logs, /later \*\*\*/, 'the line stored unmasked, masked by the assistant');
    await shot(page, 'ai-assistant-tools');
    await noSecret(page);
  });

  it('a proposed save shows the diff of the file and, confirmed, saves it', async () => {
    const page = ui.admin;
    await ask(page, 'make hello greet twice');
    const save = action(page, /Proposed action: Save hello\.flow\.yaml in namespace aiui: greet twice/);
    await save.waitFor();
    await save.getByRole('status').getByText('Waiting for your decision').waitFor();
    const diff = save.getByRole('table', { name: 'Differences between hello.flow.yaml now and proposed' });
    await diff.waitFor();
    assert.ok(await diff.locator('td.add', { hasText: '"description": "Greets twice"' }).count(), 'the added line');
    assert.ok(await diff.locator('td.add', { hasText: 'echo hello again' }).count());
    await thread(page).getByText('I proposed the change to hello.flow.yaml; confirm it to save.').waitFor();
    await shot(page, 'ai-assistant-save-diff');
    // Nothing is saved before the user confirms.
    const before = await ui.stack.api('GET', `/api/v1/namespaces/${NS}/file?path=hello.flow.yaml`);
    assert.equal(before.body.content, HELLO, JSON.stringify(before.body).slice(0, 200));

    await save.getByRole('button', { name: 'Confirm' }).click();
    await save.getByRole('status').getByText('Done').waitFor();
    assert.equal(await save.getByRole('button', { name: 'Confirm' }).count(), 0);
    await save.getByRole('link', { name: 'open hello.flow.yaml in the editor' }).waitFor();
    const saved = await ui.stack.api('GET', `/api/v1/namespaces/${NS}/file?path=hello.flow.yaml`);
    assert.equal(saved.body.content, HELLO_NEW);
  });

  it('a proposed trigger refused starts nothing; a proposed cancel confirmed cancels, and links to the execution', async () => {
    const page = ui.admin;
    await ask(page, 'run hello');
    const run = action(page, /Proposed action: Trigger aiui\/hello/);
    await run.getByRole('button', { name: 'Refuse' }).click();
    await run.getByRole('status').getByText('Refused').waitFor();
    assert.equal(await run.getByRole('button', { name: 'Confirm' }).count(), 0);
    const runs = await ui.stack.api('GET', `/api/v1/executions?namespace=${NS}&flow=hello`);
    assert.deepEqual(runs.body.items, [], 'a refused trigger starts nothing');

    const slow = await ui.stack.trigger(NS, 'slow');
    slowId = slow.id;
    await ui.stack.waitFor(slowId, (e) => e.state === 'RUNNING', 60_000);
    await ask(page, 'stop the slow one');
    const cancel = action(page, new RegExp(`Proposed action: Cancel execution ${slowId}`));
    await cancel.waitFor();
    await shot(page, 'ai-assistant-cancel-proposed');
    assert.equal((await ui.stack.api('GET', `/api/v1/executions/${slowId}`)).body.state, 'RUNNING', 'not cancelled before the user confirms');
    await cancel.getByRole('button', { name: 'Confirm' }).click();
    await cancel.getByRole('status').getByText('Done').waitFor();
    await ui.stack.waitFor(slowId, (e) => e.state === 'CANCELLED', 60_000);
    await cancel.getByRole('link', { name: slowId }).click();
    await page.waitForURL(`**/executions/${slowId}`);
    await page.getByRole('heading', { name: `Execution ${slowId}` }).waitFor();
    assert.equal(await panel(page).count(), 1, 'the panel stays open on the execution page');
    await shot(page, 'ai-assistant-cancelled');
  });

  it('after a reload the panel reopens the conversation as stored; the list resumes an earlier one', async () => {
    const page = ui.admin;
    await page.reload();
    await thread(page).getByText(ANSWER).waitFor();
    // The stored conversation reads as it streamed: questions, tools, answers, and the decided actions.
    const kinds = await thread(page)
      .locator('[data-kind]')
      .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.kind));
    assert.deepEqual(kinds, [
      'user',
      'tool',
      'tool',
      'assistant',
      'user',
      'tool',
      'action',
      'assistant',
      'user',
      'tool',
      'action',
      'assistant',
      'user',
      'tool',
      'action',
      'assistant',
    ]);
    await action(page, /Save hello\.flow\.yaml/)
      .getByRole('status')
      .getByText('Done')
      .waitFor();
    await action(page, /Trigger aiui\/hello/)
      .getByRole('status')
      .getByText('Refused')
      .waitFor();
    await action(page, /Cancel execution/)
      .getByRole('status')
      .getByText('Done')
      .waitFor();
    await action(page, /Save hello\.flow\.yaml/)
      .getByRole('table', { name: /Differences between hello\.flow\.yaml/ })
      .waitFor();
    await thread(page).locator('[data-kind=tool]').first().locator('summary').click();
    assert.match(await thread(page).locator('[data-kind=tool]').first().locator('pre').innerText(), /token \*\*\*/);
    await noSecret(page);
    await accessible(page);

    // A new conversation; the earlier one is listed by its first question and comes back.
    const picker = panel(page).getByRole('combobox', { name: 'Conversation' });
    await panel(page).getByRole('button', { name: 'New', exact: true }).click();
    await thread(page)
      .getByText(/Ask about your flows and executions/)
      .waitFor();
    await ask(page, 'hello there');
    await thread(page).getByText('ok', { exact: true }).waitFor();
    await panel(page).getByRole('button', { name: 'Send' }).waitFor();
    // The list is read again once the turn ends.
    await picker.locator('option', { hasText: /^hello there · / }).waitFor({ state: 'attached' });
    const titles = await picker.locator('option').allInnerTexts();
    assert.equal(titles[0], 'New conversation');
    assert.match(titles[1]!, /^hello there · /, 'newest first');
    assert.match(titles[2]!, new RegExp(`^why did execution ${failedId} fail\\? · `));
    await shot(page, 'ai-assistant-conversations');
    await picker.selectOption({ label: titles[2]! });
    await thread(page).getByText(ANSWER).waitFor();
    assert.equal(await thread(page).getByText('hello there').count(), 0);

    // Deleting it leaves the other one.
    await panel(page).getByRole('button', { name: 'Delete this conversation' }).click();
    await thread(page)
      .getByText(/Ask about your flows and executions/)
      .waitFor();
    await page.waitForFunction(() => document.querySelectorAll('#ai-panel select option').length === 2);
    assert.match((await picker.locator('option').allInnerTexts())[1]!, /^hello there/);
    await noSecret(page);
  });
});
