// Triggers by name read the flow from a per-process cache (trigger.ts
// FlowCache) and start in one statement that checks the cached revision is
// still current. Another process's save, a save of another file of the
// namespace, a disable and a delete must all take effect at the next trigger
// of a process whose cache holds the old revision.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { saveChanges } from '@svc/namespaces';
import { FlowDisabledError, FlowNotFoundError } from '../src/index.js';
import { FlowCache, loadExecutions, SnapshotFacts, triggerFlow, type StartDeps } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;
let statements = 0;

const flow = (command: string) => ({ id: 'cached', labels: { v: command }, tasks: [{ id: 't', type: 'command', command: [command] }] });

before(async () => {
  fx = await engineFixture('fc', { 'cached.flow.yaml': flow('true') });
  pool = fx.pool;
  // This process's statements are counted (the trigger's own, on this pool).
  const query = pool.query.bind(pool) as (...a: unknown[]) => unknown;
  pool.query = ((...a: unknown[]) => {
    statements++;
    return query(...a);
  }) as typeof pool.query;
  deps = { ...fx.deps, snapshots: new SnapshotFacts(), flows: new FlowCache() };
});
after(() => fx.close());

/** A save by another process (its own pool). */
async function saveElsewhere(path: string, content: unknown): Promise<void> {
  const other = fx.newPool();
  await saveChanges(
    { pool: other, storage: fx.deps.storage as never, now: () => new Date(), maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20 },
    { namespace: 'fc', message: 'elsewhere', author: 'test', changes: [{ op: 'put', path, content: JSON.stringify(content) }] },
  );
}

const trigger = () => triggerFlow(pool, deps, { namespace: 'fc', flowId: 'cached', triggerType: 'manual', createdBy: 'test' });
const current = async () =>
  (
    await fx
      .newPool()
      .query(
        `SELECT f.current_revision_id AS rev, n.head_version AS version FROM flows f JOIN namespaces n ON n.name = f.namespace WHERE f.namespace = 'fc' AND f.flow_id = 'cached'`,
      )
  ).rows[0] as { rev: string; version: number };

test('a trigger from the cache is one statement, and starts the current revision', async () => {
  await trigger(); // fills the cache
  statements = 0;
  const created = await trigger();
  assert.equal(statements, 1, 'one statement');
  const [ex] = await loadExecutions(pool, [created.id]);
  const now = await current();
  assert.equal(ex!.flow_revision_id, now.rev);
  assert.equal(ex!.snapshot_version, now.version);
});

test('a revision saved by another process is the one the next trigger starts', async () => {
  await saveElsewhere('cached.flow.yaml', flow('false'));
  const created = await trigger();
  const [ex] = await loadExecutions(pool, [created.id]);
  assert.equal(ex!.flow_revision_id, (await current()).rev);
  assert.deepEqual(ex!.labels, { v: 'false' });
  // And the cache holds it now: one statement again.
  statements = 0;
  await trigger();
  assert.equal(statements, 1);
});

test('a save of another file moves the namespace version: the trigger starts the new snapshot', async () => {
  await saveElsewhere('notes.txt', 'hello');
  const created = await trigger();
  const [ex] = await loadExecutions(pool, [created.id]);
  assert.equal(ex!.snapshot_version, (await current()).version);
});

test('a flow disabled or deleted elsewhere is refused at the next trigger, not started from the cache', async () => {
  await trigger();
  const other = fx.newPool();
  await other.query(`UPDATE flows SET enabled = false WHERE namespace = 'fc' AND flow_id = 'cached'`);
  await assert.rejects(trigger(), FlowDisabledError);
  await other.query(`UPDATE flows SET enabled = true WHERE namespace = 'fc' AND flow_id = 'cached'`);
  await trigger();
  await other.query(`UPDATE flows SET deleted_at = now() WHERE namespace = 'fc' AND flow_id = 'cached'`);
  await assert.rejects(trigger(), FlowNotFoundError);
  const n = (await other.query(`SELECT count(*)::int AS n FROM executions WHERE namespace = 'fc'`)).rows[0].n as number;
  assert.equal(n, 7, 'no execution was started by the refused triggers');
});
