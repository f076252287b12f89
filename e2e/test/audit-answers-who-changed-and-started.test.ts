// The audit log answers who changed which flow and who started what (issue
// #40), on a real stack: the admin creates `team-a` (and later creates and
// deletes a scratch namespace); a user of global role `none` bound `editor` on
// `team-a` saves a flow, reverts, uploads a file, triggers the flow and runs
// a file. The admin's audit list and its NDJSON export (the API's and
// `svc audit export > file`, a subprocess) name the actor, the namespace, the
// version, the changed paths and flows, the execution and the trigger kind of
// each, filter by namespace, action, actor and time; they hold no content, no
// input value, no argument or environment value and no value of the
// namespace's secret. The `none` user may not read or export the audit log.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec/openapi-types';
import { flow, sh } from './engine-support.js';
import { boundUser, root, startStack, type Stack } from './stack.js';

type AuditEvent = components['schemas']['AuditEvent'];

let s: Stack;
let editorToken = '';
let editorId = '';
const EDITOR = 'ed@example.com';
/** Values that must appear in no audit event: a secret's, an input's, an argument's, an environment value's, file contents. */
const SECRET_VALUE = 'S3cret-of-team-a-7f1c';
const INPUT_VALUE = 'input-api-key-91be';
const ARG_VALUE = 'arg-password-55aa';
const ENV_VALUE = 'env-token-c0ffee';
const FILE_CONTENT = 'uploaded-content-3d4e\n';
const FLOW_MARKER = 'flow-text-marker-8a8a';
const started = new Date(Date.now() - 1000);
const ids = { save: 0, revert: 0, upload: 0, trigger: '', run: '' };

