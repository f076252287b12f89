// Bulk actions over HTTP with real processes (bulkExecutions,
// docs/using/executions.md#bulk-actions): a bulk restart of 20 failed
// executions creates 20 executions and 20 `execution.restart` audit events,
// and reports the one it may not restart; the dry run counts without acting;
// a filter matching more than 1,000 is refused with its count, and 1,000 go
// through; a bulk cancel stops running executions and reports an ended one;
// a user bound operator on one namespace acts there only, whatever its filter
// names; a viewer gets 403; an empty filter is refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createUser } from '@svc/identity';
import type { Schemas } from '@svc/api-spec';
import { boundUser, startStack, type Stack } from './stack.js';
import { flow, run, sh, tmpDir } from './engine-support.js';

type BulkResult = Schemas['BulkExecutionsResult'];

let s: Stack;

/** Fails until <dir>/ok exists. */
const flaky = flow({
  id: 'flaky',
  inputs: [{ id: 'dir', type: 'string' }],
  tasks: [{ id: 'check', type: 'command', command: sh('test -f "{{ inputs.dir }}/ok"') }],
});
const long = flow({ id: 'long', tasks: [{ id: 'wait', type: 'command', command: ['sleep', '300'] }] });
const quick = flow({ id: 'quick', tasks: [{ id: 'done', type: 'command', command: ['true'] }] });
// One runs, the others wait QUEUED: cheap executions by the thousand.
const held = flow({ id: 'held', concurrency: { limit: 1, behavior: 'queue' }, tasks: [{ id: 'wait', type: 'command', command: ['sleep', '300'] }] });

before(async () => {
  s = await startStack();
  await s.saveFlow('bulk', { 'flaky.flow.yaml': flaky, 'long.flow.yaml': long, 'quick.flow.yaml': quick });
  await s.saveFlow('many', { 'held.flow.yaml': held });
  for (const ns of ['team-a', 'team-b']) await s.saveFlow(ns, { 'flaky.flow.yaml': flaky });
});
after(() => s.stop());

