// What the browser tests share: the Chromium that `npm test` started
// (scripts/browser.mjs, endpoint in SVC_TEST_BROWSER_WS), a context per user
// with a login helper, and screenshots saved under the test output
// (.test-data/screenshots/).
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

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

/** A fresh context (own cookies) on `baseURL`, a laptop-sized window. */
export async function newUser(browser: Browser, baseURL: string, theme: 'light' | 'dark' = 'light'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1440, height: 900 }, colorScheme: theme });
  context.setDefaultTimeout(20_000);
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
