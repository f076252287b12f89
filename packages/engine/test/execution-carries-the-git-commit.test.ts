// An execution of a flow in a git-synced namespace carries `git_sha`: the
// commit of the namespace version it pins, whose files it runs. A version a
// user saved has none; a later sync carries its commit to every flow's
// executions, changed or not (a script may have changed); a trigger from the
// flow cache carries it too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { saveChanges } from '@svc/namespaces';
import { dashboard, Dashboards, DashboardHoursCache, FlowCache, loadExecutions, triggerFlow, type StartDeps } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;
const SHA1 = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);

const flow = (id: string, cmd: string) => JSON.stringify({ id, tasks: [{ id: 't', type: 'command', command: [cmd] }] });
async function save(files: Record<string, string>, git?: { sha: string }) {
  await saveChanges(
    { pool, storage: deps.storage as never, now: () => new Date(), maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20 },
    {
      namespace: 'gitsha',
      message: git ? `sync ${git.sha}` : 'edit',
      author: git ? 'git' : 'someone',
      changes: Object.entries(files).map(([path, content]) => ({ op: 'put' as const, path, content })),
      ...(git ? { git } : {}),
    },
  );
}
const gitShaOf = async (id: string) => (await pool.query(`SELECT git_sha FROM executions WHERE id = $1`, [id])).rows[0].git_sha as string | null;
const start = (flowId: string) => triggerFlow(pool, deps, { namespace: 'gitsha', flowId, triggerType: 'manual', createdBy: 'test' });

before(async () => {
  fx = await engineFixture('gitsha', { 'z.flow.yaml': { id: 'z', tasks: [{ id: 't', type: 'command', command: ['true'] }] } });
  ({ pool, deps } = fx);
  deps = { ...deps, flows: new FlowCache() };
});
after(() => fx.close());

test('an execution carries the commit of the sync that produced its flow revision, in its row and its API object', async () => {
  await save({ 'a.flow.yaml': flow('a', 'true'), 'b.flow.yaml': flow('b', 'true') }, { sha: SHA1 });
  const x = await start('a');
  assert.equal(await gitShaOf(x.id), SHA1);
  const [api] = await loadExecutions(pool, [x.id]);
  assert.equal((api as { git_sha?: string }).git_sha, SHA1);
  // A second trigger comes from the flow cache: the same commit.
  assert.equal(await gitShaOf((await start('a')).id), SHA1);
});

test('after a later sync, every flow runs its commit: the changed one and one the sync left as it was', async () => {
  await save({ 'b.flow.yaml': flow('b', 'false') }, { sha: SHA2 });
  assert.equal(await gitShaOf((await start('a')).id), SHA2, "the files that run are the new commit's");
  assert.equal(await gitShaOf((await start('b')).id), SHA2);
});

test('a revision saved by a user has no commit', async () => {
  await save({ 'a.flow.yaml': flow('a', 'sh') });
  const x = await start('a');
  assert.equal(await gitShaOf(x.id), null);
  const [api] = await loadExecutions(pool, [x.id]);
  assert.equal(Object.hasOwn(api as object, 'git_sha'), false, 'absent from the API object when unknown');
});

test("the dashboard's running and recent failures, and a flow's stats, carry the commit (absent without one)", async () => {
  await save({ 'c.flow.yaml': flow('c', 'true') }, { sha: SHA2 });
  const running = await start('c');
  const failed = await start('c');
  await save({ 'notes.txt': 'a user edit' });
  const userSaved = await start('a');
  // The states a dispatcher would reach, set directly: this reads the dashboard's statements only.
  await pool.query(`UPDATE executions SET state = 'RUNNING', started_at = now() WHERE id = $1`, [running.id]);
  await pool.query(`UPDATE executions SET state = 'FAILED', started_at = now(), ended_at = now(), duration_ms = 5 WHERE id = ANY($1)`, [[failed.id, userSaved.id]]);
  const d = await dashboard(pool, new DashboardHoursCache(), { range: '24h', namespace: 'gitsha', now: new Date() });
  assert.equal(d.running.find((e) => e.id === running.id)?.git_sha, SHA2);
  assert.equal(d.recent_failures.find((e) => e.id === failed.id)?.git_sha, SHA2);
  const plain = d.recent_failures.find((e) => e.id === userSaved.id);
  assert.ok(plain);
  assert.equal(Object.hasOwn(plain, 'git_sha'), false);
  const stats = await new Dashboards(pool, () => new Date()).flowStats('gitsha', 'c');
  assert.deepEqual(
    stats.items.filter((e) => e.execution_id === failed.id).map((e) => (e as { git_sha?: string }).git_sha),
    [SHA2],
  );
});
