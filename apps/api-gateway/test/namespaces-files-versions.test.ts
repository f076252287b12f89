import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw, type RawResponse } from './identity-helpers.js';
import { assertConforms } from './secrets-helpers.js';

let gw: TestGateway;
let admin: string;
let editor: string;
let viewer: string;

before(async () => {
  gw = await startTestGateway({ env: { SVC_MAX_FILE_BYTES: '64KiB', SVC_MAX_BUNDLE_BYTES: '256KiB' } });
  await makeUser(gw, 'admin@example.com', 'admin');
  const cookie = await login(gw, 'admin@example.com');
  admin = await makeToken(gw, cookie, 'admin');
  editor = await makeToken(gw, cookie, 'editor');
  viewer = await makeToken(gw, cookie, 'viewer');
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
const save = (ns: string, changes: unknown[], extra: Record<string, unknown> = {}) =>
  call(editor, 'POST', `/api/v1/namespaces/${ns}/changes`, { message: 'test', changes, ...extra });
const json = <T>(r: RawResponse) => r.json<T>();

test('namespaces form a tree: creating a.b.c creates its parents; listing is in tree order', async () => {
  const r = await call(admin, 'POST', '/api/v1/namespaces', { name: 'acme.data.etl', description: 'ETL jobs' });
  assert.equal(r.status, 201);
  assert.equal(json<{ parent: string }>(r).parent, 'acme.data');
  await call(admin, 'POST', '/api/v1/namespaces', { name: 'acme.web' });
  assert.equal((await call(admin, 'POST', '/api/v1/namespaces', { name: 'acme.web' })).status, 409);
  const list = json<{ items: { name: string; depth: number; children: string[] }[] }>(await call(viewer, 'GET', '/api/v1/namespaces?parent=acme'));
  assert.deepEqual(
    list.items.map((n) => n.name),
    ['acme', 'acme.data', 'acme.data.etl', 'acme.web'],
  );
  assert.deepEqual(list.items[0]!.children, ['acme.data', 'acme.web']);
  assert.deepEqual(
    list.items.map((n) => n.depth),
    [0, 1, 2, 1],
  );
  const bad = await call(admin, 'POST', '/api/v1/namespaces', { name: 'Acme..x' });
  assert.equal(bad.status, 422);
  assert.equal(bad.json().error.details![0]!.field, 'name');
  assert.equal((await call(editor, 'POST', '/api/v1/namespaces', { name: 'nope' })).status, 403, 'creating namespaces is admin');
});

test('a save is one new version with author, message, file count and manifest hash', async () => {
  const r = await save('acme.data', [
    { op: 'put', path: 'scripts/hello.py', content: 'print("hi")\n', executable: true },
    { op: 'put', path: './docs//readme.md', content: '# Data\n' },
  ]);
  assert.equal(r.status, 201);
  const v = json<{ version: number; author: string; message: string; file_count: number; manifest_hash: string; id: string; created_at: string }>(r);
  assert.equal(v.version, 1);
  assert.equal(v.author, 'admin@example.com');
  assert.equal(v.file_count, 2);
  assert.match(v.manifest_hash, /^[0-9a-f]{64}$/);
  const files = json<{ version: number; items: { path: string; executable: boolean; sha256: string }[] }>(await call(viewer, 'GET', '/api/v1/namespaces/acme.data/files'));
  assert.deepEqual(
    files.items.map((f) => [f.path, f.executable]),
    [
      ['docs/readme.md', false],
      ['scripts/hello.py', true],
    ],
    'paths normalised',
  );
  // The page as the document declares it (FilePage): each file's SHA-256, and the version they are of.
  assertConforms('listFiles', 200, files);
  assert.equal(files.version, 1);
  const sha = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
  assert.equal(files.items.find((x) => x.path === 'scripts/hello.py')?.sha256, sha('print("hi")\n'));
  const f = json<{ content: string; encoding: string; version: number; sha256: string }>(await call(viewer, 'GET', '/api/v1/namespaces/acme.data/file?path=scripts/hello.py'));
  assert.deepEqual([f.content, f.encoding, f.version, f.sha256], ['print("hi")\n', 'utf8', 1, sha('print("hi")\n')]);
  assertConforms('getFile', 200, f);
});

test('paths that could escape the namespace are refused with 422 and the field', async () => {
  for (const path of ['../etc/passwd', '/abs/file', 'a/../../b', 'a\\b', 'a\u0000b', 'C:/x', 'dir/', 'a/./../b', '..']) {
    const r = await save('acme.data', [{ op: 'put', path, content: 'x' }]);
    assert.equal(r.status, 422, JSON.stringify(path));
    assert.equal(r.json().error.details![0]!.field, 'changes[0].path', JSON.stringify(path));
  }
  const rename = await save('acme.data', [{ op: 'rename', path: 'docs/readme.md', new_path: '../x.md' }]);
  assert.equal(rename.json().error.details![0]!.field, 'changes[0].new_path');
});

test('binary content round-trips through content_base64 and upload', async () => {
  const bytes = crypto.randomBytes(3000);
  bytes[0] = 0;
  assert.equal((await save('acme.data', [{ op: 'put', path: 'data/blob.bin', content_base64: bytes.toString('base64') }])).status, 201);
  const got = json<{ encoding: string; content_base64: string }>(await call(viewer, 'GET', '/api/v1/namespaces/acme.data/file?path=data/blob.bin'));
  assert.equal(got.encoding, 'base64');
  assert.ok(Buffer.from(got.content_base64, 'base64').equals(bytes));
  const other = crypto.randomBytes(5000);
  const up = await raw(
    gw,
    'PUT',
    '/api/v1/namespaces/acme.data/file?path=data/up.bin&executable=true&message=upload',
    { authorization: `Bearer ${editor}`, 'content-type': 'application/octet-stream' },
    other,
  );
  assert.equal(up.status, 201, up.body);
  const back = json<{ content_base64: string; executable: boolean }>(await call(viewer, 'GET', '/api/v1/namespaces/acme.data/file?path=data/up.bin'));
  assert.ok(Buffer.from(back.content_base64, 'base64').equals(other));
  assert.equal(back.executable, true);
});

test('the same content is stored once', async () => {
  const content = `shared ${crypto.randomUUID()}`;
  assert.equal(
    (
      await save('acme.web', [
        { op: 'put', path: 'a.txt', content },
        { op: 'put', path: 'b/c.txt', content },
      ])
    ).status,
    201,
  );
  assert.equal((await save('acme.data', [{ op: 'put', path: 'copy.txt', content }])).status, 201);
  const hash = crypto.createHash('sha256').update(content).digest('hex');
  assert.equal((await gw.db.pool.query(`SELECT count(*)::int AS n FROM file_objects WHERE hash = $1`, [hash])).rows[0].n, 1);
  const keys = [];
  for await (const o of gw.storage.list('files/')) if (o.key.endsWith(hash)) keys.push(o.key);
  assert.equal(keys.length, 1);
});

test('base_version: a stale base is 409 version_conflict naming the head; of concurrent saves on one base exactly one wins', async () => {
  const head = json<{ head_version: number }>(await call(viewer, 'GET', '/api/v1/namespaces/acme.web')).head_version;
  const stale = await save('acme.web', [{ op: 'put', path: 'x.txt', content: 'x' }], { base_version: head - 1 });
  assert.equal(stale.status, 409);
  assert.equal(stale.json().error.code, 'version_conflict');
  assert.match(stale.json().error.message, new RegExp(`head version ${head}`));
  const racers = await Promise.all(Array.from({ length: 6 }, (_, i) => save('acme.web', [{ op: 'put', path: `race/${i}.txt`, content: String(i) }], { base_version: head })));
  assert.deepEqual(racers.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
  const after = json<{ head_version: number; file_count: number }>(await call(viewer, 'GET', '/api/v1/namespaces/acme.web'));
  assert.equal(after.head_version, head + 1);
  const files = json<{ items: { path: string }[] }>(await call(viewer, 'GET', '/api/v1/namespaces/acme.web/files'));
  assert.equal(files.items.filter((f) => f.path.startsWith('race/')).length, 1);
});

test('deletes, renames, clashes and content rules', async () => {
  const renamed = await save('acme.web', [{ op: 'rename', path: 'a.txt', new_path: 'moved/a.txt' }]);
  assert.equal(renamed.status, 201, renamed.body);
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/acme.web/file?path=a.txt')).status, 404);
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/acme.web/file?path=moved/a.txt')).status, 200);
  const missing = await save('acme.web', [{ op: 'delete', path: 'nope.txt' }]);
  assert.equal(missing.status, 422);
  assert.match(missing.json().error.details![0]!.message, /no file nope.txt/);
  const clash = await save('acme.web', [{ op: 'put', path: 'moved', content: 'x' }]);
  assert.equal(clash.status, 422);
  const both = await save('acme.web', [{ op: 'put', path: 'y.txt', content: 'x', content_base64: 'eA==' }]);
  assert.equal(both.status, 422);
  const badB64 = await save('acme.web', [{ op: 'put', path: 'y.txt', content_base64: 'not base64!' }]);
  assert.equal(badB64.json().error.details![0]!.field, 'changes[0].content_base64');
  // All changes of a refused set are discarded: the first put did not land.
  await save('acme.web', [
    { op: 'put', path: 'partial.txt', content: 'x' },
    { op: 'delete', path: 'nope.txt' },
  ]);
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/acme.web/file?path=partial.txt')).status, 404);
  assert.equal((await save('acme.web', [])).status, 422, 'at least one change');
  assert.equal((await call(editor, 'POST', '/api/v1/namespaces/acme.web/changes', { changes: [{ op: 'delete', path: 'x' }], message: '' })).status, 422, 'a message is required');
});

test('SVC_MAX_FILE_BYTES and SVC_MAX_BUNDLE_BYTES answer 413 too_large', async () => {
  const big = await save('acme.web', [{ op: 'put', path: 'big.txt', content: 'x'.repeat(64 * 1024 + 1) }]);
  assert.equal(big.status, 413);
  assert.equal(big.json().error.code, 'too_large');
  const upload = await raw(
    gw,
    'PUT',
    '/api/v1/namespaces/acme.web/file?path=big.bin',
    { authorization: `Bearer ${editor}`, 'content-type': 'application/octet-stream' },
    'y'.repeat(64 * 1024 + 1),
  );
  assert.equal(upload.status, 413);
  const many = Array.from({ length: 5 }, (_, i) => ({ op: 'put', path: `fill/${i}.txt`, content: crypto.randomBytes(30_000).toString('hex').slice(0, 60_000) }));
  const bundle = await save('acme.web', many);
  assert.equal(bundle.status, 413);
  assert.match(bundle.json().error.message, /SVC_MAX_BUNDLE_BYTES/);
});

test('getFile reads older versions; listVersions is newest first and pages; diffs are unified, binaries flagged', async () => {
  await call(admin, 'POST', '/api/v1/namespaces', { name: 'hist' });
  await save('hist', [{ op: 'put', path: 'a.txt', content: 'one\ntwo\n' }]);
  await save('hist', [
    { op: 'put', path: 'a.txt', content: 'one\nTWO\nthree\n' },
    { op: 'put', path: 'b.bin', content_base64: Buffer.from([0, 1, 2]).toString('base64') },
  ]);
  await save('hist', [{ op: 'delete', path: 'a.txt' }]);
  assert.equal(json<{ content: string }>(await call(viewer, 'GET', '/api/v1/namespaces/hist/file?path=a.txt&version=1')).content, 'one\ntwo\n');
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/hist/file?path=a.txt')).status, 404);
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/hist/file?path=a.txt&version=9')).status, 404);
  const p1 = json<{ items: { version: number }[]; next_cursor: string }>(await call(viewer, 'GET', '/api/v1/namespaces/hist/versions?limit=2'));
  assert.deepEqual(
    p1.items.map((v) => v.version),
    [3, 2],
  );
  const p2 = json<{ items: { version: number }[]; next_cursor?: string }>(await call(viewer, 'GET', `/api/v1/namespaces/hist/versions?limit=2&cursor=${p1.next_cursor}`));
  assert.deepEqual(
    p2.items.map((v) => v.version),
    [1],
  );
  assert.equal(p2.next_cursor, undefined);
  const d = json<{ from: number; to: number; files: { path: string; status: string; binary: boolean; diff?: string }[] }>(
    await call(viewer, 'GET', '/api/v1/namespaces/hist/diff?from=1&to=2'),
  );
  assert.deepEqual(
    d.files.map((f) => [f.path, f.status, f.binary]),
    [
      ['a.txt', 'modified', false],
      ['b.bin', 'added', true],
    ],
  );
  assert.match(d.files[0]!.diff!, /^-two$/m);
  assert.match(d.files[0]!.diff!, /^\+TWO$/m);
  assert.match(d.files[0]!.diff!, /^\+three$/m);
  assert.equal(d.files[1]!.diff, undefined);
  const toHead = json<{ to: number; files: { status: string }[] }>(await call(viewer, 'GET', '/api/v1/namespaces/hist/diff?from=2'));
  assert.equal(toHead.to, 3);
  assert.deepEqual(
    toHead.files.map((f) => f.status),
    ['deleted'],
  );
});

test('revert makes a new version whose files equal an older one', async () => {
  const v1 = json<{ items: { version: number; manifest_hash: string }[] }>(await call(viewer, 'GET', '/api/v1/namespaces/hist/versions?limit=200')).items.find(
    (v) => v.version === 1,
  )!;
  const r = await call(editor, 'POST', '/api/v1/namespaces/hist/revert', { version: 1, message: 'back to one' });
  assert.equal(r.status, 201);
  const v = json<{ version: number; manifest_hash: string; message: string }>(r);
  assert.equal(v.version, 4);
  assert.equal(v.manifest_hash, v1.manifest_hash);
  assert.equal(json<{ content: string }>(await call(viewer, 'GET', '/api/v1/namespaces/hist/file?path=a.txt')).content, 'one\ntwo\n');
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/hist/file?path=b.bin')).status, 404);
  const snaps = (await gw.db.pool.query(`SELECT DISTINCT snapshot_id FROM namespace_versions WHERE namespace = 'hist' AND version IN (1, 4)`)).rows;
  assert.equal(snaps.length, 1, 'the same files share one snapshot');
});

test('roles: viewers read, editors save, and nobody writes outside an existing namespace', async () => {
  assert.equal((await call(viewer, 'POST', '/api/v1/namespaces/hist/changes', { message: 'm', changes: [{ op: 'delete', path: 'a.txt' }] })).status, 403);
  assert.equal((await save('ghost', [{ op: 'put', path: 'a', content: 'x' }])).status, 404);
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/ghost')).status, 404);
});

test('deleteNamespace is refused while children or unfinished executions exist, naming them', async () => {
  await call(admin, 'POST', '/api/v1/namespaces', { name: 'gone.child' });
  const withChild = await call(admin, 'DELETE', '/api/v1/namespaces/gone');
  assert.equal(withChild.status, 409);
  assert.match(withChild.json().error.message, /gone\.child/);
  await save('gone.child', [{ op: 'put', path: 'f.txt', content: 'x' }]);
  const snap = (await gw.db.pool.query(`SELECT snapshot_id FROM namespace_versions WHERE namespace = 'gone.child'`)).rows[0].snapshot_id;
  await gw.db.pool.query(
    `INSERT INTO executions (id, state, namespace, snapshot_id, definition, created_by, trigger_type) VALUES ('exec-running-1', 'RUNNING', 'gone.child', $1, '{}', 't', 'manual')`,
    [snap],
  );
  const busy = await call(admin, 'DELETE', '/api/v1/namespaces/gone.child');
  assert.equal(busy.status, 409);
  assert.match(busy.json().error.message, /exec-running-1 \(RUNNING\)/);
  await gw.db.pool.query(`UPDATE executions SET state = 'SUCCESS' WHERE id = 'exec-running-1'`);
  assert.equal((await call(admin, 'DELETE', '/api/v1/namespaces/gone.child')).status, 204);
  assert.equal((await call(admin, 'DELETE', '/api/v1/namespaces/gone')).status, 204);
  assert.equal((await call(viewer, 'GET', '/api/v1/namespaces/gone.child')).status, 404);
  assert.equal((await gw.db.pool.query(`SELECT state FROM executions WHERE id = 'exec-running-1'`)).rows[0].state, 'SUCCESS', 'executions stay readable');
});
