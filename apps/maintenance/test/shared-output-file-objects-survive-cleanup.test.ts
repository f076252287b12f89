// A reused task run (restart, replay) keeps the output files of the run it
// reuses as rows of its own pointing at the same objects (docs/using/files.md).
// Retention of the original execution deletes its rows but not an object a
// row of another execution still points at, and the object sweep keeps any
// object some row points at, whatever task run its key names; the object
// goes once no row points at it. Real database, real file object store,
// injected clock.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newId } from '@svc/db';
import { artifactKey } from '@svc/engine/internal';
import { cleanupStorage, runRetention, type CleanupDeps } from '../src/index.js';
import { count, DAY, keysUnder, putObject, seedExecution, seedSnapshot, setupEnv, testClock, type TestEnv } from './support.js';

let env: TestEnv;
let deps: CleanupDeps;
before(async () => {
  env = await setupEnv();
  deps = { db: env.db, storage: env.storage, log: env.log, metrics: env.metrics, batchSize: 2, settleMs: 0 };
});
after(() => env.close());

async function outputFile(executionId: string, taskRunId: string, objectKey: string): Promise<void> {
  await env.db.pool.query(`INSERT INTO task_runs (id, execution_id, task_key, task_type, executor_type, state) VALUES ($1, $2, 'w', 'command', 'process', 'SUCCESS')`, [
    taskRunId,
    executionId,
  ]);
  await env.db.pool.query(`INSERT INTO artifacts (id, execution_id, task_run_id, name, object_key, size, sha256, kind) VALUES ($1, $2, $3, 'out/a.csv', $4, 4, 'x', 'output')`, [
    newId(),
    executionId,
    taskRunId,
    objectKey,
  ]);
}

test("an output file object shared with a reused task run survives the original's retention and the sweep, and goes with its last row", async () => {
  const t0 = testClock().now();
  const at = (daysAgo: number) => new Date(t0.getTime() - daysAgo * DAY);
  const snap = await seedSnapshot(env.db, { createdAt: at(100) });
  const original = await seedExecution(env.db, { snapshotId: snap, createdAt: at(40), endedAt: at(31), state: 'FAILED' });
  const restarted = await seedExecution(env.db, { snapshotId: snap, createdAt: at(2), endedAt: at(1) });
  const tr = newId();
  // The key names the original's task run (with the name hashed, as the runner stores it).
  const key = artifactKey(original, tr, 'out/a.csv', 'output');
  await putObject(env, key, 'a,1\n', at(31));
  await outputFile(original, tr, key);
  await outputFile(restarted, newId(), key);

  const r = await runRetention(
    { db: env.db, engine: env.engine, storage: env.storage, log: env.log, metrics: env.metrics, retentionDays: 30, batchSize: 3, executionBatch: 2 },
    t0,
  );
  assert.equal(r.executions, 1);
  assert.equal(await count(env.db, `SELECT 1 FROM artifacts WHERE execution_id = $1`, [original]), 0, "the original's rows went");
  assert.ok((await keysUnder(env, 'artifacts/')).includes(key), 'the object the restarted execution points at stays');

  await cleanupStorage(deps, t0);
  assert.ok((await keysUnder(env, 'artifacts/')).includes(key), 'the sweep keeps an object a row points at, though the task run its key names is gone');

  await env.db.pool.query(`DELETE FROM artifacts WHERE execution_id = $1`, [restarted]);
  await cleanupStorage(deps, t0);
  assert.ok(!(await keysUnder(env, 'artifacts/')).includes(key), 'without a row, the object goes');
});
