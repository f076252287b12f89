// File inputs, the upload (docs/using/files.md): createUpload streams a file
// into a namespace and answers its id, size, sha256 and expiry; a body with
// another sha256 than declared (422) or over SVC_MAX_INPUT_FILE_BYTES (413,
// declared or found while streaming) keeps nothing. A user bound operator on
// team-a uploads there but not to team-b (403); a viewer cannot upload.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Schemas } from '@svc/api-spec';
import { boundUser, startStack, type Stack } from './stack.js';

let s: Stack;
const LIMIT = 64 * 1024;
let operatorA = '';
let viewerA = '';

before(async () => {
  s = await startStack({ env: { SVC_MAX_INPUT_FILE_BYTES: String(LIMIT) } });
  for (const name of ['team-a', 'team-b']) assert.equal((await s.api('POST', '/api/v1/namespaces', { name })).status, 201);
  operatorA = (await boundUser(s, { email: 'op@example.com', password: 'op password 1', namespace: 'team-a', role: 'operator', tokenName: 'op' })).token;
  viewerA = (await boundUser(s, { email: 'view@example.com', password: 'view password 1', namespace: 'team-a', role: 'viewer', tokenName: 'view' })).token;
});
after(() => s?.stop());

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

async function upload(ns: string, name: string, body: Buffer | ReadableStream<Uint8Array>, opts: { token?: string; sha256?: string } = {}) {
  const r = await fetch(`${s.url}/api/v1/namespaces/${ns}/uploads?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${opts.token ?? s.token}`,
      'content-type': 'application/octet-stream',
      ...(opts.sha256 ? { 'x-svc-sha256': opts.sha256 } : {}),
    },
    body,
    ...(Buffer.isBuffer(body) ? {} : { duplex: 'half' }),
  } as RequestInit);
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

const uploadRows = async () => Number((await s.db.query(`SELECT count(*)::int AS n FROM uploads`)).rows[0].n);
const uploadObjects = () => {
  const dir = path.join(s.dataDir, 'objects', 'uploads');
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).filter((f) => fs.statSync(path.join(dir, String(f))).isFile()).length : 0;
};

test('an upload is streamed to the namespace and answered with its id, size, sha256 and a 24 hour expiry', async () => {
  const body = crypto.randomBytes(50_000);
  const r = await upload('team-a', 'q3.csv', body, { sha256: sha(body) });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const u = r.body as Schemas['Upload'];
  assert.equal(u.namespace, 'team-a');
  assert.equal(u.name, 'q3.csv');
  assert.equal(u.size, body.length);
  assert.equal(u.sha256, sha(body));
  assert.equal(new Date(u.expires_at).getTime() - new Date(u.created_at).getTime(), 24 * 3_600_000);
  const row = (await s.db.query(`SELECT object_key FROM uploads WHERE id = $1`, [u.id])).rows[0];
  assert.deepEqual(fs.readFileSync(path.join(s.dataDir, 'objects', ...String(row.object_key).split('/'))), body);
});

test('another sha256 than declared (422), or a body over SVC_MAX_INPUT_FILE_BYTES, declared or streamed (413), keeps nothing', async () => {
  const rows = await uploadRows();
  const objects = uploadObjects();
  const body = crypto.randomBytes(1000);
  const bad = await upload('team-a', 'a.bin', body, { sha256: '0'.repeat(64) });
  assert.equal(bad.status, 422, JSON.stringify(bad.body));
  assert.equal(bad.body.error.details[0].field, 'x-svc-sha256');

  const big = await upload('team-a', 'big.bin', Buffer.alloc(LIMIT + 1));
  assert.equal(big.status, 413, JSON.stringify(big.body));
  assert.equal(big.body.error.code, 'too_large');
  assert.match(big.body.error.message, /SVC_MAX_INPUT_FILE_BYTES/);

  // No content-length: the limit is found while streaming.
  let sent = 0;
  const chunked = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent > LIMIT) return c.close();
      sent += 16 * 1024;
      c.enqueue(new Uint8Array(16 * 1024));
    },
  });
  const streamed = await upload('team-a', 'streamed.bin', chunked);
  assert.equal(streamed.status, 413, JSON.stringify(streamed.body));
  assert.equal(streamed.body.error.code, 'too_large');

  assert.equal(await uploadRows(), rows, 'no row');
  assert.equal(uploadObjects(), objects, 'no object');
});

test('a user bound operator on team-a uploads to team-a, not to team-b (403); a viewer cannot upload; an unknown namespace is 404', async () => {
  const body = Buffer.from('a,b\n1,2\n');
  assert.equal((await upload('team-a', 'ok.csv', body, { token: operatorA })).status, 201);
  const rows = await uploadRows();
  const other = await upload('team-b', 'x.csv', body, { token: operatorA });
  assert.equal(other.status, 403, JSON.stringify(other.body));
  assert.equal(other.body.error.code, 'forbidden');
  assert.equal((await upload('team-a', 'x.csv', body, { token: viewerA })).status, 403);
  assert.equal(await uploadRows(), rows, 'nothing was kept of the refused uploads');
  assert.equal((await upload('no-such-ns', 'x.csv', body)).status, 404);
});

test('a bad file name is refused on its field', async () => {
  const r = await upload('team-a', 'dir/x.csv', Buffer.from('x'));
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.match(JSON.stringify(r.body.error.details), /name/);
});