/** bulkExecutions with a bearer token (the stack's admin by default). */
async function bulk(body: unknown, token = s.token): Promise<{ status: number; body: any }> {
  const r = await fetch(`${s.url}/api/v1/executions/bulk`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

/** Audit events of `action` written by the bulk request whose `execution.bulk` event is `bulkId`. */
async function auditOfBulk(action: string, bulkId: string): Promise<any[]> {
  const r = await s.api('GET', `/api/v1/audit?action=${encodeURIComponent(action)}&limit=200`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.items.filter((i: any) => i.payload?.bulk_id === bulkId);
}

const count = async (sql: string, args: unknown[] = []) => Number((await s.db.query(sql, args)).rows[0].n);

test('a bulk restart of 20 failed executions creates 20 executions with 20 audit events; the dry run before it changes nothing', async () => {
  const dir = tmpDir();
  const since = new Date(Date.now() - 1000).toISOString();
  const failed = await Promise.all(Array.from({ length: 20 }, () => s.trigger('bulk', 'flaky', { inputs: { dir }, labels: { batch: 'b1' } })));
  const okDir = tmpDir();
  fs.writeFileSync(path.join(okDir, 'ok'), '');
  const succeeded = await s.trigger('bulk', 'flaky', { inputs: { dir: okDir }, labels: { batch: 'b1' } });
  for (const e of failed) assert.equal((await s.waitEnded(e.id, 60_000)).state, 'FAILED');
  assert.equal((await s.waitEnded(succeeded.id)).state, 'SUCCESS');
  fs.writeFileSync(path.join(dir, 'ok'), '');
  const filter = { namespace: 'bulk', labels: { batch: 'b1' } };

  const before = await count(`SELECT count(*) AS n FROM executions`);
  const dry = await bulk({ action: 'restart', filter, dry_run: true });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  const preview = dry.body as BulkResult;
  assert.equal(preview.dry_run, true);
  assert.equal(preview.matched, 21);
  assert.equal(preview.eligible, 20);
  assert.equal(preview.limit, 1000);
  assert.equal(preview.results, undefined);
  assert.deepEqual(
    preview.ineligible!.map((i) => [i.execution_id, i.state, i.reason]),
    [[succeeded.id, 'SUCCESS', 'not_restartable']],
  );
  // The time range and the states narrow it; nothing was created, nothing audited.
  assert.equal((await bulk({ action: 'restart', filter: { ...filter, state: ['FAILED'] }, dry_run: true })).body.matched, 20);
  assert.equal((await bulk({ action: 'restart', filter: { ...filter, to: since }, dry_run: true })).body.matched, 0);
  assert.equal((await bulk({ action: 'restart', filter: { ...filter, from: since }, dry_run: true })).body.matched, 21);
  assert.equal(await count(`SELECT count(*) AS n FROM executions`), before);
  assert.equal(await count(`SELECT count(*) AS n FROM audit_events WHERE action = 'execution.restart'`), 0);

  const r = await bulk({ action: 'restart', filter });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const out = r.body as BulkResult;
  assert.equal(out.dry_run, false);
  assert.equal(out.matched, 21);
  assert.equal(out.results!.length, 21);
  const done = out.results!.filter((x) => x.ok);
  assert.equal(done.length, 20);
  assert.deepEqual(done.map((x) => x.execution_id).sort(), failed.map((e) => e.id).sort());
  const refused = out.results!.find((x) => !x.ok)!;
  assert.equal(refused.execution_id, succeeded.id);
  assert.equal(refused.error?.code, 'not_restartable');

  // 20 new executions, each a restart of its original, each ending SUCCESS now that <dir>/ok exists.
  const created = done.map((x) => x.new_execution_id!);
  assert.equal(new Set(created).size, 20);
  for (const x of done) {
    const e = await s.waitEnded(x.new_execution_id!, 60_000);
    assert.equal(e.restart_of_id, x.execution_id);
    assert.equal(e.state, 'SUCCESS', JSON.stringify(e));
  }
  assert.equal(await count(`SELECT count(*) AS n FROM executions`), before + 20);

  // One execution.restart event per execution, as the single restart writes it, and one execution.bulk event for the request.
  const bulkRow = (await s.api('GET', '/api/v1/audit?action=execution.bulk&limit=10')).body.items[0];
  assert.equal(bulkRow.payload.action, 'restart');
  assert.equal(bulkRow.payload.succeeded, 20);
  assert.equal(bulkRow.payload.failed, 1);
  const events = await auditOfBulk('execution.restart', bulkRow.id);
  assert.equal(events.length, 20);
  assert.deepEqual(events.map((e) => e.target).sort(), failed.map((e) => `execution:${e.id}`).sort());
  for (const e of events) {
    assert.equal(e.payload.namespace, 'bulk');
    assert.equal(e.payload.flow_id, 'flaky');
    assert.ok(created.includes(e.payload.new_execution_id));
  }
  assert.equal(await count(`SELECT count(*) AS n FROM audit_events WHERE action = 'execution.restart'`), 20);
});

test('a bulk cancel stops the running executions and reports the ended one', async () => {
  const running = await Promise.all(Array.from({ length: 3 }, () => s.trigger('bulk', 'long', { labels: { grp: 'c' } })));
  const ended = await s.trigger('bulk', 'quick', { labels: { grp: 'c' } });
  assert.equal((await s.waitEnded(ended.id)).state, 'SUCCESS');
  for (const e of running) await s.waitFor(e.id, (x) => run(x, 'wait').state === 'RUNNING');

  const dry = await bulk({ action: 'cancel', filter: { labels: { grp: 'c' } }, dry_run: true });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  assert.equal(dry.body.matched, 4);
  assert.equal(dry.body.eligible, 3);
  assert.deepEqual(
    dry.body.ineligible.map((i: any) => [i.execution_id, i.reason]),
    [[ended.id, 'execution_ended']],
  );

  const r = await bulk({ action: 'cancel', filter: { labels: { grp: 'c' } } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const out = r.body as BulkResult;
  const byId = new Map(out.results!.map((x) => [x.execution_id, x]));
  for (const e of running) {
    assert.equal(byId.get(e.id)?.ok, true);
    assert.ok(['CANCELLING', 'CANCELLED'].includes(byId.get(e.id)!.state!), JSON.stringify(byId.get(e.id)));
    assert.equal((await s.waitEnded(e.id)).state, 'CANCELLED');
  }
  assert.equal(byId.get(ended.id)?.ok, false);
  assert.equal(byId.get(ended.id)?.error?.code, 'execution_ended');
  assert.equal(await count(`SELECT count(*) AS n FROM audit_events WHERE action = 'execution.cancel' AND target_id = ANY($1)`, [running.map((e) => e.id)]), 3);
  assert.equal(await count(`SELECT count(*) AS n FROM audit_events WHERE action = 'execution.cancel' AND target_id = $1`, [ended.id]), 0);
});

test('a filter matching more than 1,000 executions is refused with its count; the dry run tells it, and 1,000 go through', async () => {
  // 1,001 executions of a flow with a concurrency limit of 1: one runs, the rest wait QUEUED.
  const ids: string[] = [];
  for (let i = 0; i < 1001; i += 25) {
    const n = Math.min(25, 1001 - i);
    ids.push(...(await Promise.all(Array.from({ length: n }, () => s.trigger('many', 'held')))).map((e) => e.id));
  }
  assert.equal(ids.length, 1001);
  const filter = { namespace: 'many' };

  const dry = await bulk({ action: 'cancel', filter, dry_run: true });
  assert.equal(dry.status, 200, JSON.stringify(dry.body).slice(0, 500));
  assert.equal(dry.body.matched, 1001);
  assert.equal(dry.body.eligible, 1001);

  const refused = await bulk({ action: 'cancel', filter });
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, 'validation_failed');
  assert.match(refused.body.error.message, /1,001 executions/);
  assert.equal(refused.body.error.details[0].field, 'filter');
  assert.match(refused.body.error.details[0].message, /narrow/);
  assert.equal(await count(`SELECT count(*) AS n FROM executions WHERE namespace = 'many' AND state = 'CANCELLED'`), 0, 'nothing was cancelled');

  // The QUEUED ones are exactly 1,000: taken in one request.
  const queued = await bulk({ action: 'cancel', filter: { ...filter, state: ['QUEUED'] } });
  assert.equal(queued.status, 200, JSON.stringify(queued.body).slice(0, 500));
  assert.equal(queued.body.matched, 1000);
  assert.equal(queued.body.results.filter((x: any) => x.ok && x.state === 'CANCELLED').length, 1000);
  assert.equal(await count(`SELECT count(*) AS n FROM executions WHERE namespace = 'many' AND state = 'CANCELLED'`), 1000);
  assert.equal(await count(`SELECT count(*) AS n FROM audit_events WHERE action = 'execution.cancel' AND details->>'namespace' = 'many'`), 1000);
  const left = await bulk({ action: 'cancel', filter: { ...filter, state: ['RUNNING'] } });
  assert.equal(left.body.matched, 1);
});

test('a user bound operator on team-a acts on team-a only, whatever its filter names; a viewer gets 403; an empty filter is refused', async () => {
  const dir = tmpDir();
  const mine = await Promise.all([1, 2].map(() => s.trigger('team-a', 'flaky', { inputs: { dir }, labels: { nsb: 'x' } })));
  const theirs = await Promise.all([1, 2].map(() => s.trigger('team-b', 'flaky', { inputs: { dir }, labels: { nsb: 'x' } })));
  for (const e of [...mine, ...theirs]) assert.equal((await s.waitEnded(e.id)).state, 'FAILED');
  const a = await boundUser(s, { email: 'op-a@example.com', password: 'op-a password 1', namespace: 'team-a', role: 'operator', tokenName: 'a' });

  // Naming team-b: nothing there is the user's, so nothing matches.
  for (const dry_run of [true, false]) {
    const r = await bulk({ action: 'restart', filter: { namespace: 'team-b' }, dry_run }, a.token);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.matched, 0);
  }
  // Naming no namespace: team-a's only.
  const dry = await bulk({ action: 'restart', filter: { labels: { nsb: 'x' } }, dry_run: true }, a.token);
  assert.equal(dry.body.matched, 2);
  const beforeRestart = new Date().toISOString();
  const r = await bulk({ action: 'restart', filter: { labels: { nsb: 'x' } } }, a.token);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.results.map((x: any) => x.execution_id).sort(), mine.map((e) => e.id).sort());
  assert.ok(r.body.results.every((x: any) => x.ok));
  assert.equal(await count(`SELECT count(*) AS n FROM executions WHERE restart_of_id = ANY($1)`, [theirs.map((e) => e.id)]), 0, "team-b's were not touched");
  assert.equal(await count(`SELECT count(*) AS n FROM executions WHERE restart_of_id = ANY($1)`, [mine.map((e) => e.id)]), 2);
  // The admin, for comparison, sees all four (created before the restart: the restarts carry the label and may have failed already).
  assert.equal((await bulk({ action: 'rerun', filter: { labels: { nsb: 'x' }, state: ['FAILED'], to: beforeRestart }, dry_run: true })).body.matched, 4);

  // A viewer everywhere: 403, before anything is read.
  await createUser(s.db, { email: 'viewer@example.com', role: 'viewer', password: 'viewer password 1' }, new Date());
  const login = await fetch(`${s.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'viewer@example.com', password: 'viewer password 1' }),
  });
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
  const minted = await fetch(`${s.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'v' }),
  });
  const viewerToken = ((await minted.json()) as { secret: string }).secret;
  const v = await bulk({ action: 'cancel', filter: { namespace: 'team-a' }, dry_run: true }, viewerToken);
  assert.equal(v.status, 403, JSON.stringify(v.body));
  assert.equal(v.body.error.code, 'forbidden');

  // An empty filter acts on nothing: refused, as is an empty list of states.
  for (const filter of [{}, { labels: {} }]) {
    const e = await bulk({ action: 'cancel', filter });
    assert.equal(e.status, 422, JSON.stringify(e.body));
    assert.equal(e.body.error.details[0].field, 'filter');
  }
  assert.equal((await bulk({ action: 'cancel', filter: { state: [] } })).status, 422);
  assert.equal((await bulk({ action: 'cancel', filter: { namespace: 'x', from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' } })).status, 422);
});
