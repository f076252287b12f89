import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { validateFlowValue } from '@svc/flow-schema';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw, type RawResponse } from './identity-helpers.js';
import { assertConforms } from './secrets-helpers.js';

let gw: TestGateway;
let admin: string;
let editor: string;
let viewer: string;

before(async () => {
  gw = await startTestGateway();
  await makeUser(gw, 'admin@example.com', 'admin');
  const cookie = await login(gw, 'admin@example.com');
  admin = await makeToken(gw, cookie, 'admin');
  editor = await makeToken(gw, cookie, 'editor');
  viewer = await makeToken(gw, cookie, 'viewer');
  for (const name of ['team', 'team.etl', 'other'])
    await raw(gw, 'POST', '/api/v1/namespaces', { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, JSON.stringify({ name }));
});
after(() => gw.close());

const call = (token: string, method: string, path: string, body?: unknown): Promise<RawResponse> =>
  raw(
    gw,
    method,
    path,
    { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body === undefined ? undefined : JSON.stringify(body),
  );
const save = (ns: string, changes: unknown[]) => call(editor, 'POST', `/api/v1/namespaces/${ns}/changes`, { message: 'flows', changes });
const flowYaml = (id: string, echo = 'hi', extra: string[] = []) =>
  [`id: ${id}`, 'description: A test flow', ...extra, 'tasks:', `  - {id: a, type: command, command: [echo, "${echo}"]}`, ''].join('\n');

test('saving a flow file creates the flow, enabled, at revision 1', async () => {
  assert.equal(
    (await save('team.etl', [{ op: 'put', path: 'flows/load.flow.yaml', content: flowYaml('load', 'hi', ['triggers:', '  - {id: nightly, type: schedule, cron: "0 2 * * *"}']) }]))
      .status,
    201,
  );
  const f = (await call(viewer, 'GET', '/api/v1/flows/team.etl/load')).json<{
    id: string;
    enabled: boolean;
    revision: number;
    path: string;
    triggers: unknown[];
    definition: { tasks: unknown[] };
    source: string;
  }>();
  assert.equal(f.id, 'load');
  assert.equal(f.enabled, true);
  assert.equal(f.revision, 1);
  assert.equal(f.path, 'flows/load.flow.yaml');
  assert.deepEqual(f.triggers, [{ id: 'nightly', type: 'schedule' }]);
  assert.equal(f.definition.tasks.length, 1);
  assert.match(f.source, /id: load/);
  // The answer as the document declares it (Flow), its definition a flow file (FlowFile: the flow schema).
  assertConforms('getFlow', 200, f);
  assert.deepEqual(validateFlowValue(f.definition).errors, []);
  const triggers = (await gw.db.pool.query(`SELECT trigger_id, type FROM flow_triggers WHERE namespace = 'team.etl' AND flow_id = 'load'`)).rows;
  assert.deepEqual(triggers, [{ trigger_id: 'nightly', type: 'schedule' }]);
});

test('an invalid flow file is refused whole: 422 flow_invalid with <path>:<pointer> details', async () => {
  const r = await save('team.etl', [
    { op: 'put', path: 'ok.txt', content: 'fine' },
    { op: 'put', path: 'bad.flow.yaml', content: 'id: bad\ntasks:\n  - {id: a, type: command, command: [x], retry: {max_attempts: 99}}\n' },
  ]);
  assert.equal(r.status, 422);
  const e = r.json().error;
  assert.equal(e.code, 'flow_invalid');
  assert.equal(e.details![0]!.field, 'bad.flow.yaml:/tasks/0/retry/max_attempts');
  assert.match(e.details![0]!.message, /between 1 and 20, got 99/);
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/team.etl/file?path=ok.txt')).status, 404, 'nothing of the set was saved');
  const cyc = await save('team.etl', [{ op: 'put', path: 'c.flow.yaml', content: 'id: c\ntasks:\n  - {id: a, type: command, command: [x], depends_on: [a]}\n' }]);
  assert.equal(cyc.json().error.code, 'flow_invalid', 'semantic errors too');
});

test('changed content adds a revision; identical content adds none', async () => {
  await save('team.etl', [{ op: 'put', path: 'flows/load.flow.yaml', content: flowYaml('load', 'v2') }]);
  await save('team.etl', [
    { op: 'put', path: 'flows/load.flow.yaml', content: flowYaml('load', 'v2') },
    { op: 'put', path: 'unrelated.txt', content: 'x' },
  ]);
  const revs = (await call(viewer, 'GET', '/api/v1/flows/team.etl/load/revisions')).json<{ items: { revision: number; id: string; namespace_version: number }[] }>();
  assert.deepEqual(
    revs.items.map((r) => r.revision),
    [2, 1],
  );
  const one = (await call(viewer, 'GET', `/api/v1/flows/team.etl/load/revisions/${revs.items[1]!.id}`)).json<{ source: string; revision: number; definition: unknown }>();
  assert.match(one.source, /echo, "hi"/);
  assertConforms('getFlowRevision', 200, one);
  assert.deepEqual(validateFlowValue(one.definition).errors, []);
  const d = (await call(viewer, 'GET', `/api/v1/flows/team.etl/load/diff?from=${revs.items[1]!.id}`)).json<{ diff: string; to: { revision: number } }>();
  assert.equal(d.to.revision, 2);
  assert.match(d.diff, /^-.*echo, "hi"/m);
  assert.match(d.diff, /^\+.*echo, "v2"/m);
  assert.equal((await gw.db.pool.query(`SELECT count(*)::int AS n FROM flows WHERE flow_id = 'load'`)).rows[0].n, 1);
  const f = (await call(viewer, 'GET', '/api/v1/flows/team.etl/load')).json<{ triggers: unknown[] }>();
  assert.deepEqual(f.triggers, [], 'the trigger removed from the file is gone');
  assert.equal((await gw.db.pool.query(`SELECT count(*)::int AS n FROM flow_triggers WHERE flow_id = 'load'`)).rows[0].n, 0);
});

test('moving the file moves the flow; deleting it deletes the flow; a file with the same id brings it back', async () => {
  await save('team.etl', [{ op: 'rename', path: 'flows/load.flow.yaml', new_path: 'archive/load.flow.yaml' }]);
  const moved = (await call(viewer, 'GET', '/api/v1/flows/team.etl/load')).json<{ path: string; revision: number }>();
  assert.deepEqual([moved.path, moved.revision], ['archive/load.flow.yaml', 2]);
  await save('team.etl', [{ op: 'delete', path: 'archive/load.flow.yaml' }]);
  assert.equal((await call(viewer, 'GET', '/api/v1/flows/team.etl/load')).status, 404);
  const list = (await call(viewer, 'GET', '/api/v1/flows?namespace=team.etl')).json<{ items: unknown[] }>();
  assert.equal(list.items.length, 0);
  await save('team.etl', [{ op: 'put', path: 'again.flow.yaml', content: flowYaml('load', 'v3') }]);
  const back = (await call(viewer, 'GET', '/api/v1/flows/team.etl/load')).json<{ revision: number; path: string }>();
  assert.deepEqual([back.revision, back.path], [3, 'again.flow.yaml']);
});

test('two files defining one flow id are refused', async () => {
  const r = await save('team.etl', [{ op: 'put', path: 'dup.flow.yaml', content: flowYaml('load') }]);
  assert.equal(r.status, 422);
  assert.equal(r.json().error.code, 'flow_invalid');
  assert.match(r.json().error.details![0]!.message, /already defined by again.flow.yaml/);
});

test('listFlows filters by namespace with its children and pages; updateFlow enables and disables', async () => {
  await save('team', [
    { op: 'put', path: 'a.flow.yaml', content: flowYaml('alpha') },
    { op: 'put', path: 'b.flow.yaml', content: flowYaml('beta') },
  ]);
  await save('other', [{ op: 'put', path: 'x.flow.yaml', content: flowYaml('xray') }]);
  const team = (await call(viewer, 'GET', '/api/v1/flows?namespace=team')).json<{ items: { namespace: string; id: string }[] }>();
  assert.deepEqual(
    team.items.map((f) => `${f.namespace}/${f.id}`),
    ['team/alpha', 'team/beta', 'team.etl/load'],
  );
  const p1 = (await call(viewer, 'GET', '/api/v1/flows?limit=2')).json<{ items: { id: string }[]; next_cursor: string }>();
  const p2 = (await call(viewer, 'GET', `/api/v1/flows?limit=2&cursor=${p1.next_cursor}`)).json<{ items: { id: string }[] }>();
  assert.deepEqual([...p1.items, ...p2.items].map((f) => f.id).sort(), ['alpha', 'beta', 'load', 'xray']);
  assert.equal((await call(viewer, 'PATCH', '/api/v1/flows/team/alpha', { enabled: false })).status, 403, 'updateFlow is editor');
  const off = await call(editor, 'PATCH', '/api/v1/flows/team/alpha', { enabled: false });
  assert.equal(off.status, 200);
  assert.equal(off.json<{ enabled: boolean }>().enabled, false);
  await save('team', [{ op: 'put', path: 'a.flow.yaml', content: flowYaml('alpha', 'changed') }]);
  assert.equal((await call(viewer, 'GET', '/api/v1/flows/team/alpha')).json<{ enabled: boolean }>().enabled, false, 'a new revision keeps it disabled');
  assert.equal((await call(editor, 'PATCH', '/api/v1/flows/team/alpha', { enabled: 'yes' })).status, 422);
});

test('namespace.yaml is validated on save', async () => {
  const good = await save('team', [{ op: 'put', path: 'namespace.yaml', content: 'executor: {type: docker, image: "python:3.12"}\nvariables: {region: eu}\n' }]);
  assert.equal(good.status, 201);
  const bad = await save('team', [{ op: 'put', path: 'namespace.yaml', content: 'executor: {type: docker}\nvariabls: {}\n' }]);
  assert.equal(bad.status, 422);
  assert.equal(bad.json().error.code, 'flow_invalid');
  assert.ok(bad.json().error.details!.every((d) => d.field.startsWith('namespace.yaml:')));
});

// Last: the flow it leaves behind would show in the lists above.
test('a flow without a current revision leaves out its definition and source (never null)', async () => {
  await save('team', [{ op: 'put', path: 'bare.flow.yaml', content: flowYaml('bare') }]);
  await gw.db.pool.query(`UPDATE flows SET current_revision_id = NULL WHERE namespace = 'team' AND flow_id = 'bare'`);
  const r = await call(viewer, 'GET', '/api/v1/flows/team/bare');
  assert.equal(r.status, 200, r.body);
  const f = r.json<Record<string, unknown>>();
  assert.equal(f.revision, null);
  assert.ok(!('definition' in f) && !('source' in f), r.body);
  assertConforms('getFlow', 200, f);
});
