import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, createApiClient } from './client.js';

/** A server that answers one execution and the error envelope for anything else. */
async function fakeServer(): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    if (req.url === '/api/v1/executions/ex-1') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'ex-1', state: 'RUNNING', namespace: 'team', task_runs: [] }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
    res.end(JSON.stringify({ error: { code: 'execution_not_found', message: 'no such execution' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('the typed client fills path parameters and returns the answer, or throws the error envelope as ApiError', async () => {
  const server = await fakeServer();
  try {
    const api = createApiClient({ baseUrl: server.url, headers: { authorization: 'Bearer svc_test' } });
    const ok = await api.get('/api/v1/executions/{executionId}', { params: { path: { executionId: 'ex-1' } } });
    // The answer is the generated Execution: its `state` is the ExecutionState union.
    const state: 'QUEUED' | 'RUNNING' | 'CANCELLING' | 'SUCCESS' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED' | 'SKIPPED' = ok.state;
    assert.equal(state, 'RUNNING');
    await assert.rejects(
      () => api.get('/api/v1/executions/{executionId}', { params: { path: { executionId: 'nope' } } }),
      (err: unknown) => err instanceof ApiError && err.status === 404 && err.code === 'execution_not_found' && err.requestId === 'req-1' && err.message === 'no such execution',
    );
    // The bare openapi-fetch client answers instead of throwing.
    const raw = await api.raw.GET('/api/v1/executions/{executionId}', { params: { path: { executionId: 'nope' } } });
    assert.equal(raw.error?.error.code, 'execution_not_found');
    assert.deepEqual(server.seen, ['GET /api/v1/executions/ex-1 Bearer svc_test', 'GET /api/v1/executions/nope Bearer svc_test', 'GET /api/v1/executions/nope Bearer svc_test']);
  } finally {
    await server.close();
  }
});
