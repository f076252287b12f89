// Git sources with real processes: the gateway takes the API calls and the
// push webhook, two scheduler processes run the git sync workers, and they
// meet only in PostgreSQL (queued runs, the per-source lease, NOTIFY). A
// bare repository over file:// is the remote. Each commit is synced once
// however the two workers race, by polling and by a signed push webhook;
// the mapped namespace refuses writes through the API.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { hubSignature } from '@svc/git-sources';
import { TestRepo, tempRoot } from '@svc/git-sources/testing';
import { startStack, type Stack } from './stack.js';
import { until } from './engine-support.js';

let s: Stack;
let root: string;
const WEBHOOK_SECRET = 'e2e-webhook-secret-7Hq';
const flow = (id: string, command = 'true') => JSON.stringify({ id, tasks: [{ id: 't', type: 'command', command: [command] }] });

before(async () => {
  s = await startStack({ dispatchers: 0, maintenance: false });
  for (let i = 0; i < 2; i++) s.startApp('scheduler', { SVC_GIT_SYNC_TICK_MS: '100' });
  root = tempRoot();
});
after(async () => {
  await s.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const source = async (id: string) => (await s.api('GET', `/api/v1/git-sources/${id}`)).body;
const runs = async (id: string) => (await s.api('GET', `/api/v1/git-sources/${id}/runs?limit=200`)).body.items as { status: string; sha: string; trigger: string }[];

test('two scheduler processes sync each commit once, by poll and by push webhook', async () => {
  const repo = new TestRepo(root, 'e2e');
  const first = repo.commit({ 'flows/hello.flow.yaml': flow('hello') }, 'first');
  assert.ok([200, 201].includes((await s.api('PUT', '/api/v1/platform-secrets/E2E_GIT_WEBHOOK', { value: WEBHOOK_SECRET })).status));
  const created = await s.api('POST', '/api/v1/git-sources', {
    name: 'e2e',
    repo_url: repo.fileUrl,
    poll_interval: 1,
    webhook_secret_key: 'E2E_GIT_WEBHOOK',
    mappings: [{ namespace: 'e2e.git', repo_path: 'flows' }],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.id as string;
  await until('first sync', async () => (await source(id)).last_synced_sha === first);
  const versions = (await s.api('GET', '/api/v1/namespaces/e2e.git/versions')).body.items;
  assert.equal(versions[0].git_sha, first);
  assert.equal((await s.api('GET', '/api/v1/flows/e2e.git/hello')).status, 200);

  // Polling (every second): a new commit is picked up by one of the two.
  const second = repo.commit({ 'flows/hello.flow.yaml': flow('hello', 'false') }, 'second');
  await until('polled', async () => (await source(id)).last_synced_sha === second);

  // The push webhook: a bad signature starts nothing, a good one syncs.
  const third = repo.commit({ 'flows/bye.flow.yaml': flow('bye') }, 'third');
  const payload = JSON.stringify({ ref: 'refs/heads/main' });
  const bad = await fetch(`${s.url}/hooks/git/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature('wrong', Buffer.from(payload)) },
    body: payload,
  });
  assert.equal(bad.status, 401);
  const good = await fetch(`${s.url}/hooks/git/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(WEBHOOK_SECRET, Buffer.from(payload)) },
    body: payload,
  });
  assert.equal(good.status, 202);
  await until('third synced', async () => (await source(id)).last_synced_sha === third);
  await until('no sync running', async () => (await runs(id)).every((r) => r.status !== 'running' && r.status !== 'queued'));

  // Each commit was written once: one successful run per commit, one version per commit.
  const ok = (await runs(id)).filter((r) => r.status === 'success');
  assert.deepEqual(ok.map((r) => r.sha).sort(), [first, second, third].sort());
  const all = (await s.api('GET', '/api/v1/namespaces/e2e.git/versions')).body.items;
  assert.deepEqual(
    all.map((v: { git_sha: string }) => v.git_sha),
    [third, second, first],
  );
  // Two scheduler instances ran throughout.
  assert.equal((await s.db.query(`SELECT count(*)::int AS n FROM instances WHERE kind = 'scheduler' AND stopped_at IS NULL`)).rows[0].n, 2);

  const write = await s.api('POST', '/api/v1/namespaces/e2e.git/changes', { message: 'x', changes: [{ op: 'put', path: 'x.txt', content: 'x' }] });
  assert.equal(write.status, 409);
  assert.equal(write.body.error.code, 'namespace_read_only');
});
