// The runner protocol over real HTTP on 127.0.0.1: createHttpTransport's retries
// against an in-memory server of the runner routes. (`svc exec` itself, the same
// transport in a process of its own, is tested in svc-exec-over-http.test.ts.)
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createHttpTransport, RunnerHttpError } from '../src/index.js';
import { makeSpec, RunnerServer } from '../src/testing/index.js';

const TOKEN = 'run-token-abc';
const fast = { retryForMs: 5000, initialBackoffMs: 20, maxBackoffMs: 100 };

const cleanups: (() => Promise<unknown>)[] = [];
after(() => Promise.all(cleanups.map((c) => c())));
async function server(opts: Omit<ConstructorParameters<typeof RunnerServer>[0], 'token'>) {
  const s = await new RunnerServer({ token: TOKEN, ...opts }).start();
  cleanups.push(() => s.stop());
  return s;
}

test('the HTTP transport retries a 503, then succeeds', async () => {
  const spec = makeSpec({ command: ['true'] });
  const s = await server({ spec, fail503: { spec: 2, logs: 1 } });
  const t = createHttpTransport({ server: s.url + '/', taskRunId: spec.task_run_id, token: TOKEN, ...fast });
  assert.deepEqual(await t.getSpec(), spec);
  assert.deepEqual(
    s.requests.filter((r) => r.route === 'spec').map((r) => r.status),
    [503, 503, 200],
  );
  await t.postLogs([{ n: 1, ts: '1', stream: 'stdout', text: 'x' }]);
  assert.deepEqual(s.lines, [{ n: 1, ts: '1', stream: 'stdout', text: 'x' }], 'delivered once');
  assert.equal(await t.getBundle(), null, '204: no bundle');
  assert.deepEqual(await t.heartbeat(), { cancel: false });
});

test('the HTTP transport never retries a 4xx', async () => {
  const spec = makeSpec({ command: ['true'] });
  const s = await server({ spec, failWith: { complete: 409 } });
  const t = createHttpTransport({ server: s.url, taskRunId: spec.task_run_id, token: TOKEN, ...fast });
  await assert.rejects(
    t.complete({ state: 'SUCCESS', reason: '', error: '', exit_code: 0, outputs: {}, metrics: [] }),
    (err: unknown) => err instanceof RunnerHttpError && err.status === 409,
  );
  assert.equal(s.count('complete'), 1);
  const wrongToken = createHttpTransport({ server: s.url, taskRunId: spec.task_run_id, token: 'nope', ...fast });
  await assert.rejects(wrongToken.getSpec(), (err: unknown) => err instanceof RunnerHttpError && err.status === 401);
});

test('a gateway restart loses no log line: connection refused is retried until it is back', async () => {
  const spec = makeSpec({ command: ['true'] });
  const s = await server({ spec });
  const port = s.port;
  await s.stop();
  const t = createHttpTransport({ server: `http://127.0.0.1:${port}`, taskRunId: spec.task_run_id, token: TOKEN, ...fast });
  const posting = t.postLogs([{ n: 1, ts: '1', stream: 'stderr', text: 'during restart' }]);
  await new Promise((r) => setTimeout(r, 300));
  await s.start(port);
  await posting;
  assert.deepEqual(
    s.lines.map((l) => l.text),
    ['during restart'],
  );
});

test('transient failures past retryForMs give up with the cause', async () => {
  const spec = makeSpec({ command: ['true'] });
  const s = await server({ spec, fail503: { heartbeat: 1000 } });
  const t = createHttpTransport({ server: s.url, taskRunId: spec.task_run_id, token: TOKEN, retryForMs: 200, initialBackoffMs: 20, maxBackoffMs: 50 });
  await assert.rejects(t.heartbeat(), (err: unknown) => err instanceof RunnerHttpError && err.status === 503 && /gave up after \d+ attempts/.test(err.message));
  assert.ok(s.count('heartbeat') >= 3);
});
