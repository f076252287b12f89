// File inputs with a real gateway and process dispatcher (docs/using/files.md):
// a file is uploaded to a namespace (createUpload), then named by its id as
// the value of a flow input of `type: file`. The execution lists it as an
// artifact of kind `input` (downloadable byte for byte); a command task reads
// `{{ inputs.report }}` as a local path its runner fetched, with the upload's
// sha256. An unknown, expired or other namespace's upload, or a missing
// required file, is refused on `inputs.<id>` (single and batch triggers); a
// default on a file input is refused at save. A user bound on team-a cannot
// use team-b's upload, and a run of team-a cannot fetch team-b's input file.
// A restart reads the same file, a replay another upload it is given (422 for
// an unknown one); a rerun keeps the same file after the upload expired, and
// the upload's expiry keeps an object an execution's file input points at.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { markInstanceStopped } from '@svc/db';
import type { Schemas } from '@svc/api-spec';
import { boundUser, startStack, type Stack } from './stack.js';
import { claimAsDispatcher, flow, run, sh } from './engine-support.js';

let s: Stack;
let operatorA = '';
/** Emits the path the task got and the sha256 of the file there. */
const READ_SHA = `printf '{"outputs":{"path":"%s","sha":"%s"}}\\n' "$F" "$(sha256sum "$F" | cut -c1-64)" >> "$SVC_OUTPUTS"`;
const readFlow = (id: string) =>
  flow({
    id,
    inputs: [{ id: 'report', type: 'file', required: true }],
    tasks: [{ id: 'r', type: 'command', env: { F: '{{ inputs.report }}' }, command: sh(READ_SHA) }],
  });

before(async () => {
  // Maintenance is started by the last test, once uploads expired: it runs retention as it takes its lease.
  s = await startStack({ maintenance: false });
  await s.saveFlow('team-a', { 'read.flow.yaml': readFlow('read') });
  await s.saveFlow('team-b', { 'read.flow.yaml': readFlow('read') });
  // Fails on a file that says "bad": a restart reads the same file again, a replay with another upload succeeds.
  await s.saveFlow('team-a', {
    'check.flow.yaml': flow({
      id: 'check',
      inputs: [{ id: 'report', type: 'file', required: true }],
      tasks: [
        { id: 'first', type: 'command', command: ['true'] },
        { id: 'check', type: 'command', depends_on: ['first'], env: { F: '{{ inputs.report }}' }, command: sh(`! grep -q bad "$F" && ${READ_SHA}`) },
      ],
    }),
  });
  operatorA = (await boundUser(s, { email: 'op@example.com', password: 'op password 1', namespace: 'team-a', role: 'operator', tokenName: 'op' })).token;
});
after(() => s?.stop());

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

async function upload(ns: string, name: string, body: Buffer, token = s.token): Promise<Schemas['Upload']> {
  const r = await fetch(`${s.url}/api/v1/namespaces/${ns}/uploads?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body,
  });
  const text = await r.text();
  assert.equal(r.status, 201, text);
  return JSON.parse(text) as Schemas['Upload'];
}

async function post(p: string, body: unknown, token = s.token) {
  const r = await fetch(`${s.url}${p}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, text, body: text ? JSON.parse(text) : undefined };
}

const artifactsOf = async (id: string) => (await s.api('GET', `/api/v1/executions/${id}/artifacts`)).body.items as Schemas['Artifact'][];
const executionCount = async () => Number((await s.db.query(`SELECT count(*)::int AS n FROM executions`)).rows[0].n);

test('a command task reads the file input at a local path, with the sha256 of the upload; the execution lists and serves it as an input', async () => {
  const body = Buffer.concat([Buffer.from('region,amount\n'), crypto.randomBytes(200_000)]);
  const u = await upload('team-a', 'q3.csv', body);
  const done = await s.waitEnded((await s.trigger('team-a', 'read', { inputs: { report: u.id } })).id);
  assert.equal(done.state, 'SUCCESS', run(done, 'r').error);
  assert.deepEqual(run(done, 'r').outputs, { path: '.svc/files/inputs/report/q3.csv', sha: u.sha256 });
  assert.equal(u.sha256, sha(body));

  const items = await artifactsOf(done.id);
  assert.equal(items.length, 1, JSON.stringify(items));
  const [a] = items;
  assert.equal(a.kind, 'input');
  assert.equal(a.name, 'report/q3.csv');
  assert.equal(a.size, body.length);
  assert.equal(a.sha256, u.sha256);
  assert.equal(a.task_run_id, undefined);
  assert.equal(a.task_key, undefined);
  const r = await fetch(`${s.url}/api/v1/executions/${done.id}/artifacts/${a.id}`, { headers: { authorization: `Bearer ${s.token}` } });
  assert.equal(r.status, 200);
  assert.deepEqual(Buffer.from(await r.arrayBuffer()), body);
});

