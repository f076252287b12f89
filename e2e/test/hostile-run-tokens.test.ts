// Run tokens are scoped to their own task run: every runner route refuses
// another run's token, a forged, tampered or expired one, an API token, and
// no run token opens /api/v1. After a run ended, its token can no longer
// fetch a spec, report events or change the outcome. Refused calls write
// nothing to the other run (no log line, no artifact, no state change).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { claimTaskRuns, loadRunTokenKey, signRunToken } from '@svc/engine/internal';
import { startStack, type Stack } from './stack.js';
import { answerOf, assertWellFormed } from './hostile/envelope.js';

let s: Stack;
const NS = 'tok';
let key: Buffer;
let runA: { id: string; execution_id: string };
let runB: { id: string; execution_id: string };
let exA = '';
let exB = '';

/** Every runner route, with a request that would change something when let in. */
const ROUTES = (id: string): { name: string; method: string; path: string; body?: string; type?: string }[] => [
  { name: 'runnerGetSpec', method: 'GET', path: `/api/runner/v1/task-runs/${id}/spec` },
  { name: 'runnerGetBundle', method: 'GET', path: `/api/runner/v1/task-runs/${id}/bundle` },
  { name: 'runnerHeartbeat', method: 'POST', path: `/api/runner/v1/task-runs/${id}/heartbeat`, body: '{}', type: 'application/json' },
  {
    name: 'runnerPostLogs',
    method: 'POST',
    path: `/api/runner/v1/task-runs/${id}/logs`,
    body: JSON.stringify({ lines: [{ n: 1, stream: 'stdout', text: 'INJECTED' }] }),
    type: 'application/json',
  },
  {
    name: 'runnerPostEvents',
    method: 'POST',
    path: `/api/runner/v1/task-runs/${id}/events`,
    body: JSON.stringify({ type: 'progress', message: 'INJECTED' }),
    type: 'application/json',
  },
  { name: 'runnerGetFile', method: 'GET', path: `/api/runner/v1/task-runs/${id}/files/some-file` },
  { name: 'runnerPutArtifact', method: 'PUT', path: `/api/runner/v1/task-runs/${id}/artifacts/injected.txt`, body: 'INJECTED', type: 'text/plain' },
  {
    name: 'runnerComplete',
    method: 'POST',
    path: `/api/runner/v1/task-runs/${id}/complete`,
    body: JSON.stringify({ state: 'FAILED', exit_code: 1, error: 'INJECTED' }),
    type: 'application/json',
  },
];

async function call(route: ReturnType<typeof ROUTES>[number], authorization: string | undefined) {
  const r = await fetch(`${s.url}${route.path}`, {
    method: route.method,
    headers: { ...(authorization ? { authorization } : {}), ...(route.type ? { 'content-type': route.type } : {}) },
    body: route.body,
  });
  const a = await answerOf(r);
  assertWellFormed(a, `${route.name} ${route.path}`);
  return a;
}

/** Nothing reached run B: no lines, no artifacts, still RUNNING, no progress. */
async function assertUntouched(run: { id: string }) {
  const lines = await s.db.query(`SELECT 1 FROM log_lines WHERE task_run_id = $1`, [run.id]);
  assert.equal(lines.rowCount, 0, 'no log line reached the run');
  const arts = await s.db.query(`SELECT 1 FROM artifacts WHERE task_run_id = $1`, [run.id]);
  assert.equal(arts.rowCount, 0, 'no artifact reached the run');
  const tr = (await s.db.query(`SELECT state, error FROM task_runs WHERE id = $1`, [run.id])).rows[0];
  assert.equal(tr.state, 'RUNNING');
  assert.equal(tr.error, '');
}

before(async () => {
  s = await startStack({ dispatchers: 0, maintenance: false });
  await s.saveFlow(NS, { 'r.flow.yaml': 'id: r\ntasks:\n  - {id: t, type: command, command: ["true"], executor: {type: process, pool: remote}}\n' });
  exA = (await s.trigger(NS, 'r')).id;
  exB = (await s.trigger(NS, 'r')).id;
  for (const id of [exA, exB]) await s.waitFor(id, (e) => e.task_runs[0]?.state === 'QUEUED');
  const claimed = await claimTaskRuns(s.db, { instanceId: 'hostile', pools: ['remote'], executorType: 'process', limit: 2, now: new Date() });
  assert.equal(claimed.length, 2);
  runA = claimed.find((c: any) => c.execution_id === exA)!;
  runB = claimed.find((c: any) => c.execution_id === exB)!;
  key = await loadRunTokenKey(s.db);
});
after(() => s?.stop());

