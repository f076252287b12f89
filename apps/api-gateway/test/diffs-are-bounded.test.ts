// Any viewer can ask for diffs of files up to SVC_MAX_FILE_BYTES (10 MiB): a
// line diff of two large, different texts once ran for seconds on the event
// loop, stalling every other request. Diffs are now computed in jsdiff's
// async mode with limits: texts over 1 MiB, or too different, get
// `too_large` instead of a diff, and the gateway keeps answering meanwhile.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw } from './identity-helpers.js';

let gw: TestGateway;
let viewer: string;
let editor: string;

const call = (token: string, method: string, path: string, body?: unknown) =>
  raw(gw, method, path, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body === undefined ? undefined : JSON.stringify(body));

/** Lines that differ everywhere between two seeds. */
const text = (seed: string, lines: number) => Array.from({ length: lines }, (_, i) => `${seed}-${i}-${(i * 7919) % 104729}`).join('\n');

before(async () => {
  gw = await startTestGateway();
  await makeUser(gw, 'root@example.com', 'admin');
  const cookie = await login(gw, 'root@example.com');
  editor = await makeToken(gw, cookie, 'admin');
  viewer = await makeToken(gw, cookie, 'viewer');
  assert.equal((await call(editor, 'POST', '/api/v1/namespaces', { name: 'big' })).status, 201);
  const save = (message: string, changes: unknown[]) => call(editor, 'POST', '/api/v1/namespaces/big/changes', { message, changes });
  assert.equal(
    (
      await save('v1', [
        { op: 'put', path: 'huge.txt', content: text('a', 120_000) },
        { op: 'put', path: 'wide.txt', content: text('c', 30_000) },
        { op: 'put', path: 'small.txt', content: 'one\ntwo\n' },
      ])
    ).status,
    201,
  );
  assert.equal(
    (
      await save('v2', [
        { op: 'put', path: 'huge.txt', content: text('b', 120_000) },
        { op: 'put', path: 'wide.txt', content: text('d', 30_000) },
        { op: 'put', path: 'small.txt', content: 'one\nthree\n' },
      ])
    ).status,
    201,
  );
});
after(() => gw.close());

test('a viewer diffing large or very different files gets too_large for them, a diff for the rest, and the gateway keeps answering', async () => {
  const diff = call(viewer, 'GET', '/api/v1/namespaces/big/diff?from=1&to=2');
  // While the diff runs, other requests are served.
  const pings: number[] = [];
  const t0 = Date.now();
  while (pings.length < 5) {
    const r = await raw(gw, 'GET', '/healthz');
    assert.equal(r.status, 200);
    pings.push(Date.now() - t0);
  }
  const r = await diff;
  assert.equal(r.status, 200, r.body);
  const files = r.json<{ files: { path: string; diff?: string; too_large?: boolean }[] }>().files;
  const by = Object.fromEntries(files.map((f) => [f.path, f]));
  assert.equal(by['huge.txt']!.too_large, true, 'over 1 MiB: no line diff');
  assert.equal(by['huge.txt']!.diff, undefined);
  assert.equal(by['wide.txt']!.too_large, true, 'every line differs: past the edit limit');
  assert.match(by['small.txt']!.diff!, /-two\n\+three/);
  assert.equal(by['small.txt']!.too_large, undefined);
});
