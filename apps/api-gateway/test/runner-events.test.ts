// runnerPostEvents over real HTTP: a `started` or `progress` event becomes the
// task run's `progress` ({type, at, message, percent}) and sends a new
// `execution` event on the execution's event stream; a heartbeat event counts
// as a heartbeat; the message is masked against the run's secrets; an event
// for a run that is no longer RUNNING is 409; a bad event is 422.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { claimRuns, completeRun, saveFlow, SseClient, startLiveGateway, trigger, waitEnded, type ClaimedRun, type LiveGateway } from './live-helpers.js';

const SECRET = 'hunter2-s3cr3t-value';
let gw: LiveGateway;

before(async () => {
  gw = await startLiveGateway({ env: { SVC_MASTER_KEYS: `k1:${crypto.randomBytes(32).toString('base64')}` } });
  await saveFlow(gw, 'evts', { id: 'one', tasks: [{ id: 'work', type: 'command', env: { TOKEN: "{{ secret('API_TOKEN') }}" }, command: ['true'] }] });
  assert.equal((await gw.api('PUT', '/api/v1/namespaces/evts/secrets/API_TOKEN', { value: SECRET })).status, 200);
});
after(() => gw?.close());

const post = (run: ClaimedRun, body: unknown) =>
  fetch(`${gw.url}/api/runner/v1/task-runs/${run.id}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Claims the run and fetches its spec, as a runner does (preparing it records the secrets it resolved). */
async function startRun(): Promise<{ id: string; run: ClaimedRun }> {
  const id = await trigger(gw, 'evts', 'one');
  const [run] = await claimRuns(gw);
  const spec = await fetch(`${gw.url}/api/runner/v1/task-runs/${run!.id}/spec`, { headers: { authorization: `Bearer ${run!.token}` } });
  assert.equal(spec.status, 200);
  return { id, run: run! };
}

test('started and progress events show on the task run and in the event stream; the message is masked', async () => {
  const { id, run } = await startRun();
  const stream = await SseClient.open(`${gw.url}/api/v1/executions/${id}/events`, { authorization: `Bearer ${gw.token}` });
  const progressOf = () => stream.events.filter((e) => e.event === 'execution').map((e) => JSON.parse(e.data).task_runs[0].progress);
  await stream.until(() => progressOf().length >= 1);
  assert.equal(progressOf()[0], null, 'no event yet');

  assert.equal((await post(run, { type: 'started', message: 'python3 started' })).status, 204);
  await stream.until(() => progressOf().some((p) => p?.type === 'started'));
  assert.equal((await post(run, { type: 'progress', message: `uploading with ${SECRET}`, percent: 40 })).status, 204);
  await stream.until(() => progressOf().some((p) => p?.type === 'progress'));
  const last = progressOf().at(-1);
  assert.equal(last.message, 'uploading with ***');
  assert.equal(last.percent, 40);
  assert.ok(!Number.isNaN(Date.parse(last.at)), 'an event time');

  const got = await gw.api('GET', `/api/v1/executions/${id}`);
  assert.deepEqual({ type: got.body.task_runs[0].progress.type, message: got.body.task_runs[0].progress.message }, { type: 'progress', message: 'uploading with ***' });
  assert.ok(!JSON.stringify(got.body).includes(SECRET));

  await completeRun(gw, run);
  await stream.done;
  await waitEnded(gw, id);
  // Ended: the runner is told to stop.
  const late = await post(run, { type: 'progress', message: 'late' });
  assert.equal(late.status, 409);
  assert.equal(((await late.json()) as { error: { code: string } }).error.code, 'conflict');
});

test('a heartbeat event refreshes the task heartbeat; a bad event type or percent is 422', async () => {
  const { id, run } = await startRun();
  const beat = async () => (await gw.db.pool.query(`SELECT last_heartbeat_at FROM task_runs WHERE id = $1`, [run.id])).rows[0].last_heartbeat_at as Date | null;
  const before = await beat();
  assert.equal((await post(run, { type: 'heartbeat' })).status, 204);
  const afterBeat = await beat();
  assert.ok(afterBeat && (!before || afterBeat.getTime() >= before.getTime()));
  for (const bad of [{ type: 'exploded' }, { type: 'progress', percent: 140 }, {}]) {
    const r = await post(run, bad);
    assert.equal(r.status, 422, JSON.stringify(bad));
    assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'validation_failed');
  }
  await completeRun(gw, run);
  await waitEnded(gw, id);
});

test('an event without a valid run token is 401', async () => {
  const { id, run } = await startRun();
  const r = await post({ ...run, token: 'forged' }, { type: 'started' });
  assert.equal(r.status, 401);
  await completeRun(gw, run);
  await waitEnded(gw, id);
});