test('an unknown, expired or other namespace upload, or no file for a required input, is refused on inputs.report and nothing is created', async () => {
  const mine = await upload('team-a', 'a.csv', Buffer.from('a\n'));
  const theirs = await upload('team-b', 'b.csv', Buffer.from('b\n'));
  const expired = await upload('team-a', 'old.csv', Buffer.from('old\n'));
  await s.db.query(`UPDATE uploads SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
  const before = await executionCount();
  for (const [inputs, message] of [
    [{ report: 'nosuchupload' }, /no upload "nosuchupload" in namespace team-a/],
    [{ report: theirs.id }, new RegExp(`no upload "${theirs.id}" in namespace team-a`)],
    [{ report: expired.id }, /has expired/],
    [{}, /is required/],
    [{ report: 42 }, /must be the id of an upload/],
  ] as const) {
    const r = await post('/api/v1/flows/team-a/read/executions', { inputs });
    assert.equal(r.status, 422, r.text);
    const details = r.body.error.details as Schemas['ErrorDetail'][];
    assert.deepEqual(
      details.map((d) => d.field),
      ['inputs.report'],
    );
    assert.match(details[0].message, message);
  }
  // A batch names the item; its dry run checks the files too.
  for (const dry_run of [true, false]) {
    const r = await post('/api/v1/flows/team-a/read/executions/batch', { dry_run, items: [{ inputs: { report: mine.id } }, { inputs: { report: theirs.id } }] });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(
      (r.body.error.details as Schemas['ErrorDetail'][]).map((d) => d.field),
      ['items[1].inputs.report'],
    );
  }
  assert.equal(await executionCount(), before, 'nothing was created');
  const ok = await post('/api/v1/flows/team-a/read/executions/batch', { items: [{ inputs: { report: mine.id } }, { inputs: { report: mine.id } }] });
  assert.equal(ok.status, 201, ok.text);
  for (const e of ok.body.executions as { id: string }[]) {
    assert.equal((await s.waitEnded(e.id)).state, 'SUCCESS');
    assert.deepEqual(
      (await artifactsOf(e.id)).map((a) => [a.kind, a.name, a.sha256]),
      [['input', 'report/a.csv', mine.sha256]],
    );
  }
});

test('a file input with a default is refused at save, on the field', async () => {
  const r = await s.api('POST', '/api/v1/namespaces/team-a/changes', {
    message: 'e2e',
    changes: [
      {
        op: 'put',
        path: 'bad.flow.yaml',
        content: flow({ id: 'bad', inputs: [{ id: 'report', type: 'file', default: 'q3.csv' }], tasks: [{ id: 't', type: 'command', command: ['true'] }] }),
      },
    ],
  });
  assert.equal(r.status, 422, JSON.stringify(r.body));
  const details = r.body.error.details as Schemas['ErrorDetail'][];
  assert.ok(
    details.some((d) => d.field === 'bad.flow.yaml:/inputs/0/default' && /a file input has no default/.test(d.message)),
    JSON.stringify(details),
  );
});

test("a user bound operator on team-a uses team-a's uploads, not team-b's (422, nothing told of it), and cannot trigger team-b (403)", async () => {
  const mine = await upload('team-a', 'mine.csv', Buffer.from('mine\n'), operatorA);
  const theirs = await upload('team-b', 'secret.csv', Buffer.from('theirs\n'));
  const ok = await post('/api/v1/flows/team-a/read/executions', { inputs: { report: mine.id } }, operatorA);
  assert.equal(ok.status, 201, ok.text);
  assert.equal((await s.waitEnded(ok.body.id)).state, 'SUCCESS');
  const refused = await post('/api/v1/flows/team-a/read/executions', { inputs: { report: theirs.id } }, operatorA);
  assert.equal(refused.status, 422, refused.text);
  assert.ok(!refused.text.includes('secret.csv') && !refused.text.includes(theirs.sha256), 'nothing of the other upload is told');
  const other = await post('/api/v1/flows/team-b/read/executions', { inputs: { report: theirs.id } }, operatorA);
  assert.equal(other.status, 403, other.text);
});

test("a run of team-a cannot fetch team-b's input file over the runner protocol; its own run can", async () => {
  const held = { type: 'process', pool: 'held-inputs' };
  const heldFlow = (id: string) =>
    flow({ id, inputs: [{ id: 'report', type: 'file' }], tasks: [{ id: 'r', type: 'command', executor: held, env: { F: '{{ inputs.report }}' }, command: sh('cat "$F"') }] });
  await s.saveFlow('team-a', { 'held.flow.yaml': heldFlow('held') });
  await s.saveFlow('team-b', { 'held.flow.yaml': heldFlow('held') });
  const a = (await s.trigger('team-a', 'held', { inputs: { report: (await upload('team-a', 'a.csv', Buffer.from('a\n'))).id } })).id;
  const b = (await s.trigger('team-b', 'held', { inputs: { report: (await upload('team-b', 'b.csv', Buffer.from('b secret\n'))).id } })).id;
  await s.waitFor(a, (e) => e.task_runs[0]?.state === 'QUEUED');
  await s.waitFor(b, (e) => e.task_runs[0]?.state === 'QUEUED');
  const [fileB] = await artifactsOf(b);
  const { claimed, getFile: get } = await claimAsDispatcher(s.db, s.url, { id: 'inputs-test', pools: ['held-inputs'], limit: 2 });
  assert.equal(claimed.length, 2);
  const runA = claimed.find((c: any) => c.execution_id === a)!;
  const runB = claimed.find((c: any) => c.execution_id === b)!;
  const own = await get(runB.id, fileB.id);
  assert.equal(own.status, 200);
  assert.equal(Buffer.from(await own.arrayBuffer()).toString(), 'b secret\n');
  const r = await get(runA.id, fileB.id);
  const text = await r.text();
  assert.ok(fileB.sha256, 'the input file has a sha256');
  assert.equal(r.status, 404, text);
  assert.ok(!text.includes('b secret') && !text.includes(fileB.sha256), 'nothing of the file is told');
  await markInstanceStopped(s.db, 'inputs-test');
});

test('a restart reads the same file again; a replay with another upload reads the new one, and an unknown upload there is a 422 on inputs.report', async () => {
  const bad = await upload('team-a', 'r.csv', Buffer.from('bad\n'));
  const good = await upload('team-a', 'r.csv', Buffer.from('good\n'));
  const failed = await s.waitEnded((await s.trigger('team-a', 'check', { inputs: { report: bad.id } })).id);
  assert.equal(failed.state, 'FAILED');
  const restart = await post(`/api/v1/executions/${failed.id}/restart`, {});
  assert.equal(restart.status, 201, restart.text);
  const restarted = await s.waitEnded(restart.body.id);
  assert.equal(restarted.state, 'FAILED', 'the same bad file');
  assert.equal(run(restarted, 'first').reason, 'reused');
  assert.deepEqual(
    (await artifactsOf(restarted.id)).map((a) => [a.kind, a.name, a.sha256]),
    [['input', 'report/r.csv', bad.sha256]],
  );

  const unknown = await post(`/api/v1/executions/${failed.id}/replay`, { inputs: { report: 'nosuchupload' }, from: 'check' });
  assert.equal(unknown.status, 422, unknown.text);
  assert.deepEqual(
    (unknown.body.error.details as Schemas['ErrorDetail'][]).map((d) => d.field),
    ['inputs.report'],
  );
  const replay = await post(`/api/v1/executions/${failed.id}/replay`, { inputs: { report: good.id }, from: 'check' });
  assert.equal(replay.status, 201, replay.text);
  const done = await s.waitEnded(replay.body.id);
  assert.equal(done.state, 'SUCCESS', run(done, 'check').error);
  assert.equal(run(done, 'first').reason, 'reused');
  assert.deepEqual(run(done, 'check').outputs, { path: '.svc/files/inputs/report/r.csv', sha: good.sha256 });
  assert.deepEqual(
    (await artifactsOf(done.id)).map((a) => [a.kind, a.name, a.sha256]),
    [['input', 'report/r.csv', good.sha256]],
  );
});

test('a rerun keeps the same file after the upload expired, and the expiry keeps an object a file input points at', async () => {
  const body = crypto.randomBytes(10_000);
  const u = await upload('team-a', 'keep.bin', body);
  const first = await s.waitEnded((await s.trigger('team-a', 'read', { inputs: { report: u.id } })).id);
  assert.equal(first.state, 'SUCCESS');
  const unused = await upload('team-a', 'unused.bin', Buffer.from('unused\n'));
  await s.db.query(`UPDATE uploads SET expires_at = now() - interval '1 second' WHERE id = ANY($1)`, [[u.id, unused.id]]);
  const keys = (await s.db.query(`SELECT id, object_key FROM uploads WHERE id = ANY($1)`, [[u.id, unused.id]])).rows;
  const objectOf = (id: string) => path.join(s.dataDir, 'objects', ...String(keys.find((k) => k.id === id).object_key).split('/'));

  // Maintenance runs retention as it takes its lease; it deletes expired uploads: the rows both, the object of the unused one only.
  const m = s.startApp('maintenance');
  try {
    for (let i = 0; ; i++) {
      const left = Number((await s.db.query(`SELECT count(*)::int AS n FROM uploads WHERE id = ANY($1)`, [[u.id, unused.id]])).rows[0].n);
      if (left === 0 && !fs.existsSync(objectOf(unused.id))) break;
      assert.ok(i < 1200, `maintenance deleted the expired uploads: ${m.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    m.child.kill('SIGTERM');
    await m.exited;
  }
  assert.deepEqual(fs.readFileSync(objectOf(u.id)), body, 'the object a file input points at is kept');

  const rerun = await post(`/api/v1/executions/${first.id}/rerun`, {});
  assert.equal(rerun.status, 201, rerun.text);
  const again = await s.waitEnded(rerun.body.id);
  assert.equal(again.state, 'SUCCESS', run(again, 'r').error);
  assert.deepEqual(run(again, 'r').outputs, { path: '.svc/files/inputs/report/keep.bin', sha: sha(body) });
  assert.deepEqual(
    (await artifactsOf(again.id)).map((a) => [a.kind, a.name, a.sha256]),
    [['input', 'report/keep.bin', sha(body)]],
  );
});
