// Accessible names on every control and use on a laptop screen: every page
// of the UI, in the light and the dark theme, at 1366×768 (the most common
// laptop screen), is checked with axe-core for controls, links, fields,
// images and frames without an accessible name and for broken ARIA, and for
// content wider than the window (a horizontal scroll bar of the page).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { browserSkipReason, login, shot, startUi, waitState, watchCsp, type Ui } from './browser.ts';

const skip = browserSkipReason();

/** The main navigation's paths and the Settings tabs, read from the UI's own sources, so a new page or tab is checked without editing this list. */
const src = (file: string) => fs.readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
const NAV_PATHS = [
  ...src('App.tsx')
    .slice(src('App.tsx').indexOf('const NAV'))
    .split('];')[0]!
    .matchAll(/to: '([^']+)'/g),
].map((m) => m[1]!);
const SETTINGS_TABS = [
  ...src('pages/admin/Admin.tsx')
    .slice(src('pages/admin/Admin.tsx').indexOf('const TABS'))
    .split('];')[0]!
    .matchAll(/id: '([^']+)'/g),
].map((m) => m[1]!);
const NS = 'web.a11y';

/** axe-core rules about names and ARIA: what "an accessible name on every control" means. */
const RULES = [
  'button-name',
  'link-name',
  'label',
  'select-name',
  'input-button-name',
  'input-image-alt',
  'image-alt',
  'svg-img-alt',
  'role-img-alt',
  'aria-input-field-name',
  'aria-toggle-field-name',
  'aria-command-name',
  'aria-meter-name',
  'aria-progressbar-name',
  'aria-tooltip-name',
  'aria-dialog-name',
  'aria-allowed-attr',
  'aria-required-attr',
  'aria-roles',
  'aria-valid-attr',
  'aria-valid-attr-value',
  'aria-hidden-focus',
  'frame-title',
  'document-title',
  'duplicate-id-aria',
  'nested-interactive',
  'scrollable-region-focusable',
];

/** axe-core's own script, as @axe-core/playwright injects it. */
const AXE_SOURCE = fs.readFileSync(createRequire(createRequire(import.meta.url).resolve('@axe-core/playwright')).resolve('axe-core/axe.min.js'), 'utf8');
type AxeResults = { violations: { id: string; help: string; nodes: { target: string[]; html: string }[] }[] };

/**
 * Goes to `url` as the UI's own links do (apps/web/src/router.tsx), without
 * loading the page again: axe-core, injected once, stays (injecting its
 * 550 kB for each page took most of this file's minutes).
 */
const go = (page: Page, url: string) =>
  page.evaluate((to) => {
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, url);

/**
 * A wait for the page's requests to settle, as networkidle does after a load
 * (which a page reached without loading does not wait for): no request of the
 * page's (its live streams aside) in flight for 300 ms, 10 s at most.
 */
function settling(page: Page): () => Promise<void> {
  const open = new Set<Request>();
  const live = (r: Request) => (r.headers()['accept'] ?? '').includes('text/event-stream') || new URL(r.url()).pathname.endsWith('/stream');
  page.on('request', (r) => void (live(r) || open.add(r)));
  page.on('requestfinished', (r) => void open.delete(r));
  page.on('requestfailed', (r) => void open.delete(r));
  return async () => {
    let quietSince = Date.now();
    for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      if (open.size) quietSince = Date.now();
      else if (Date.now() - quietSince >= 300) return;
    }
  };
}

async function check(page: Page, what: string): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const r = (await page.evaluate(
    (rules) =>
      (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<unknown> } }).axe.run(document, {
        runOnly: { type: 'rule', values: rules },
        resultTypes: ['violations'],
      }),
    RULES,
  )) as AxeResults;
  const problems = r.violations.flatMap((v) =>
    v.nodes
      // CodeMirror's scroller is not itself focusable, but the editable content inside it is, and the
      // cursor scrolls it: keyboard users reach all of it (axe does not count contenteditable as focusable).
      .filter((n) => !(v.id === 'scrollable-region-focusable' && n.target.join(' ') === '.cm-scroller'))
      .map((n) => `${what}: ${v.id} (${v.help}) at ${n.target.join(' ')}: ${n.html.slice(0, 160)}`),
  );
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 1) problems.push(`${what}: the page is ${overflow} px wider than a 1366 px window`);
  return problems;
}

