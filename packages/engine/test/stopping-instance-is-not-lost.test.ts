// A dispatcher stopping cleanly ends its running task runs FAILED
// instance_shutdown, even while the maintenance holder is looking for runs of
// stopped instances to end as `lost`: marking the instance stopped and ending
// its runs is one transaction, so no one sees the instance stopped with runs
// still RUNNING. Each round races the two, many times.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { registerInstance } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { createNamespace, saveChanges } from '@svc/namespaces';
import { FileObjectStore } from '@svc/storage';
import { claimRuns, failLostTaskRuns, stopInstanceTaskRuns, triggerFlow, type StartDeps } from '../src/index.js';

let tdb: TestDatabase;
let pool: pg.Pool;
let deps: StartDeps;

before(async () => {
  tdb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: tdb.url, max: 6 });
  pool.on('error', () => undefined);
  const storage = await FileObjectStore.open(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-engine-')), 'objects'));
  deps = { config: { defaultExecutor: 'process', now: () => new Date() }, storage };
  await createNamespace(pool, { name: 'stop', createdBy: 'test', now: new Date() });
  await saveChanges(
    { pool, storage, now: () => new Date(), maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20 },
    {
      namespace: 'stop',
      message: 'test',
      author: 'test',
      changes: [{ op: 'put', path: 'work.flow.yaml', content: JSON.stringify({ id: 'work', retry: { max_attempts: 2, initial: '1s' }, tasks: [{ id: 't', type: 'command', command: ['true'] }] }) }],
    },
  );
});
after(async () => {
  await pool.end();
  await tdb.drop();
});

test('a stopping instance ends its runs instance_shutdown while the lost check runs beside it', async () => {
  for (let round = 0; round < 25; round++) {
    const instance = `d-${round}`;
    await registerInstance(pool, { id: instance, kind: 'dispatcher', hostname: 'test', version: 'test', pools: ['default'], executors: ['process'] }, new Date());
    const ex = await triggerFlow(pool, deps, { namespace: 'stop', flowId: 'work', triggerType: 'manual', createdBy: 'test' });
    const { runs } = await claimRuns(pool, { instanceId: instance, pools: ['default'], executorType: 'process', limit: 10, now: new Date() });
    const mine = runs.find((r) => r.execution_id === ex.id)!;
    let stopped = false;
    const checker = (async () => {
      while (!stopped) await failLostTaskRuns(pool, new Date());
    })();
    const ended = await stopInstanceTaskRuns(pool, instance, new Date());
    stopped = true;
    await checker;
    assert.deepEqual(ended.ids, [mine.id], `round ${round}`);
    const attempts = (await pool.query(`SELECT attempt, state, reason FROM task_runs WHERE execution_id = $1 ORDER BY attempt`, [ex.id])).rows;
    assert.deepEqual(attempts[0], { attempt: 1, state: 'FAILED', reason: 'instance_shutdown' }, `round ${round}`);
    assert.equal(attempts[1]?.state, 'QUEUED', `round ${round}: the retry is queued`);
    await pool.query(`UPDATE task_runs SET state = 'CANCELLED' WHERE execution_id = $1 AND state = 'QUEUED'`, [ex.id]);
  }
});
