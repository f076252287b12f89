// Every list operation decodes and range-checks its cursor in one place (the
// operation's `request.cursor` shape, checked by @svc/http's validator): a
// well-formed cursor holding a value PostgreSQL refuses (February 30th, an n
// past int4, a ts past int8, a NUL byte) is 422 `validation_failed` on field
// `cursor`, never a 500 from the handler's query. The resources exist, so
// the handlers would otherwise reach their queries.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { operations, type Operation } from '@svc/api-spec';
import { encodeCursor } from '@svc/http';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw } from './identity-helpers.js';

let gw: TestGateway;
let token: string;
const paths: Record<string, string> = {};

const FLOW = 'id: hello\ntasks:\n  - id: say\n    type: command\n    command: ["echo", "hi"]\ntriggers:\n  - id: nightly\n    type: schedule\n    cron: "0 3 * * *"\n';

before(async () => {
  gw = await startTestGateway();
  await makeUser(gw, 'root@example.com', 'admin');
  token = await makeToken(gw, await login(gw, 'root@example.com'), 'admin');
  const call = (method: string, path: string, body?: unknown) =>
    raw(gw, method, path, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body === undefined ? undefined : JSON.stringify(body));
  assert.equal((await call('POST', '/api/v1/namespaces', { name: 'cur' })).status, 201);
  assert.equal((await call('POST', '/api/v1/namespaces/cur/changes', { message: 'flow', changes: [{ op: 'put', path: 'hello.flow.yaml', content: FLOW }] })).status, 201);
  const ex = await call('POST', '/api/v1/flows/cur/hello/executions', {});
  assert.equal(ex.status, 201);
  Object.assign(paths, { executionId: ex.json<{ id: string }>().id, namespace: 'cur', flowId: 'hello', userId: 'x', tokenId: 'x' });
});
after(() => gw.close());

/** A value of each cursor field kind that decodes fine but that PostgreSQL would refuse. */
function impossible(field: { type?: string; format?: string; maximum?: number }): unknown[] {
  if (field.format === 'cursor-time') return ['2024-02-30T00:00:00Z', '2023-02-29T12:00:00Z', '2026-01-01T25:00:00Z', 'tomorrow'];
  if (field.format === 'cursor-int8') return ['9223372036854775808', '1e3', 12];
  if (field.type === 'integer') return [2 ** 31, 1.5, '3'];
  return ['a\u0000b', 42];
}

/** A value of each kind the database takes. */
function possible(field: { type?: string; format?: string }): unknown {
  if (field.format === 'cursor-time') return '2024-02-29T00:00:00.123456Z';
  if (field.format === 'cursor-int8') return '9223372036854775807';
  if (field.type === 'integer') return 2147483647;
  return 'zzz';
}

const listOps = operations.filter((op): op is Operation & { request: { cursor: object } } => op.request.cursor !== undefined && op.method === 'get');

test('every list operation with a handler declares what its cursor holds', () => {
  const named = [
    'listExecutions',
    'listUpcomingSchedules',
    'listAuditEvents',
    'listVersions',
    'listFlowRevisions',
    'listExecutionArtifacts',
    'getExecutionLogs',
    'listExecutionMetrics',
  ];
  for (const id of named)
    assert.ok(
      listOps.some((op) => op.operationId === id),
      id,
    );
});

test('a cursor holding a value the database refuses is 422 on field cursor, for every list operation', async () => {
  let checked = 0;
  for (const op of listOps) {
    const path = op.path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(paths[p] ?? 'x'));
    const props = (op.request.cursor as unknown as { properties: Record<string, { type?: string; format?: string }> }).properties;
    const good = Object.fromEntries(Object.entries(props).map(([k, f]) => [k, possible(f)]));
    const ok = await raw(gw, 'GET', `${path}?cursor=${encodeCursor(good)}`, { authorization: `Bearer ${token}` });
    if (ok.status === 501) continue; // not built yet
    assert.ok(ok.status === 200 || ok.status === 404, `${op.operationId} with a possible cursor: ${ok.status} ${ok.body}`);
    for (const [key, field] of Object.entries(props)) {
      for (const bad of impossible(field)) {
        const r = await raw(gw, 'GET', `${path}?cursor=${encodeCursor({ ...good, [key]: bad })}`, { authorization: `Bearer ${token}` });
        assert.equal(r.status, 422, `${op.operationId} ${key}=${JSON.stringify(bad)}: ${r.status} ${r.body}`);
        assert.deepEqual(r.json<{ error: { details: unknown } }>().error.details, [{ field: 'cursor', message: 'is not a valid cursor' }]);
        checked++;
      }
    }
    const extra = await raw(gw, 'GET', `${path}?cursor=${encodeCursor({ ...good, more: 1 })}`, { authorization: `Bearer ${token}` });
    assert.equal(extra.status, 422, `${op.operationId} with an unknown key`);
  }
  assert.ok(checked > 50, `${checked} impossible cursors checked`);
});