describe('accessibility on a laptop screen', { skip, concurrency: false }, () => {
  let ui: Ui;
  let executionId = '';

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, {
      'report.flow.yaml': [
        'id: report',
        'description: Builds the daily report',
        'inputs: [{id: day, type: string, default: today}, {id: level, type: select, values: [low, high], default: low}]',
        'triggers: [{id: nightly, type: schedule, cron: "0 3 * * *"}, {id: hook, type: webhook}]',
        'tasks:',
        '  - {id: fetch, type: command, command: ["sh", "-c", "echo fetched; echo \'{\\"outputs\\": {\\"rows\\": 3}}\' >> \\"$SVC_OUTPUTS\\""]}',
        '  - {id: build, type: command, depends_on: [fetch], command: ["sh", "-c", "echo built > \\"$SVC_ARTIFACTS_DIR/report.txt\\""]}',
        '',
      ].join('\n'),
      'scripts/clean.py': 'print("clean")\n',
    });
    const e = await ui.stack.trigger(NS, 'report');
    executionId = e.id;
    await ui.stack.waitEnded(e.id, 60_000);
  });
  after(async () => ui?.stop());

  for (const theme of ['light', 'dark'] as const) {
    it(`every page in the ${theme} theme: every control named, valid ARIA, nothing wider than the window`, async () => {
      const context = await ui.browser.newContext({ baseURL: ui.stack.url, viewport: { width: 1366, height: 768 }, colorScheme: theme });
      await watchCsp(context);
      context.setDefaultTimeout(30_000);
      const page = await context.newPage();
      const settled = settling(page);
      const problems: string[] = [];
      try {
        await page.goto('/');
        await page.getByRole('button', { name: 'Sign in' }).waitFor();
        problems.push(...(await check(page, 'login')));
        await login(page, 'e2e@example.com', 'e2e password 1');
        await page.getByRole('heading', { name: 'Dashboard' }).waitFor();

        const pages: [string, string, (p: Page) => Promise<unknown>][] = [
          ['dashboard', '/', (p) => p.getByRole('heading', { name: 'Dashboard' }).waitFor()],
          ['executions', '/executions', (p) => p.getByRole('link', { name: executionId }).first().waitFor()],
          ['execution', `/executions/${executionId}`, (p) => waitState(p, 'SUCCESS')],
          ['flows', '/flows', (p) => p.getByRole('link', { name: 'report' }).first().waitFor()],
          ['flow', `/flows/${NS}/report`, (p) => p.getByText('Builds the daily report').first().waitFor()],
          ['editor', `/editor/${NS}`, (p) => p.getByText('report.flow.yaml').first().waitFor()],
          ['profile', '/profile', (p) => p.getByRole('heading', { name: 'Profile' }).waitFor()],
          ['alerts', '/alerts', (p) => p.getByRole('heading', { name: 'Alert rules' }).waitFor()],
          ...SETTINGS_TABS.map(
            (tab) =>
              [`settings ${tab}`, `/admin/${tab}`, (p: Page) => p.locator(`nav[aria-label="Settings sections"] a[aria-current="page"][href="/admin/${tab}"]`).waitFor()] as [
                string,
                string,
                (p: Page) => Promise<unknown>,
              ],
          ),
        ];
        // Every page of the main navigation is among them (Settings through its tabs, the editor on a namespace).
        assert.ok(SETTINGS_TABS.length >= 10 && NAV_PATHS.length >= 6, `read the navigation: ${NAV_PATHS.join(', ')}; tabs: ${SETTINGS_TABS.join(', ')}`);
        for (const to of NAV_PATHS)
          assert.ok(
            pages.some(([, url]) => url === to || url.startsWith(`${to}/`)),
            `the navigation's ${to} is checked`,
          );
        for (const [what, url, ready] of pages) {
          await go(page, url);
          await ready(page);
          // Let lazy parts (charts, the graph, the code editor) settle.
          await settled();
          problems.push(...(await check(page, what)));
        }
        // The editor with a file open, and the execution page's other tabs.
        await go(page, `/editor/${NS}`);
        await page.getByText('report.flow.yaml').first().click();
        await page.locator('.cm-editor').first().waitFor();
        problems.push(...(await check(page, 'editor with a file open')));
        await go(page, `/executions/${executionId}`);
        await waitState(page, 'SUCCESS');
        for (const tab of ['Outputs', 'Files', 'Metrics', 'Inputs & labels']) {
          await page.getByRole('tab', { name: tab, exact: true }).click();
          problems.push(...(await check(page, `execution tab ${tab}`)));
        }
        await shot(page, `a11y-${theme}-execution`);
      } finally {
        await context.close();
      }
      assert.deepEqual(problems, [], problems.join('\n'));
    });
  }
});