/** A request with the editor's token. */
async function asEditor(method: string, p: string, body?: unknown, raw?: { type: string; data: Buffer }): Promise<{ status: number; body: any }> {
  const r = await fetch(`${s.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${editorToken}`, ...(raw ? { 'content-type': raw.type } : body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: raw ? raw.data : body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

/** Every event of the admin's audit list for these filters, page by page. */
async function listAll(query: Record<string, string>): Promise<AuditEvent[]> {
  const out: AuditEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const q = new URLSearchParams({ ...query, limit: '2', ...(cursor ? { cursor } : {}) });
    const r = await s.api('GET', `/api/v1/audit?${q}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    out.push(...(r.body.items as AuditEvent[]));
    cursor = r.body.next_cursor;
    if (!cursor) return out;
  }
}

/** The admin's export for these filters: its response and its events, one a line. */
async function exportAll(query: Record<string, string>, token = s.token): Promise<{ res: Response; text: string; events: AuditEvent[] }> {
  const res = await fetch(`${s.url}/api/v1/audit/export?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  const events = res.ok
    ? text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as AuditEvent)
    : [];
  return { res, text, events };
}

/** `svc ARGS > file` as a subprocess against the stack; the file's text and the exit code. */
async function svcToFile(args: string[]): Promise<{ code: number | null; stderr: string; text: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-audit-export-'));
  const file = path.join(dir, 'audit.ndjson');
  const fd = fs.openSync(file, 'w');
  try {
    const child = spawn(process.execPath, [path.join(root, 'apps/cli/dist/main.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_CONFIG_HOME: path.join(dir, '.config'), SVC_URL: s.url, SVC_TOKEN: s.token },
      stdio: ['ignore', fd, 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, stderr, text: fs.readFileSync(file, 'utf8') };
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function assertNoValue(where: string, text: string): void {
  for (const v of [SECRET_VALUE, INPUT_VALUE, ARG_VALUE, ENV_VALUE, FILE_CONTENT.trim(), FLOW_MARKER]) assert.ok(!text.includes(v), `${where} holds "${v}"`);
}

before(async () => {
  s = await startStack({ maintenance: false });
  assert.equal((await s.api('POST', '/api/v1/namespaces', { name: 'team-a' })).status, 201);
  assert.equal((await s.api('POST', '/api/v1/namespaces', { name: 'team-b' })).status, 201);
  const bound = await boundUser(s, { email: EDITOR, password: 'editor password 1', namespace: 'team-a', role: 'editor', tokenName: 'mine' });
  editorId = bound.id;
  editorToken = bound.token;

  // The editor's secret in team-a (its value must never reach the audit log).
  assert.equal((await asEditor('PUT', '/api/v1/namespaces/team-a/secrets/API_KEY', { value: SECRET_VALUE })).status, 200);
  // The editor saves a flow (twice: the second version changes it), reverts to the first, uploads a file.
  const one = flow({ id: 'etl', description: FLOW_MARKER, inputs: [{ id: 'api_key', type: 'string' }], tasks: [{ id: 't', type: 'command', command: sh('true') }] });
  const save1 = await asEditor('POST', '/api/v1/namespaces/team-a/changes', {
    message: 'add etl',
    changes: [
      { op: 'put', path: 'flows/etl.flow.yaml', content: one },
      { op: 'put', path: 'run.sh', content: '#!/bin/sh\necho "$1"\n', executable: true },
    ],
  });
  assert.equal(save1.status, 201, JSON.stringify(save1.body));
  const save2 = await asEditor('POST', '/api/v1/namespaces/team-a/changes', {
    message: 'change etl',
    changes: [{ op: 'put', path: 'flows/etl.flow.yaml', content: one.replace(FLOW_MARKER, `${FLOW_MARKER} v2`) }],
  });
  assert.equal(save2.status, 201, JSON.stringify(save2.body));
  ids.save = save2.body.version;
  const revert = await asEditor('POST', '/api/v1/namespaces/team-a/revert', { version: save1.body.version });
  assert.equal(revert.status, 201, JSON.stringify(revert.body));
  ids.revert = revert.body.version;
  const upload = await asEditor('PUT', '/api/v1/namespaces/team-a/file?path=data%2Fseed.txt', undefined, { type: 'application/octet-stream', data: Buffer.from(FILE_CONTENT) });
  assert.equal(upload.status, 201, JSON.stringify(upload.body));
  ids.upload = upload.body.version;
  // The editor starts the flow with an input value and runs a file with an argument and an environment value.
  const trig = await asEditor('POST', '/api/v1/flows/team-a/etl/executions', { inputs: { api_key: INPUT_VALUE } });
  assert.equal(trig.status, 201, JSON.stringify(trig.body));
  ids.trigger = trig.body.id;
  const run = await asEditor('POST', '/api/v1/namespaces/team-a/run', { path: 'run.sh', args: [ARG_VALUE], env: { TOKEN: ENV_VALUE } });
  assert.equal(run.status, 201, JSON.stringify(run.body));
  ids.run = run.body.id;
  // Outside its namespace nothing happens, and nothing is audited for it.
  assert.equal((await asEditor('POST', '/api/v1/namespaces/team-b/changes', { message: 'no', changes: [{ op: 'put', path: 'x.txt', content: 'x' }] })).status, 403);
  // The admin's own namespace work: a scratch namespace created and deleted.
  assert.equal((await s.api('POST', '/api/v1/namespaces', { name: 'scratch' })).status, 201);
  assert.equal((await s.api('DELETE', '/api/v1/namespaces/scratch')).status, 204);
});

after(async () => {
  await s?.stop();
});

test('the audit list answers who changed which flow and who started what in team-a, with versions, paths and flows, and no value', async () => {
  const events = await listAll({ namespace: 'team-a' });
  const byAction = (a: string) => events.filter((e) => e.action === a);
  // Newest first: every team-a event of the editor, and the admin's creation of team-a and binding of the editor.
  assert.deepEqual(
    events.map((e) => e.action),
    ['file.run', 'execution.trigger', 'file.upload', 'namespace.revert', 'namespace.save', 'namespace.save', 'secret.put', 'role_binding.create', 'namespace.create'],
  );
  for (const e of events.filter((x) => !['namespace.create', 'role_binding.create'].includes(x.action))) {
    assert.equal(e.actor, EDITOR, `${e.action} by the editor`);
    assert.equal(e.actor_id, editorId);
    assert.equal(e.actor_type, 'token');
    assert.equal(e.payload?.namespace, 'team-a');
    assert.ok(e.request_id, `${e.action} has its request id`);
    assert.ok(new Date(e.created_at) >= started);
  }
  assert.equal(byAction('namespace.create')[0]!.actor, 'e2e@example.com');
  assert.equal(byAction('namespace.create')[0]!.target, 'namespace:team-a');

  const [save2, save1] = byAction('namespace.save');
  assert.equal(save1!.target, 'namespace:team-a');
  assert.deepEqual(save1!.payload, {
    namespace: 'team-a',
    version: 1,
    paths: [
      { op: 'add', path: 'flows/etl.flow.yaml' },
      { op: 'add', path: 'run.sh' },
    ],
    flows: ['etl'],
  });
  assert.deepEqual(save2!.payload, { namespace: 'team-a', version: ids.save, paths: [{ op: 'change', path: 'flows/etl.flow.yaml' }], flows: ['etl'] });
  assert.deepEqual(byAction('namespace.revert')[0]!.payload, {
    namespace: 'team-a',
    version: ids.revert,
    to_version: 1,
    paths: [{ op: 'change', path: 'flows/etl.flow.yaml' }],
    flows: ['etl'],
  });
  const upload = byAction('file.upload')[0]!;
  assert.equal(upload.target, 'file:team-a/data/seed.txt');
  assert.deepEqual(upload.payload, {
    namespace: 'team-a',
    path: 'data/seed.txt',
    size: Buffer.byteLength(FILE_CONTENT),
    sha256: crypto.createHash('sha256').update(FILE_CONTENT).digest('hex'),
    version: ids.upload,
  });
  const trigger = byAction('execution.trigger')[0]!;
  assert.equal(trigger.target, `execution:${ids.trigger}`);
  assert.deepEqual(trigger.payload, { namespace: 'team-a', flow_id: 'etl', trigger_type: 'manual', input_keys: ['api_key'] });
  const run = byAction('file.run')[0]!;
  assert.equal(run.target, `execution:${ids.run}`);
  assert.deepEqual(run.payload, { namespace: 'team-a', path: 'run.sh', trigger_type: 'file', arg_count: 1, env_keys: ['TOKEN'] });
  // The trigger's event was written with the execution, at its creation time.
  const ex = await s.api('GET', `/api/v1/executions/${ids.trigger}`);
  assert.equal(trigger.created_at, ex.body.created_at);

  assertNoValue('the audit list', JSON.stringify(events));
  // team-b's refused write left no event there; the scratch namespace's events are its own.
  assert.deepEqual(await listAll({ namespace: 'team-b' }).then((x) => x.map((e) => e.action)), ['namespace.create']);
  assert.deepEqual(await listAll({ namespace: 'scratch' }).then((x) => x.map((e) => [e.action, e.actor])), [
    ['namespace.delete', 'e2e@example.com'],
    ['namespace.create', 'e2e@example.com'],
  ]);
  // Filters combine: the editor's starts.
  assert.deepEqual(
    (await listAll({ actor: EDITOR, action: '*', namespace: 'team-a' })).filter((e) => e.target?.startsWith('execution:')).map((e) => e.action),
    ['file.run', 'execution.trigger'],
  );
});

test('the export streams every selected event as NDJSON with the list filters; svc audit export writes the same to a file', async () => {
  const all = await exportAll({});
  assert.equal(all.res.status, 200);
  assert.match(all.res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
  assert.match(all.res.headers.get('content-disposition') ?? '', /^attachment; filename="audit-.*\.ndjson"$/);
  assert.ok(all.text.endsWith('\n'));
  // The same events as the list, in the same order (newest first).
  const listed = await listAll({});
  assert.deepEqual(
    all.events.map((e) => e.id),
    listed.map((e) => e.id),
  );
  assert.deepEqual(all.events[0], listed[0]);
  assertNoValue('the export', all.text);

  const ns = await exportAll({ namespace: 'team-a', action: 'namespace.*' });
  assert.deepEqual(
    ns.events.map((e) => e.action),
    ['namespace.revert', 'namespace.save', 'namespace.save', 'namespace.create'],
  );
  assert.ok(ns.events.every((e) => e.payload?.namespace === 'team-a'));
  const none = await exportAll({ from: new Date(Date.now() + 3_600_000).toISOString() });
  assert.equal(none.res.status, 200);
  assert.equal(none.text, '');
  const bad = await exportAll({ from: 'yesterday' });
  assert.equal(bad.res.status, 422);
  assert.equal(JSON.parse(bad.text).error.details[0].field, 'from');
  // The bound editor reads neither the list nor the export.
  const denied = await exportAll({}, editorToken);
  assert.equal(denied.res.status, 403);
  assert.equal((await asEditor('GET', '/api/v1/audit')).status, 403);

  // The CLI: svc audit export --namespace team-a --action 'execution.*' --since 1h > file.
  const cli = await svcToFile(['audit', 'export', '--namespace', 'team-a', '--action', 'execution.*', '--since', '1h']);
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stderr, /^1 audit event exported$/m);
  const lines = cli.text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEvent);
  assert.deepEqual(
    lines.map((e) => [e.action, e.actor, e.target]),
    [['execution.trigger', EDITOR, `execution:${ids.trigger}`]],
  );
  const every = await svcToFile(['audit', 'export', '--since', started.toISOString()]);
  assert.equal(every.code, 0, every.stderr);
  assert.equal(every.text.split('\n').filter(Boolean).length, all.events.filter((e) => new Date(e.created_at) >= started).length);
  assertNoValue('svc audit export', every.text);
  // A bad --since is a usage error before any request.
  const usage = await svcToFile(['audit', 'export', '--since', 'last tuesday']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--since takes an ISO date/);
});