test("every runner route refuses another run's token, forged, tampered and expired tokens, and API tokens", async () => {
  const hour = new Date(Date.now() + 3600_000);
  const tokenA = signRunToken(key, runA.id, hour);
  const [, , expA, macA] = tokenA.split('.');
  const wrong: [string, string | undefined][] = [
    ['no credential', undefined],
    ["run A's token on run B", `Bearer ${tokenA}`],
    ["run A's id and expiry with run B's id swapped in", `Bearer svcr.${runB.id}.${expA}.${macA}`],
    ['a later expiry on the same signature', `Bearer svcr.${runA.id}.${Number(expA) + 86_400}.${macA}`],
    ['an expired token of run B', `Bearer ${signRunToken(key, runB.id, new Date(Date.now() - 1000))}`],
    ['a token of run B signed with another key', `Bearer ${signRunToken(Buffer.alloc(32, 7), runB.id, hour)}`],
    ['an API token', `Bearer ${s.token}`],
    ['a token with five parts', `Bearer svcr.${runB.id}.${expA}.${macA}.x`],
    ['the token in Basic', `Basic ${Buffer.from(`x:${signRunToken(key, runB.id, hour)}`).toString('base64')}`],
    ['an empty bearer', 'Bearer '],
  ];
  let refused = 0;
  for (const route of ROUTES(runB.id)) {
    for (const [what, authorization] of wrong) {
      const a = await call(route, authorization);
      assert.equal(a.status, 401, `${route.name} with ${what}: ${a.status} ${a.text}`);
      assert.equal(JSON.parse(a.text).error.code, 'unauthorized');
      refused++;
    }
  }
  await assertUntouched(runB);
  // A run token opens nothing under /api/v1.
  for (const p of ['/api/v1/executions', `/api/v1/executions/${exB}`, '/api/v1/auth/me', '/api/v1/secrets']) {
    const r = await fetch(`${s.url}${p}`, { headers: { authorization: `Bearer ${signRunToken(key, runB.id, hour)}` } });
    assert.equal(r.status, 401, p);
  }
  // Run B's own token works (the refusals above were about the token, not the route).
  const own = await call(ROUTES(runB.id)[0]!, `Bearer ${signRunToken(key, runB.id, hour)}`);
  assert.equal(own.status, 200, own.text);
  console.log(`run tokens: ${refused} foreign, forged or expired token calls refused on ${ROUTES('').length} runner routes`);
});

test('after a run ended, its token gets no spec, its events and completions change nothing, and heartbeats say stop', async () => {
  const tokenA = `Bearer ${signRunToken(key, runA.id, new Date(Date.now() + 3600_000))}`;
  const routes = Object.fromEntries(ROUTES(runA.id).map((r) => [r.name, r]));
  // What a task printed may hold a NUL (PostgreSQL text cannot): kept as U+FFFD, not refused and not a 500.
  const nul = await call({ ...routes.runnerPostLogs!, body: JSON.stringify({ lines: [{ n: 1, stream: 'stdout', text: 'before\u0000after' }] }) }, tokenA);
  assert.equal(nul.status, 204, nul.text);
  assert.deepEqual((await s.db.query(`SELECT text FROM log_lines WHERE task_run_id = $1`, [runA.id])).rows, [{ text: 'before\ufffdafter' }]);
  const done = await call({ ...routes.runnerComplete!, body: JSON.stringify({ state: 'SUCCESS', exit_code: 0 }) }, tokenA);
  assert.equal(done.status, 200, done.text);
  assert.deepEqual(JSON.parse(done.text), { accepted: true });
  assert.equal((await s.waitEnded(exA)).state, 'SUCCESS');

  const spec = await call(routes.runnerGetSpec!, tokenA);
  assert.equal(spec.status, 409, `spec after the end: ${spec.status} ${spec.text}`);
  const events = await call(routes.runnerPostEvents!, tokenA);
  assert.equal(events.status, 409, `events after the end: ${events.status} ${events.text}`);
  const heartbeat = await call(routes.runnerHeartbeat!, tokenA);
  assert.deepEqual(JSON.parse(heartbeat.text), { cancel: true });
  const again = await call(routes.runnerComplete!, tokenA);
  assert.deepEqual(JSON.parse(again.text), { accepted: false });
  const ex = await s.waitEnded(exA);
  assert.equal(ex.state, 'SUCCESS', 'the outcome did not change');
  assert.equal(ex.task_runs[0].error, '');
  // Run B is still untouched by all of run A's traffic.
  await assertUntouched(runB);
});
