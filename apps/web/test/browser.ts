// What the browser tests share: the Chromium that `npm test` started
// (scripts/browser.mjs, endpoint in SVC_TEST_BROWSER_WS), a context per user
// with a login helper, and screenshots saved under the test output
// (.test-data/screenshots/). startUi() gives a test file its own stack and a
// signed-in admin; the files run in parallel.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startStack, type Stack } from '../../../e2e/test/stack.ts';

/** Why browser tests cannot run here, or undefined when they can. */
export function browserSkipReason(): string | undefined {
  if (process.env.SVC_TEST_BROWSER_WS) return undefined;
  const reason = process.env.SVC_TEST_BROWSER_SKIP ?? 'no browser: run through `npm test`, which starts Chromium';
  process.stderr.write(`\n!! BROWSER TESTS SKIPPED: ${reason}\n\n`);
  return reason;
}

export function connect(): Promise<Browser> {
  return chromium.connect(process.env.SVC_TEST_BROWSER_WS!, { timeout: 30_000 });
}

export const screenshotDir = path.join(process.env.SVC_TEST_DATA_DIR ?? path.resolve('.test-data'), 'screenshots');

export async function shot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

/**
 * Content-Security-Policy violations seen by any page of this test file's
 * contexts (the gateway serves the UI with a strict policy): each
 * `securitypolicyviolation` event and each console message about the policy.
 * startUi's stop() fails the file when there is one.
 */
export const cspViolations: string[] = [];

/** Records the CSP violations of every page of `context` into cspViolations. */
export async function watchCsp(context: BrowserContext): Promise<void> {
  await context.exposeBinding('__svcCspViolation', ({ page }, text: string) => void cspViolations.push(`${page.url()}: ${text}`));
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { __svcCspViolation(t: string): void }).__svcCspViolation;
      report(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  context.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(`${m.page()?.url() ?? '?'}: console: ${m.text()}`);
  });
}

/** A fresh context (own cookies) on `baseURL`, a laptop-sized window, its CSP violations watched. */
export async function newUser(browser: Browser, baseURL: string, theme: 'light' | 'dark' = 'light'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1440, height: 900 }, colorScheme: theme });
  context.setDefaultTimeout(20_000);
  await watchCsp(context);
  const page = await context.newPage();
  return { context, page };
}

/** Signs in through the login form. */
export async function login(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A stack, the browser, and an admin signed in on the dashboard: what each browser test file starts with. */
export interface Ui {
  stack: Stack;
  browser: Browser;
  admin: Page;
  stop(): Promise<void>;
}

export async function startUi(opts?: Parameters<typeof startStack>[0]): Promise<Ui> {
  const [stack, browser] = await Promise.all([startStack(opts), connect()]);
  const { page: admin } = await newUser(browser, stack.url);
  // The confirm() dialogs of destructive actions (rotate, revert, delete) are answered yes.
  admin.on('dialog', (d) => void d.accept());
  await login(admin, 'e2e@example.com', 'e2e password 1');
  await admin.getByRole('heading', { name: 'Dashboard' }).waitFor();
  return {
    stack,
    browser,
    admin,
    async stop() {
      await browser.close().catch(() => undefined);
      await stack.stop();
      if (cspViolations.length) throw new Error(`the UI broke its Content-Security-Policy:\n${cspViolations.join('\n')}`);
    },
  };
}

/** Waits (generously: the machine is loaded) until the execution page's state badge reads `state`. */
export async function waitState(page: Page, state: string, timeout = 60_000): Promise<void> {
  await page.waitForFunction((s) => document.querySelector('h1 + .badge')?.textContent === s, state, { timeout });
}

/** The current transform of the task graph's viewport: pan (x, y) and zoom. */
export async function graphViewport(page: Page): Promise<{ x: number; y: number; zoom: number }> {
  return page.locator('.react-flow__viewport').evaluate((el) => {
    const m = new DOMMatrixReadOnly(getComputedStyle(el).transform);
    return { x: m.e, y: m.f, zoom: m.a };
  });
}
