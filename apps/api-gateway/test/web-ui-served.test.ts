// The gateway serves the built web UI at `/`: hashed assets with a long cache,
// index.html (never cached) for every client route, and none of that for the
// API, hooks, MCP, health and metrics paths. Without a build it still starts
// and says on `/` that the UI was not built.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';

let gw: TestGateway;
let bare: TestGateway;
const uiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-'));

before(async () => {
  fs.mkdirSync(path.join(uiDir, 'assets'));
  fs.writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><div id="root"></div><script src="/assets/index-abc123.js"></script>');
  fs.writeFileSync(path.join(uiDir, 'assets', 'index-abc123.js'), 'console.log(1)');
  [gw, bare] = await Promise.all([startTestGateway({ uiDir }), startTestGateway()]);
});
after(async () => {
  await Promise.all([gw.close(), bare.close()]);
  fs.rmSync(uiDir, { recursive: true, force: true });
});

test('/ and client routes get index.html, revalidated on every load', async () => {
  for (const p of ['/', '/executions/01abc', '/flows/team.etl/daily', '/editor/team', '/editor/team.etl']) {
    const r = await fetch(`${gw.url}${p}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    assert.equal(r.status, 200, p);
    assert.match(r.headers.get('content-type') ?? '', /text\/html/);
    assert.equal(r.headers.get('cache-control'), 'no-cache');
    assert.match(await r.text(), /id="root"/, p);
  }
});

test('hashed assets are cached for a year, immutable', async () => {
  const r = await fetch(`${gw.url}/assets/index-abc123.js`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('cache-control') ?? '', /max-age=31536000/);
  assert.match(r.headers.get('cache-control') ?? '', /immutable/);
  assert.equal((await fetch(`${gw.url}/assets/gone-123.js`)).status, 404);
  assert.equal((await fetch(`${gw.url}/robots-nope.txt`)).status, 404, 'a missing file that is not a navigation');
});

test('API, hook, MCP, health and metrics paths never fall back to the UI', async () => {
  const api = await fetch(`${gw.url}/api/v1/nothing-here`);
  assert.equal(api.status, 404);
  assert.equal(((await api.json()) as { error: { code: string } }).error.code, 'not_found');
  for (const p of ['/hooks', '/mcp/x', '/api']) {
    const r = await fetch(`${gw.url}${p}`);
    assert.doesNotMatch(await r.text(), /id="root"/, p);
  }
  assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
  assert.match(await (await fetch(`${gw.url}/metrics`)).text(), /svc_http_request_duration_seconds/);
});

test('without a built UI the gateway starts and / says the UI was not built', async () => {
  const r = await fetch(`${bare.url}/`);
  assert.equal(r.status, 200);
  const html = await r.text();
  assert.match(html, /web UI was not built/);
  assert.match(html, /npm run build/);
  assert.equal((await fetch(`${bare.url}/healthz`)).status, 200);
});
