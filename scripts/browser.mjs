// One headless Chromium for a test run (`npm test`) or a benchmark run
// (`npm run bench`): Debian's chromium, installed with apt-get when missing and
// we are root, started once with playwright-core's launchServer. Tests connect
// to its WebSocket endpoint (chromium.connect), each with a context of its own.
//
//   const browser = await startBrowser({ dir: '.test-data/browser' });
//   if (browser.ok) { use browser.wsEndpoint; await browser.stop(); }
//   else console.error(browser.reason);
//
// The flags are the ones that work on these machines (notes: section 8): no
// sandbox (we run as root), no GPU, and nothing that reaches out to Google's
// hosts on a closed network (background networking, component updates, sync,
// QUIC).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { aptInstall } from './apt-install.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

/** playwright-core, from the web app's dependencies (the only package that declares it). */
export async function loadPlaywright() {
  const require = createRequire(path.join(root, 'apps/web/package.json'));
  const mod = await import(require.resolve('playwright-core'));
  return mod.chromium ? mod : mod.default; // CommonJS: the named exports sit on default
}

/**
 * Installs (when needed and allowed) and starts Chromium.
 * @param {{ dir: string, log?: (m: string) => void, install?: boolean }} opts
 *   dir: where downloads land (emptied first; playwright makes a fresh profile of its own); install: apt-get chromium when missing and root (default true).
 */
export async function startBrowser({ dir, log = () => undefined, install = true }) {
  if (!fs.existsSync(CHROMIUM)) {
    const isRoot = process.getuid?.() === 0;
    if (!install || !isRoot)
      return { ok: false, reason: `${CHROMIUM} is missing and cannot be installed (${!isRoot ? 'not root' : 'install disabled'}): apt-get install chromium` };
    log('installing chromium with apt-get (about 30 s, once per machine)');
    const r = await aptInstall(['chromium']);
    if (!r.ok || !fs.existsSync(CHROMIUM)) return { ok: false, reason: `apt-get install chromium failed: ${r.output.trim().split('\n').slice(-3).join(' | ')}` };
  }
  let pw;
  try {
    pw = await loadPlaywright();
  } catch (err) {
    return { ok: false, reason: `playwright-core is not installed: ${err.message}` };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  try {
    const server = await pw.chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, downloadsPath: dir, timeout: 60_000 });
    log(`chromium listening at ${server.wsEndpoint()}`);
    return {
      ok: true,
      wsEndpoint: server.wsEndpoint(),
      async stop() {
        await server.close().catch(() => undefined);
      },
    };
  } catch (err) {
    return { ok: false, reason: `chromium did not start: ${String(err.message).split('\n').slice(0, 3).join(' | ')}` };
  }
}
