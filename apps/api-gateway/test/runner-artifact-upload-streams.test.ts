// runnerPutArtifact streams: the body goes to the object store chunk by chunk,
// counted and hashed on the way. Past SVC_MAX_ARTIFACT_BYTES it is 413, with
// a declared x-svc-sha256 that the bytes do not have it is 422, and in both
// cases neither an object nor a row is left. An upload larger than the
// gateway could hold without notice leaves its resident memory flat (the
// memory figures belong to bench/files-upload-memory.bench.mjs; this checks
// the mechanism), and an output file (`?kind=output`) is a row of its kind.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { claimRuns, saveFlow, startLiveGateway, trigger, type ClaimedRun, type LiveGateway } from './live-helpers.js';

const MiB = 1024 * 1024;
let gw: LiveGateway;
let exId: string;
let run: ClaimedRun;

before(async () => {
  gw = await startLiveGateway({ env: { SVC_MAX_ARTIFACT_BYTES: '400MiB' } });
  await saveFlow(gw, 'uploads', { id: 'put', tasks: [{ id: 'w', type: 'command', command: ['true'] }] });
  exId = await trigger(gw, 'uploads', 'put');
  [run] = await claimRuns(gw);
});
after(() => gw?.close());

/** `total` bytes as a stream of one reused chunk: the sender holds 1 MiB whatever the size. */
function streamOf(total: number, fill = 7): ReadableStream<Uint8Array> {
  const chunk = Buffer.alloc(MiB, fill);
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(MiB, total - sent);
      c.enqueue(n === MiB ? new Uint8Array(chunk) : new Uint8Array(chunk.subarray(0, n)));
      sent += n;
    },
  });
}

const put = (name: string, body: NonNullable<RequestInit['body']>, headers: Record<string, string> = {}, query = '') =>
  fetch(`${gw.url}/api/runner/v1/task-runs/${run.id}/artifacts/${encodeURIComponent(name)}${query}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/octet-stream', ...headers },
    body,
    duplex: 'half',
  } as RequestInit);

const rows = async (name: string) => (await gw.db.pool.query('SELECT kind, size, sha256, object_key FROM artifacts WHERE task_run_id = $1 AND name = $2', [run.id, name])).rows;
const objects = async () => {
  const keys: string[] = [];
  for await (const o of gw.storage.list(`artifacts/${exId}/`)) keys.push(o.key);
  return keys.sort();
};

test('an upload with the sha256 it declares is stored with its size and sha256; kind=output makes an output file', async () => {
  const body = crypto.randomBytes(5 * MiB + 3);
  const sha = crypto.createHash('sha256').update(body).digest('hex');
  const r = await put('out/a.bin', body, { 'x-svc-sha256': sha }, '?kind=output');
  assert.equal(r.status, 201, await r.clone().text());
  const stored = (await r.json()) as { id: string; size: number; sha256: string };
  assert.equal(stored.size, body.length);
  assert.equal(stored.sha256, sha);
  const [row] = await rows('out/a.bin');
  assert.equal(row.kind, 'output');
  assert.equal(Number(row.size), body.length);
  assert.ok(
    crypto
      .createHash('sha256')
      .update(await gw.storage.getBuffer(row.object_key))
      .digest('hex') === sha,
  );
  // The same name as an artifact is another row and another object.
  assert.equal((await put('out/a.bin', Buffer.from('x'))).status, 201);
  assert.deepEqual((await rows('out/a.bin')).map((x) => x.kind).sort(), ['artifact', 'output']);
});

test('a body whose sha256 is not the declared one is 422 on x-svc-sha256, and nothing is kept', async () => {
  const before = await objects();
  const r = await put('bad.bin', streamOf(3 * MiB), { 'x-svc-sha256': 'a'.repeat(64) });
  assert.equal(r.status, 422);
  const body = (await r.json()) as { error: { code: string; details: { field: string }[] } };
  assert.equal(body.error.details[0]?.field, 'x-svc-sha256');
  assert.deepEqual(await rows('bad.bin'), []);
  assert.deepEqual(await objects(), before);
  const malformed = await put('bad.bin', Buffer.from('x'), { 'x-svc-sha256': 'not-hex' });
  assert.equal(malformed.status, 422);
});

test('a body past SVC_MAX_ARTIFACT_BYTES is 413 too_large, declared or streamed, and nothing is kept', async () => {
  const before = await objects();
  const declared = await put('huge.bin', Buffer.alloc(16), { 'content-length': String(401 * MiB) }).catch((err: unknown) => err);
  // fetch refuses a content-length that is not the body's: the streamed case below is the one that matters.
  if (declared instanceof Response) assert.equal(declared.status, 413);
  const streamed = await put('huge.bin', streamOf(400 * MiB + 1));
  assert.equal(streamed.status, 413);
  const body = (await streamed.json()) as { error: { code: string; message: string } };
  assert.equal(body.error.code, 'too_large');
  assert.match(body.error.message, /huge\.bin is over SVC_MAX_ARTIFACT_BYTES \(419430400 bytes\)/);
  assert.deepEqual(await rows('huge.bin'), []);
  assert.deepEqual(await objects(), before);
});

test("a 300 MiB upload leaves the gateway's resident memory flat", async () => {
  const start = process.memoryUsage().rss;
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const r = await put('big.bin', streamOf(300 * MiB));
    assert.equal(r.status, 201, await r.clone().text());
    assert.equal(((await r.json()) as { size: number }).size, 300 * MiB);
  } finally {
    clearInterval(sampler);
  }
  // Held whole, the body alone would add 300 MiB.
  assert.ok(peak - start < 120 * MiB, `resident memory grew by ${Math.round((peak - start) / MiB)} MiB`);
});

test('an upload its client cuts off keeps nothing, not even a temporary file, and the gateway goes on serving', async () => {
  const tmpDir = path.join((gw.storage as unknown as { rootDir: string }).rootDir, '.tmp');
  const parts = () => (fs.existsSync(tmpDir) ? fs.readdirSync(tmpDir).filter((f) => f.endsWith('.part')) : []);
  const ac = new AbortController();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      sent += MiB;
      if (sent > 8 * MiB) {
        ac.abort();
        return c.close();
      }
      c.enqueue(new Uint8Array(MiB));
    },
  });
  await fetch(`${gw.url}/api/runner/v1/task-runs/${run.id}/artifacts/cut.bin`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/octet-stream' },
    body,
    signal: ac.signal,
    duplex: 'half',
  } as RequestInit).catch(() => undefined);
  // Without the cut-off reaching the store, its put would wait for the rest forever, its .part file kept.
  for (let i = 0; i < 200 && parts().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(parts(), []);
  assert.deepEqual(await rows('cut.bin'), []);
  assert.equal((await put('after.bin', Buffer.from('still serving'))).status, 201);
});
