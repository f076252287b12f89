// streamExecutionEvents over real HTTP: an `execution` event with the
// execution detail each time the execution or a task run changes state, its
// id a hash of the states; Last-Event-ID suppresses what the client already
// has; `end` with `{}` then close once ended; a stream opened after the end;
// the keep-alive comment; the stream headers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { claimRuns, completeRun, saveFlow, SseClient, startLiveGateway, trigger, waitEnded, type LiveGateway } from './live-helpers.js';

let gw: LiveGateway;

before(async () => {
  gw = await startLiveGateway({ env: { SVC_SSE_KEEPALIVE_MS: '250' } });
  await saveFlow(gw, 'events', {
    id: 'chain',
    tasks: [
      { id: 'first', type: 'command', command: ['true'] },
      { id: 'second', type: 'command', depends_on: ['first'], command: ['true'] },
    ],
  });
});
after(() => gw?.close());

const auth = () => ({ authorization: `Bearer ${gw.token}` });
const url = (id: string) => `${gw.url}/api/v1/executions/${id}/events`;
const details = (c: SseClient) => c.events.filter((e) => e.event === 'execution').map((e) => JSON.parse(e.data));
const summary = (d: any) => `${d.state}|${d.task_runs.map((r: any) => `${r.task_key}:${r.state}`).join(',')}`;

test('each state change of the execution or a task run sends the execution detail; end closes the stream', async () => {
  const id = await trigger(gw, 'events', 'chain');
  const c = await SseClient.open(url(id), auth());
  assert.equal(c.status, 200);
  assert.equal(c.headers['content-type'], 'text/event-stream');
  assert.equal(c.headers['cache-control'], 'no-cache');
  assert.equal(c.headers['x-accel-buffering'], 'no');
  await c.until(() => details(c).length === 1);
  const first = details(c)[0];
  assert.equal(first.id, id);
  assert.equal(first.task_runs[0].state, 'QUEUED');
  for (const f of ['id', 'state', 'namespace', 'flow_id', 'inputs', 'labels', 'task_runs', 'created_at', 'children']) assert.ok(f in first, f);

  const has = (sum: string) => () => details(c).some((d) => summary(d) === sum);
  const [run1] = await claimRuns(gw);
  await c.until(has('RUNNING|first:RUNNING,second:PENDING'));
  await completeRun(gw, run1!);
  await c.until(has('RUNNING|first:SUCCESS,second:QUEUED'));
  const [run2] = await claimRuns(gw);
  await c.until(has('RUNNING|first:SUCCESS,second:RUNNING'));
  await completeRun(gw, run2!);
  await c.done;
  assert.deepEqual(c.events.at(-1), { event: 'end', data: '{}' });
  // A task run ends in one commit and its execution is planned in the next, so
  // "first ended, second not queued yet" (and likewise before the end) may be
  // seen in between: real states, each sent once.
  const between = new Set(['RUNNING|first:SUCCESS,second:PENDING', 'RUNNING|first:SUCCESS,second:SUCCESS']);
  const all = details(c).map(summary);
  assert.ok(all.filter((x) => between.has(x)).length <= 2, all.join(' '));
  const seen = all.filter((x) => !between.has(x));
  assert.deepEqual(seen, [
    'RUNNING|first:QUEUED,second:PENDING',
    'RUNNING|first:RUNNING,second:PENDING',
    'RUNNING|first:SUCCESS,second:QUEUED',
    'RUNNING|first:SUCCESS,second:RUNNING',
    'SUCCESS|first:SUCCESS,second:SUCCESS',
  ]);
  // One event per distinct set of states, each id differing from the one before it.
  const ids = c.events.filter((e) => e.event === 'execution').map((e) => e.id);
  assert.ok(ids.every((x) => typeof x === 'string' && x.length > 0));
  for (let i = 1; i < ids.length; i++) assert.notEqual(ids[i], ids[i - 1]);
  assert.equal(new Set(seen).size, seen.length);
});

test('a stream opened after the end sends the final detail once, then end; with its id as Last-Event-ID only end', async () => {
  const id = await trigger(gw, 'events', 'chain');
  for (let i = 0; i < 2; i++) {
    const runs = await claimRuns(gw);
    for (const r of runs) await completeRun(gw, r);
  }
  await waitEnded(gw, id);
  const c = await SseClient.open(url(id), auth());
  await c.done;
  assert.deepEqual(
    c.events.map((e) => e.event),
    ['execution', 'end'],
  );
  assert.equal(details(c)[0].state, 'SUCCESS');
  const again = await SseClient.open(url(id), { ...auth(), 'last-event-id': c.events[0]!.id! });
  await again.done;
  assert.deepEqual(again.events, [{ event: 'end', data: '{}' }]);
});

test('Last-Event-ID of the current states sends nothing until the next change; keep-alive meanwhile', async () => {
  const id = await trigger(gw, 'events', 'chain');
  const a = await SseClient.open(url(id), auth());
  await a.until(() => details(a).length === 1);
  const b = await SseClient.open(url(id), { ...auth(), 'last-event-id': a.lastId! });
  await b.until(() => b.comments.length >= 2, 5000);
  assert.equal(b.events.length, 0, 'no repeat of the states it has');
  assert.equal(b.comments[0]!.text, ': keep-alive');
  const [run1] = await claimRuns(gw);
  await b.until(() => details(b).length === 1);
  assert.equal(details(b)[0].task_runs[0].state, 'RUNNING');
  a.destroy();
  b.destroy();
  await completeRun(gw, run1!);
  const [run2] = await claimRuns(gw);
  await completeRun(gw, run2!);
});
