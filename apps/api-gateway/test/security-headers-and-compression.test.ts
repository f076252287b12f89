// Browser security headers and compression (security-headers.ts): the UI's
// HTML and files carry the UI's strict Content-Security-Policy, API responses
// a policy that loads nothing; every response has nosniff, no framing and a
// Referrer-Policy; JavaScript is gzip when the client accepts it; an event
// stream is never compressed and its events arrive as they are written.
// Before helmet and compression none of these headers was sent and the UI's
// JavaScript went out uncompressed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { saveFlow, SseClient, startLiveGateway, trigger, type LiveGateway } from './live-helpers.js';

let gw: TestGateway;
let live: LiveGateway;
const uiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-'));
const js = `export const words = ${JSON.stringify('lorem ipsum dolor sit amet '.repeat(400))};\n`;

before(async () => {
  fs.mkdirSync(path.join(uiDir, 'assets'));
  fs.writeFileSync(
    path.join(uiDir, 'index.html'),
    '<!doctype html><html><head></head><script src="/theme.js"></script><div id="root"></div><script type="module" src="/assets/index-abc123.js"></script>',
  );
  fs.writeFileSync(path.join(uiDir, 'assets', 'index-abc123.js'), js);
  fs.writeFileSync(path.join(uiDir, 'theme.js'), 'document.documentElement.dataset.theme = "light";\n');
  [gw, live] = await Promise.all([startTestGateway({ uiDir }), startLiveGateway()]);
  await saveFlow(live, 'hdr', { id: 'one', tasks: [{ id: 't', type: 'command', command: ['true'] }] });
});
after(async () => {
  await Promise.all([gw?.close(), live?.close()]);
  fs.rmSync(uiDir, { recursive: true, force: true });
});

/** A GET over node:http (no automatic decompression): status, headers and the raw bytes. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | string[] | undefined): Map<string, string> {
  assert.ok(typeof header === 'string' && header, 'a Content-Security-Policy header');
  return new Map(
    header
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...values] = d.split(/\s+/);
        return [name!, values.join(' ')] as const;
      }),
  );
}

function assertCommonHeaders(h: http.IncomingHttpHeaders, what: string): void {
  assert.equal(h['x-content-type-options'], 'nosniff', what);
  assert.equal(h['x-frame-options'], 'DENY', what);
  assert.equal(h['referrer-policy'], 'no-referrer', what);
  assert.equal(h['x-powered-by'], undefined, what);
  assert.equal(h['strict-transport-security'], undefined, `${what}: HSTS is the TLS proxy's`);
}

function assertUiCsp(h: http.IncomingHttpHeaders, what: string): void {
  const d = directives(h['content-security-policy']);
  assert.equal(d.get('default-src'), "'self'", what);
  assert.equal(d.get('script-src'), "'self'", `${what}: no inline script, no eval`);
  assert.match(d.get('style-src') ?? '', /^'self' 'nonce-[A-Za-z0-9+/]{22}=='$/, `${what}: inline <style> only with the nonce`);
  assert.equal(d.get('style-src-attr'), "'unsafe-inline'", what);
  assert.equal(d.get('img-src'), "'self' data:", what);
  assert.equal(d.get('connect-src'), "'self'", what);
  assert.equal(d.get('frame-ancestors'), "'none'", what);
  assert.equal(d.get('object-src'), "'none'", what);
  assert.equal(d.get('base-uri'), "'self'", what);
  assert.equal(d.get('form-action'), "'self'", what);
}

test('the UI page, a client route, an asset and a root file carry the UI policy and the common headers', async () => {
  for (const p of ['/', '/executions/01abc', '/assets/index-abc123.js', '/theme.js']) {
    const r = await get(`${gw.url}${p}`, { accept: p.endsWith('.js') ? '*/*' : 'text/html' });
    assert.equal(r.status, 200, p);
    assertUiCsp(r.headers, p);
    assertCommonHeaders(r.headers, p);
  }
});

test('each page gets its own style nonce, in the policy and in index.html for the UI to hand to CodeMirror', async () => {
  const nonces = [];
  for (let i = 0; i < 2; i++) {
    const r = await get(`${gw.url}/`, { accept: 'text/html' });
    const nonce = /'nonce-([^']+)'/.exec(directives(r.headers['content-security-policy']).get('style-src') ?? '')![1]!;
    assert.ok(r.body.toString('utf8').includes(`<head><meta name="csp-nonce" content="${nonce}">`), r.body.toString('utf8'));
    nonces.push(nonce);
  }
  assert.notEqual(nonces[0], nonces[1]);
});

test('API responses carry a policy that loads nothing, and the common headers', async () => {
  for (const p of ['/api/v1/nothing-here', '/api/v1/schemas/flow.json', '/healthz', '/hooks/git/nope']) {
    const r = await get(`${gw.url}${p}`);
    const d = directives(r.headers['content-security-policy']);
    assert.equal(d.get('default-src'), "'none'", p);
    assert.equal(d.get('frame-ancestors'), "'none'", p);
    assertCommonHeaders(r.headers, p);
  }
});

test('JavaScript is gzip when the client accepts it, and plain when it does not', async () => {
  const gz = await get(`${gw.url}/assets/index-abc123.js`, { 'accept-encoding': 'gzip' });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.match(String(gz.headers.vary), /Accept-Encoding/i);
  assert.ok(gz.body.length < js.length / 4, `${gz.body.length} bytes for ${js.length}`);
  assert.equal(zlib.gunzipSync(gz.body).toString('utf8'), js);
  const plain = await get(`${gw.url}/assets/index-abc123.js`, { 'accept-encoding': 'identity' });
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.body.toString('utf8'), js);
});

test('only text is compressed: the flow schema (JSON) is, an artifact-like octet stream is not', async () => {
  const json = await get(`${gw.url}/api/v1/schemas/flow.json`, { 'accept-encoding': 'gzip' });
  assert.equal(json.headers['content-encoding'], 'gzip');
  const { compressible } = await import('../src/security-headers.js');
  const res = (type: string) => ({ getHeader: (n: string) => (n.toLowerCase() === 'content-type' ? type : undefined) }) as never;
  const req = { headers: { 'accept-encoding': 'gzip' } } as never;
  for (const type of ['application/octet-stream', 'image/png', 'application/zip', 'text/event-stream', 'text/event-stream; charset=utf-8'])
    assert.equal(compressible(req, res(type)), false, type);
  for (const type of ['text/html; charset=utf-8', 'text/javascript', 'application/json; charset=utf-8', 'application/problem+json', 'image/svg+xml'])
    assert.equal(compressible(req, res(type)), true, type);
});

test('an event stream is never compressed, and its first event arrives while the stream stays open', async () => {
  const id = await trigger(live, 'hdr', 'one');
  const c = await SseClient.open(`${live.url}/api/v1/executions/${id}/events`, { authorization: `Bearer ${live.token}`, 'accept-encoding': 'gzip, deflate, br' });
  try {
    assert.equal(c.status, 200);
    assert.equal(c.headers['content-type'], 'text/event-stream');
    assert.equal(c.headers['content-encoding'], undefined);
    await c.until(() => c.events.some((e) => e.event === 'execution'));
    assert.equal(c.closed, false, 'the event came before the end: nothing buffered it');
  } finally {
    c.destroy();
  }
});
