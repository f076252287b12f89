// listExecutionArtifacts, downloadArtifact and listExecutionMetrics over real
// HTTP: artifacts uploaded through the runner protocol are listed with their
// task, paged, and streamed back from the object store with type, length and
// file name; an artifact of another execution is 404; metrics reported at
// completion are listed with their tags.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { schemas } from '@svc/api-spec';
import { login, makeToken, makeUser } from './identity-helpers.js';
import { claimRuns, completeRun, saveFlow, startLiveGateway, trigger, type ClaimedRun, type LiveGateway } from './live-helpers.js';

let gw: LiveGateway;
let viewer: string;
let exId: string;
let otherEx: string;
let otherArtifact: string;
let build: ClaimedRun;
let check: ClaimedRun;
const big = crypto.randomBytes(3 * 1024 * 1024 + 17);

async function putArtifact(run: ClaimedRun, name: string, body: Buffer, type: string) {
  const r = await fetch(`${gw.url}/api/runner/v1/task-runs/${run.id}/artifacts/${encodeURIComponent(name)}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${run.token}`, 'content-type': type },
    body,
  });
  assert.equal(r.status, 201, await r.clone().text());
  return (await r.json()) as { id: string };
}

before(async () => {
  gw = await startLiveGateway();
  await makeUser(gw, 'viewer@example.com', 'viewer');
  viewer = await makeToken(gw, await login(gw, 'viewer@example.com'), 'viewer');
  await saveFlow(gw, 'arts', {
    id: 'make',
    tasks: [
      { id: 'build', type: 'command', command: ['true'] },
      { id: 'check', type: 'command', command: ['true'] },
    ],
  });
  exId = await trigger(gw, 'arts', 'make');
  const runs = await claimRuns(gw);
  build = runs.find((r) => r.taskKey === 'build')!;
  check = runs.find((r) => r.taskKey === 'check')!;
  await putArtifact(build, 'report.txt', Buffer.from('all good\n'), 'text/plain');
  await putArtifact(build, 'bin.dat', big, 'application/octet-stream');
  await putArtifact(check, 'out/summary.json', Buffer.from('{"ok":true}'), 'application/json');
  await completeRun(gw, build, {
    state: 'SUCCESS',
    exit_code: 0,
    metrics: [
      { name: 'rows', value: 42, tags: { table: 'users' } },
      { name: 'rows', value: 7.5, tags: { table: 'orders' } },
    ],
  });
  await completeRun(gw, check, { state: 'SUCCESS', exit_code: 0, metrics: [{ name: 'duration', value: 1.25 }] });
  otherEx = await trigger(gw, 'arts', 'make');
  const others = await claimRuns(gw);
  otherArtifact = (await putArtifact(others[0]!, 'foreign.txt', Buffer.from('not yours'), 'text/plain')).id;
});
after(() => gw?.close());

const get = (p: string, token = viewer) => fetch(`${gw.url}${p}`, { headers: { authorization: `Bearer ${token}` } });

test('artifacts are listed with their task run, size and type, and paged', async () => {
  const r = await get(`/api/v1/executions/${exId}/artifacts`);
  assert.equal(r.status, 200);
  const body = (await r.json()) as { items: any[]; next_cursor?: string };
  assert.equal(body.next_cursor, undefined);
  assert.deepEqual(
    body.items.map((a) => [a.name, a.size, a.content_type, a.task_key, a.task_run_id]),
    [
      ['report.txt', 9, 'text/plain', 'build', build.id],
      ['bin.dat', big.length, 'application/octet-stream', 'build', build.id],
      ['out/summary.json', 11, 'application/json', 'check', check.id],
    ],
  );
  for (const a of body.items) {
    assert.match(a.id, /^[0-9a-z]{26}$/);
    assert.ok(!Number.isNaN(Date.parse(a.created_at)));
  }
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = (await (await get(`/api/v1/executions/${exId}/artifacts?limit=1${cursor ? `&cursor=${cursor}` : ''}`)).json()) as { items: any[]; next_cursor?: string };
    assert.equal(page.items.length, 1);
    names.push(page.items[0].name);
    cursor = page.next_cursor;
  } while (cursor);
  assert.deepEqual(names, ['report.txt', 'bin.dat', 'out/summary.json']);
  const bad = await get(`/api/v1/executions/${exId}/artifacts?cursor=${Buffer.from('{"c":"x","id":1}').toString('base64url')}`);
  assert.equal(bad.status, 422);
  assert.equal(((await bad.json()) as any).error.details[0].field, 'cursor');
  assert.equal((await get(`/api/v1/executions/${exId}/artifacts?limit=201`)).status, 422);
});

