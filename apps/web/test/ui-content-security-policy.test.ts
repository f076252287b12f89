// The UI works under the gateway's strict Content-Security-Policy (no inline
// script, styles from files): the page is served with the policy, the theme
// is set before the first paint by /theme.js (it was an inline script, which
// the policy would block), the editor (CodeMirror) and the flow graph render,
// and no page logs a violation. An inline script injected into the page is
// refused and reported, which shows the watcher sees violations.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, cspViolations, newUser, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'csp.demo';
const FLOW = `id: graph
tasks:
  - id: a
    type: command
    command: ["true"]
  - id: b
    type: command
    depends_on: [a]
    command: ["true"]
`;

describe('the UI under its Content-Security-Policy', { skip, concurrency: false }, () => {
  let ui: Ui;
  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, { 'graph.flow.yaml': FLOW });
  });
  after(async () => ui?.stop());

  it('serves the page with a policy that allows no inline script', async () => {
    const r = await ui.admin.goto('/');
    const csp = (await r!.allHeaders())['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    await ui.admin.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });

  it('sets the theme before the app from /theme.js, light and dark', async () => {
    assert.equal(await ui.admin.evaluate(() => document.documentElement.dataset.theme), 'light');
    const { context, page } = await newUser(ui.browser, ui.stack.url, 'dark');
    // Before the app's module runs: the attribute is there as soon as <head> was parsed.
    await page.route('**/assets/*.js', (route) => route.abort());
    await page.goto('/');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await context.close();
    // The aborted module is a failed load, not a policy violation.
  });

  it('renders the editor and the flow graph without a violation', async () => {
    const page = ui.admin;
    await page.goto(`/editor/${NS}?file=graph.flow.yaml`);
    await page.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('depends_on'));
    const exec = await ui.stack.trigger(NS, 'graph');
    await page.goto(`/executions/${exec.id}`);
    await page.getByTestId('task-graph').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.react-flow__node').length === 2);
    assert.deepEqual(cspViolations, []);
  });

  it('refuses and reports an inline script injected into the page', async () => {
    const page = ui.admin;
    const ran = await page.evaluate(async () => {
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true';
      document.body.append(s);
      await new Promise((r) => setTimeout(r, 200));
      return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
    });
    assert.equal(ran, false, 'the inline script did not run');
    const deadline = Date.now() + 5_000;
    while (!cspViolations.some((v) => v.includes('script-src')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(
      cspViolations.some((v) => v.includes('script-src')),
      JSON.stringify(cspViolations),
    );
    // Expected: not a failure of the UI.
    cspViolations.length = 0;
  });
});
