// An artifact uploaded again (a retried upload whose first attempt the
// uploader could not see succeed, from the process executor or over the
// runner protocol) replaces the one row of its (task run, name) and its
// object, keeping the row's id, instead of failing on the unique index.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { claimTaskRuns, storeArtifact, triggerFlow } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;

before(async () => {
  fx = await engineFixture('art', { 'a.flow.yaml': { id: 'a', tasks: [{ id: 't', type: 'command', command: ['true'] }] } });
});
after(() => fx.close());

test('uploading the same artifact twice leaves one row, with the last upload', async () => {
  // The fixture's store is a whole FileObjectStore; StartDeps only names the reads a start needs.
  const storage = fx.deps.storage as unknown as Parameters<typeof storeArtifact>[1] & NonNullable<typeof fx.deps.storage>;
  const ex = await triggerFlow(fx.pool, fx.deps, { namespace: 'art', flowId: 'a', triggerType: 'manual', createdBy: 'test' });
  const [run] = await claimTaskRuns(fx.pool, { instanceId: 'i', pools: ['default'], executorType: 'process', limit: 1, now: new Date() });
  assert.equal(run?.execution_id, ex.id);
  const first = await storeArtifact(fx.pool, storage, run.id, 'out/report.txt', Buffer.from('first'));
  const second = await storeArtifact(fx.pool, storage, run.id, 'out/report.txt', Buffer.from('second!'));
  assert.equal(second.id, first.id, 'the same row');
  const rows = (await fx.pool.query(`SELECT id, name, size, object_key FROM artifacts WHERE task_run_id = $1`, [run.id])).rows;
  assert.equal(rows.length, 1);
  assert.equal(Number(rows[0].size), 7);
  assert.equal((await storage.getBuffer(rows[0].object_key)).toString(), 'second!');
});
