// Settings › AI provider in the browser: an admin opens it from
// the settings tabs with nothing configured, fills in a local stand-in of the
// OpenAI chat completions API (apps/api-gateway/test/openai-standin.ts) and
// tests the connection before saving, saves, tests the saved settings after a
// reload, sees the gateway refuse to send the stored key to another endpoint
// and a failed connection explained, and removes the provider. The API key
// reaches the stand-in but is never on the page, in a field after the save,
// or in an API answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startOpenAIStandin, type Standin } from '../../../e2e/test/openai-standin.ts';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const KEY = 'sk-ui-test-Very-S3cret-4711';

describe('AI provider settings screen', { skip, concurrency: false }, () => {
  let ui: Ui;
  let llm: Standin;

  before(async () => {
    llm = await startOpenAIStandin(() => ({ text: 'ok' }));
    ui = await startUi({ maintenance: false, dispatchers: 0 });
  });
  after(async () => {
    await ui?.stop();
    await llm?.close();
  });

  const screen = (page: Page) => page.getByRole('region', { name: 'AI provider' });
  const form = (page: Page) => screen(page).getByRole('form', { name: 'AI provider settings' });
  /** The key is nowhere the user can see it: not in the page's text, not in any field. */
  const keyNowhere = async (page: Page) => {
    assert.ok(!(await page.locator('body').innerText()).includes(KEY), 'the key is not on the page');
    const inFields = await page.locator('input, textarea').evaluateAll((els, k) => els.filter((e) => (e as HTMLInputElement).value.includes(k)).length, KEY);
    assert.equal(inFields, 0, 'nor left in a field');
  };

  it('an admin tests unsaved settings against the stand-in, saves them, and the key is never shown', async () => {
    const page = ui.admin;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'AI provider' }).click();
    await screen(page).getByText('No AI provider is configured').waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/ai-provider');

    await form(page).getByLabel('Type').selectOption('openai_compatible');
    await form(page).getByLabel('Model').fill('stand-in-1');
    await form(page).getByLabel('Base URL').fill(llm.url);
    await form(page).getByLabel('API key', { exact: true }).fill(KEY);
    await form(page).getByRole('button', { name: 'Test connection' }).click();
    const result = screen(page).getByTestId('ai-provider-test');
    await result.getByText('Connection works').waitFor({ timeout: 60_000 });
    assert.match(await result.innerText(), /stand-in-1 answered “ok”/);
    assert.equal(llm.requests.length, 1);
    assert.equal(llm.requests[0]!.authorization, `Bearer ${KEY}`, 'the typed key went to the stand-in');
    assert.equal(llm.requests[0]!.body.model, 'stand-in-1');
    // A test saves nothing.
    assert.equal((await ui.stack.api('GET', '/api/v1/ai/provider')).status, 404);

    await form(page).getByRole('button', { name: 'Save' }).click();
    const status = screen(page).getByTestId('ai-provider-status');
    await status.getByText('stored (hidden)').waitFor();
    assert.ok((await status.innerText()).startsWith(`enabled openai_compatible · stand-in-1 at ${llm.url} · API key: stored (hidden) · updated `), await status.innerText());
    assert.equal(await form(page).getByLabel('API key', { exact: true }).inputValue(), '', 'the key field is cleared after the save');
    assert.equal(await form(page).getByLabel('API key', { exact: true }).getAttribute('placeholder'), 'stored (hidden); type to replace');
    await keyNowhere(page);
    const stored = await ui.stack.api('GET', '/api/v1/ai/provider');
    assert.equal(stored.body.has_api_key, true);
    assert.ok(!JSON.stringify(stored.body).includes(KEY));
    await shot(page, 'admin-ai-provider-saved');
  });

  it('after a reload the saved settings test with the stored key; another endpoint needs its own key', async () => {
    const page = ui.admin;
    await page.reload();
    await screen(page).getByTestId('ai-provider-status').getByText('stored (hidden)').waitFor();
    assert.equal(await form(page).getByLabel('Model').inputValue(), 'stand-in-1');
    assert.equal(await form(page).getByLabel('Base URL').inputValue(), llm.url);
    await form(page).getByRole('button', { name: 'Test connection' }).click();
    await screen(page).getByTestId('ai-provider-test').getByText('Connection works').waitFor({ timeout: 60_000 });
    assert.equal(llm.requests.at(-1)!.authorization, `Bearer ${KEY}`, 'the stored key was used');
    await keyNowhere(page);

    // Another endpoint without a key: the gateway will not send the stored key there.
    const dead = 'http://127.0.0.1:9/v1';
    await form(page).getByLabel('Base URL').fill(dead);
    await form(page).getByRole('button', { name: 'Test connection' }).click();
    const alert = screen(page).getByRole('alert');
    await alert.getByText(/the stored key is sent only to the stored base URL/).waitFor();
    assert.match(await alert.innerText(), /api_key/);
    assert.equal(await screen(page).getByTestId('ai-provider-test').count(), 0);

    // With a key of its own, the connection is tried and its failure explained.
    await form(page).getByLabel('API key', { exact: true }).fill('sk-other-key');
    await form(page).getByRole('button', { name: 'Test connection' }).click();
    const failed = screen(page).getByTestId('ai-provider-test');
    await failed.getByText('Connection failed').waitFor({ timeout: 90_000 });
    assert.ok((await failed.innerText()).length > 'Connection failed: '.length, 'the failure says what happened');
    await keyNowhere(page);
    await shot(page, 'admin-ai-provider-test-failed');
    // Nothing was saved by the tests.
    assert.equal((await ui.stack.api('GET', '/api/v1/ai/provider')).body.base_url, llm.url);
  });

  it('removing the provider disables the assistant', async () => {
    const page = ui.admin;
    await page.reload();
    await screen(page).getByRole('button', { name: 'Remove provider' }).click();
    await screen(page).getByText('No AI provider is configured').waitFor();
    assert.equal((await ui.stack.api('GET', '/api/v1/ai/status')).body.enabled, false);
    assert.equal(await form(page).getByLabel('API key', { exact: true }).getAttribute('placeholder'), 'not set');
  });
});