test('an artifact downloads byte for byte with its type, length and file name', async () => {
  const list = ((await (await get(`/api/v1/executions/${exId}/artifacts`)).json()) as { items: any[] }).items;
  const bin = list.find((a) => a.name === 'bin.dat');
  const r = await get(`/api/v1/executions/${exId}/artifacts/${bin.id}`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/octet-stream');
  assert.equal(r.headers.get('content-length'), String(big.length));
  assert.equal(r.headers.get('content-disposition'), 'attachment; filename="bin.dat"; filename*=UTF-8\'\'bin.dat');
  assert.ok(Buffer.from(await r.arrayBuffer()).equals(big));

  const json = list.find((a) => a.name === 'out/summary.json');
  const j = await get(`/api/v1/executions/${exId}/artifacts/${json.id}`);
  assert.equal(j.headers.get('content-type'), 'application/json');
  assert.equal(j.headers.get('content-length'), '11');
  // A name with a folder (a file in a subdirectory of $SVC_ARTIFACTS_DIR) downloads under its base name.
  assert.equal(j.headers.get('content-disposition'), `attachment; filename="summary.json"; filename*=UTF-8''summary.json`);
  assert.equal(await j.text(), '{"ok":true}');
});

test('an artifact of another execution, or an unknown one, is 404', async () => {
  const foreign = await get(`/api/v1/executions/${exId}/artifacts/${otherArtifact}`);
  assert.equal(foreign.status, 404);
  assert.equal(((await foreign.json()) as any).error.code, 'not_found');
  const own = await get(`/api/v1/executions/${otherEx}/artifacts/${otherArtifact}`);
  assert.equal(own.status, 200);
  assert.equal(await own.text(), 'not yours');
  const unknown = await get(`/api/v1/executions/${exId}/artifacts/01jaaaaaaaaaaaaaaaaaaaaaaa`);
  assert.equal(unknown.status, 404);
});

test('metrics are listed with task, tags and time, and paged', async () => {
  const r = await get(`/api/v1/executions/${exId}/metrics`);
  assert.equal(r.status, 200);
  const body = (await r.json()) as { items: any[]; next_cursor?: string };
  const rows = body.items
    .map((m) => ({ task_key: m.task_key, task_run_id: m.task_run_id, name: m.name, value: m.value, tags: m.tags }))
    .sort((a, b) => `${a.name}${a.value}`.localeCompare(`${b.name}${b.value}`));
  assert.deepEqual(rows, [
    { task_key: 'check', task_run_id: check.id, name: 'duration', value: 1.25, tags: {} },
    { task_key: 'build', task_run_id: build.id, name: 'rows', value: 42, tags: { table: 'users' } },
    { task_key: 'build', task_run_id: build.id, name: 'rows', value: 7.5, tags: { table: 'orders' } },
  ]);
  assert.ok(body.items.every((m) => !Number.isNaN(Date.parse(m.at))));
  const p1 = (await (await get(`/api/v1/executions/${exId}/metrics?limit=2`)).json()) as { items: any[]; next_cursor?: string };
  assert.equal(p1.items.length, 2);
  const p2 = (await (await get(`/api/v1/executions/${exId}/metrics?limit=2&cursor=${p1.next_cursor}`)).json()) as { items: any[]; next_cursor?: string };
  assert.equal(p2.items.length, 1);
  assert.equal(p2.next_cursor, undefined);
  assert.deepEqual(((await (await get(`/api/v1/executions/${otherEx}/metrics`)).json()) as any).items, []);
});

test('listed artifacts and metrics carry exactly the fields the API description declares, the required ones included', async () => {
  const check = (items: Record<string, unknown>[], schema: { properties: Record<string, unknown>; required?: string[] }, what: string) => {
    assert.ok(items.length > 0, `${what}: nothing listed`);
    for (const item of items) {
      assert.deepEqual(
        Object.keys(item).filter((k) => !(k in schema.properties)),
        [],
        `${what}: undeclared fields`,
      );
      assert.deepEqual(
        (schema.required ?? []).filter((k) => item[k] === undefined),
        [],
        `${what}: required fields missing`,
      );
    }
  };
  check(((await (await get(`/api/v1/executions/${exId}/artifacts`)).json()) as { items: Record<string, unknown>[] }).items, schemas.Artifact as never, 'Artifact');
  check(((await (await get(`/api/v1/executions/${exId}/metrics`)).json()) as { items: Record<string, unknown>[] }).items, schemas.MetricValue as never, 'MetricValue');
});
