// Benchmark: the web UI's page loads, cold, in Debian's Chromium against a
// real deployment (gateway, dispatcher, maintenance; embedded PostgreSQL).
//
//   seed       a flow whose one task prints BENCH_LOG_LINES lines (default
//              10,000), run once; a flow printing 100,000 lines, run once; 20
//              quick runs so the dashboard has buckets, running list and
//              failures to draw.
//   dashboard  a new browser context per sample (empty HTTP cache, no service
//              worker: a cold load), from navigation start until the KPI tiles
//              and both charts are on screen: p50 / p95 of 10 samples after one
//              warm-up of the server. Target: under 1 s.
//   execution  the same for /executions/{id} of the 10,000-line run, until the
//              task graph is drawn and the log view says all 10,000 lines
//              arrived (streamed over SSE and rendered). Target: under 1 s.
//   100k       the 100,000-line run: time until every line arrived, then the
//              log view scrolled from top to bottom in 60 steps, one per
//              animation frame: p95 frame time while scrolling.
//   bundle     the built files of apps/web/dist/assets, raw and gzipped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { q, round } from './lib/logs-helpers.mjs';
import { root, startDeployment } from './lib/svc-deployment.mjs';

const { startPostgresKeeper } = await import(path.join(root, 'packages/db/dist/index.js'));
const { startBrowser, loadPlaywright } = await import(path.join(root, 'scripts/browser.mjs'));
const LINES = Number(process.env.BENCH_LOG_LINES ?? 10_000);
const SAMPLES = Number(process.env.BENCH_UI_SAMPLES ?? 10);

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50_ms: round(q(s, 0.5)), p95_ms: round(q(s, 0.95)), max_ms: round(s[s.length - 1]) };
};

function bundle() {
  const dir = path.join(root, 'apps/web/dist/assets');
  const files = fs.readdirSync(dir).map((f) => {
    const buf = fs.readFileSync(path.join(dir, f));
    return { file: f, bytes: buf.length, gzip_bytes: zlib.gzipSync(buf).length };
  });
  const index = fs.readFileSync(path.join(root, 'apps/web/dist/index.html'), 'utf8');
  // What the first page load fetches: the entry script and stylesheet index.html names.
  const initial = files.filter((f) => index.includes(f.file));
  const sum = (xs, k) => xs.reduce((t, f) => t + f[k], 0);
  return {
    files,
    initial_bytes: sum(initial, 'bytes'),
    initial_gzip_bytes: sum(initial, 'gzip_bytes'),
    total_bytes: sum(files, 'bytes'),
    total_gzip_bytes: sum(files, 'gzip_bytes'),
  };
}

async function waitEnded(d, id) {
  for (let i = 0; i < 1200; i++) {
    const e = (await d.api('GET', `/api/v1/executions/${id}`)).body;
    if (['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'].includes(e.state)) return e;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`execution ${id} did not end`);
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-ui-'));
  fs.chmodSync(dir, 0o755);
  const stops = [];
  try {
    const cluster = await startPostgresKeeper(path.join(dir, 'pg'), { database: 'svc', ephemeral: true, stdio: 'ignore' });
    stops.unshift(() => cluster.stop());
    const [d, browser] = await Promise.all([startDeployment({ url: cluster.url, dir: path.join(dir, 'svc') }), startBrowser({ dir: path.join(dir, 'browser') })]);
    stops.unshift(() => d.stop());
    if (!browser.ok) throw new Error(`no browser: ${browser.reason}`);
    stops.unshift(() => browser.stop());
    const flow = (id, cmd) =>
      JSON.stringify({
        id,
        tasks: [
          { id: 'print', type: 'command', command: ['sh', '-c', cmd] },
          { id: 'after', type: 'command', depends_on: ['print'], command: ['true'] },
        ],
      });
    await d.saveFlows('bench', {
      'logs.flow.yaml': flow('logs', `seq 1 ${LINES} | sed 's/^/log line number /'`),
      'big.flow.yaml': flow('big', `seq 1 100000 | sed 's/^/log line number /'`),
      'quick.flow.yaml': flow('quick', 'true'),
      'fails.flow.yaml': flow('fails', 'exit 1'),
    });
    const logs = (await d.trigger('bench', 'logs')).id;
    const big = (await d.trigger('bench', 'big')).id;
    for (let i = 0; i < 20; i++) await d.trigger('bench', i % 5 === 0 ? 'fails' : 'quick');
    await waitEnded(d, logs);
    await waitEnded(d, big);

    const { chromium } = await loadPlaywright();
    const b = await chromium.connect(browser.wsEndpoint);
    stops.unshift(() => b.close());
    // Sign in once; each sample's context starts from these cookies and nothing else.
    const login = await fetch(`${d.base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench password 1' }),
    });
    const session = /svc_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')[1];
    const cold = async (fn) => {
      const context = await b.newContext({ viewport: { width: 1440, height: 900 } });
      await context.addCookies([{ name: 'svc_session', value: session, url: d.base }]);
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      try {
        return await fn(page);
      } finally {
        await context.close();
      }
    };
    const measure = async (url, ready) => {
      const times = [];
      for (let i = 0; i <= SAMPLES; i++) {
        const ms = await cold(async (page) => {
          const t = performance.now();
          await page.goto(`${d.base}${url}`, { waitUntil: 'commit' });
          await ready(page);
          return performance.now() - t;
        });
        if (i > 0) times.push(ms); // the first warms the server, not the browser
      }
      return stats(times);
    };
    const dashboard = await measure('/', async (page) => {
      await page.getByTestId('kpis').waitFor();
      await page.locator('figure.chart').nth(1).waitFor();
    });
    const execution = await measure(`/executions/${logs}`, async (page) => {
      await page.getByRole('button', { name: /^Task after:/ }).waitFor();
      await page
        .getByTestId('log-status')
        .getByText(`${LINES.toLocaleString('en-US')} lines · ended`)
        .waitFor();
    });
    const hundredK = await cold(async (page) => {
      const t = performance.now();
      await page.goto(`${d.base}/executions/${big}`, { waitUntil: 'commit' });
      await page.getByTestId('log-status').getByText('100,000 lines · ended').waitFor({ timeout: 120_000 });
      const loaded = performance.now() - t;
      const frames = await page.evaluate(async () => {
        const el = document.querySelector('.log-view');
        const out = [];
        let last = performance.now();
        for (let i = 1; i <= 60; i++) {
          el.scrollTop = (el.scrollHeight * i) / 60;
          await new Promise((r) => requestAnimationFrame(() => r(undefined)));
          const now = performance.now();
          out.push(now - last);
          last = now;
        }
        return { frames: out, rows_in_dom: document.querySelectorAll('.log-line').length };
      });
      return { all_lines_ms: round(loaded), scroll_frame: stats(frames.frames), rows_in_dom: frames.rows_in_dom };
    });
    return { log_lines: LINES, samples: SAMPLES, dashboard_interactive: dashboard, execution_page_interactive: execution, execution_100k_lines: hundredK, bundle: bundle() };
  } finally {
    for (const s of stops) await s().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
