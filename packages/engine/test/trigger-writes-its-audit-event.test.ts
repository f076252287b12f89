// A trigger that carries an audit event (the gateway's triggerFlow and
// runFile: who started it) writes it in the statement that inserts the
// execution: still one statement from the flow cache, the event's target the
// execution and its time the execution's creation. A checked start that finds
// its cached revision stale writes no event of its own (the retry writes one);
// a start held by a concurrency limit writes it with the QUEUED execution; a
// trigger without one writes none.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { newId } from '@svc/db';
import { saveChanges } from '@svc/namespaces';
import { FlowCache, SnapshotFacts, triggerFlow, type StartDeps } from '../src/internal.js';
import type { StartAudit } from '../src/index.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;
let statements = 0;

const one = { id: 'one', tasks: [{ id: 't', type: 'command', command: ['true'] }] };
const held = { id: 'held', concurrency: { limit: 1 }, tasks: [{ id: 't', type: 'command', command: ['sleep', '60'] }] };

before(async () => {
  fx = await engineFixture('aud', { 'one.flow.yaml': one, 'held.flow.yaml': held });
  pool = fx.pool;
  const query = pool.query.bind(pool) as (...a: unknown[]) => unknown;
  pool.query = ((...a: unknown[]) => {
    statements++;
    return query(...a);
  }) as typeof pool.query;
  deps = { ...fx.deps, snapshots: new SnapshotFacts(), flows: new FlowCache() };
});
after(() => fx.close());

const audit = (details: Record<string, unknown> = {}): StartAudit => ({
  id: newId(),
  action: 'execution.trigger',
  actorId: 'u1',
  actorType: 'user',
  ip: '127.0.0.1',
  requestId: 'req-1',
  details: { namespace: 'aud', ...details },
});

async function eventsOf(executionId: string) {
  const r = await fx.newPool().query(
    `SELECT a.id, a.action, a.actor_id, a.actor_type, a.target_type, a.ip, a.request_id, a.details, a.at = e.created_at AS same_time
       FROM audit_events a JOIN executions e ON e.id = a.target_id WHERE a.target_id = $1`,
    [executionId],
  );
  return r.rows;
}

test('a trigger from the cache with its audit event is one statement; the event names the execution, at its creation', async () => {
  await triggerFlow(pool, deps, { namespace: 'aud', flowId: 'one', triggerType: 'manual', createdBy: 'test' }); // fills the cache
  statements = 0;
  const a = audit({ flow_id: 'one', input_keys: [] });
  const created = await triggerFlow(pool, deps, { namespace: 'aud', flowId: 'one', triggerType: 'manual', createdBy: 'test', audit: a });
  assert.equal(statements, 1, 'one statement');
  assert.deepEqual(await eventsOf(created.id), [
    {
      id: a.id,
      action: 'execution.trigger',
      actor_id: 'u1',
      actor_type: 'user',
      target_type: 'execution',
      ip: '127.0.0.1',
      request_id: 'req-1',
      details: { namespace: 'aud', flow_id: 'one', input_keys: [] },
      same_time: true,
    },
  ]);
});

test('a trigger without an audit event writes none', async () => {
  const created = await triggerFlow(pool, deps, { namespace: 'aud', flowId: 'one', triggerType: 'schedule', createdBy: 'scheduler' });
  assert.deepEqual(await eventsOf(created.id), []);
});

test('a stale cached revision writes no event of its own: the retry writes exactly one', async () => {
  await triggerFlow(pool, deps, { namespace: 'aud', flowId: 'one', triggerType: 'manual', createdBy: 'test' });
  // Another process saves the flow: the cached revision is stale.
  await saveChanges(
    { pool: fx.newPool(), storage: fx.deps.storage as never, now: () => new Date(), maxFileBytes: 1 << 20, maxBundleBytes: 10 << 20 },
    { namespace: 'aud', message: 'v2', author: 'test', changes: [{ op: 'put', path: 'one.flow.yaml', content: JSON.stringify({ ...one, description: 'v2' }) }] },
  );
  const a = audit();
  const created = await triggerFlow(pool, deps, { namespace: 'aud', flowId: 'one', triggerType: 'manual', createdBy: 'test', audit: a });
  const events = await eventsOf(created.id);
  assert.equal(events.length, 1);
  assert.equal(events[0].id, a.id);
  assert.equal((await fx.newPool().query(`SELECT count(*)::int AS n FROM audit_events WHERE id = $1`, [a.id])).rows[0].n, 1);
});

test('a start held by a concurrency limit writes its event with the QUEUED execution', async () => {
  const first = await triggerFlow(pool, deps, { namespace: 'aud', flowId: 'held', triggerType: 'manual', createdBy: 'test', audit: audit() });
  const second = await triggerFlow(pool, deps, { namespace: 'aud', flowId: 'held', triggerType: 'manual', createdBy: 'test', audit: audit({ n: 2 }) });
  const state = (await fx.newPool().query(`SELECT state FROM executions WHERE id = $1`, [second.id])).rows[0].state;
  assert.equal(state, 'QUEUED');
  assert.equal((await eventsOf(first.id)).length, 1);
  const events = await eventsOf(second.id);
  assert.equal(events.length, 1);
  assert.deepEqual(events[0].details, { namespace: 'aud', n: 2 });
  assert.equal(events[0].same_time, true);
});
