// Tracing is opt-in (src/tracing.ts): a process started without an OTLP
// endpoint loads no OpenTelemetry SDK, exporter or instrumentation module, not
// even when it goes on to load the service, pg and winston (only
// @opentelemetry/api, the no-op API that prom-client itself imports for its
// exemplars); with one it loads the SDK, and a log line
// written inside a span that continues a stored traceparent carries that
// trace's id, while one written outside any span carries none. Each case is a
// real child process, which records every module it resolves.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const main = `
  import { registerHooks } from 'node:module';
  import { Writable } from 'node:stream';
  const seen = [];
  registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); if (r.url.includes('/@opentelemetry/') && !r.url.includes('/@opentelemetry/api/')) seen.push(r.url); return r; } });
  const { startTracing } = await import('@svc/service/tracing');
  const tracing = await startTracing('probe');
  await import('@svc/service');
  const { createLogger, continueTrace, activeTraceparent, startTrace } = await import('@svc/logging');
  const lines = [];
  const stream = new Writable({ write(c, _e, cb) { lines.push(...String(c).trim().split('\\n').map((l) => JSON.parse(l))); cb(); } });
  const log = createLogger({ service: 'probe', stream });
  log.info('outside');
  let inner;
  await continueTrace('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'probe span', { execution_id: 'e1' }, async () => {
    inner = activeTraceparent();
    log.info('inside');
  });
  let root;
  await startTrace('probe root', {}, async () => { root = activeTraceparent(); });
  await tracing?.shutdown().catch(() => undefined);
  console.log(JSON.stringify({ on: tracing !== undefined, seen, lines, inner, root }));
`;

async function probe(env: NodeJS.ProcessEnv): Promise<{ on: boolean; seen: string[]; lines: Record<string, unknown>[]; inner?: string; root?: string }> {
  assert.ok(fs.existsSync(path.join(pkgDir, 'dist/tracing.js')), 'build @svc/service first');
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const child = spawn(process.execPath, ['--input-type=module', '-e', main], { cwd: pkgDir, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { on: boolean; seen: string[]; lines: Record<string, unknown>[]; inner?: string; root?: string };
}

it('without OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry SDK module is loaded and no line has a trace_id', { timeout: 60_000 }, async () => {
  const r = await probe({});
  assert.equal(r.on, false);
  assert.deepEqual(r.seen, []);
  assert.deepEqual(
    r.lines.map((l) => [l.message, l.trace_id]),
    [
      ['outside', undefined],
      ['inside', undefined],
    ],
  );
  assert.equal(r.inner, undefined);
  assert.equal(r.root, undefined);
});

it('OTEL_SDK_DISABLED=true keeps it off even with an endpoint', { timeout: 60_000 }, async () => {
  const r = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' });
  assert.equal(r.on, false);
  assert.deepEqual(r.seen, []);
});

it('with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT the SDK loads and a line inside a continued span carries its trace id', { timeout: 60_000 }, async () => {
  // Port 9 (discard) on loopback: nothing listens, and the probe's one span is dropped at shutdown.
  const r = await probe({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces', OTEL_EXPORTER_OTLP_TIMEOUT: '500' });
  assert.equal(r.on, true);
  assert.ok(r.seen.some((u) => u.includes('@opentelemetry/sdk-node')));
  assert.ok(r.seen.some((u) => u.includes('@opentelemetry/instrumentation-pg')));
  assert.deepEqual(
    r.lines.map((l) => [l.message, l.trace_id]),
    [
      ['outside', undefined],
      ['inside', '0af7651916cd43dd8448eb211c80319c'],
    ],
  );
  // A child of the stored context: same trace, a span id of its own.
  assert.match(r.inner ?? '', /^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
  assert.doesNotMatch(r.inner ?? '', /b7ad6b7169203331/);
  // startTrace (a schedule's fire): the root of a trace of its own.
  assert.match(r.root ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  assert.doesNotMatch(r.root ?? '', /0af7651916cd43dd8448eb211c80319c/);
});
