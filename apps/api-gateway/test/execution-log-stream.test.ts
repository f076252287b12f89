// streamExecutionLogs over real HTTP (spec "Events" rules 1-5): stream
// headers, `line` events whose id is the read position of each task run,
// `: keep-alive` when quiet, `end` with `{}` then close once the execution
// ended, a stream opened after the end, the `task` filter, resume with
// Last-Event-ID without repeat or gap, a line posted to one gateway seen by a
// stream served by another, and a vanished client dropping its subscription.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { claimRuns, completeRun, postLines, saveFlow, sleep, SseClient, startLiveGateway, trigger, waitEnded, type ClaimedRun, type LiveGateway } from './live-helpers.js';

const KEEPALIVE_MS = 300;
let gw: LiveGateway;
let gw2: LiveGateway;

before(async () => {
  gw = await startLiveGateway({ env: { SVC_SSE_KEEPALIVE_MS: String(KEEPALIVE_MS) } });
  gw2 = await startLiveGateway({ shareWith: gw });
  await saveFlow(gw, 'live', {
    id: 'two',
    tasks: [
      { id: 'alpha', type: 'command', command: ['true'] },
      { id: 'beta', type: 'command', command: ['true'] },
    ],
  });
});
after(async () => {
  await gw2?.close();
  await gw?.close();
});

const auth = () => ({ authorization: `Bearer ${gw.token}` });
const streamUrl = (g: LiveGateway, id: string, q = '') => `${g.url}/api/v1/executions/${id}/logs/stream${q}`;
const texts = (c: SseClient) => c.lines.map((e) => JSON.parse(e.data).text as string);
let nsClock = 1767225600_000000000n;
const nextTs = () => String((nsClock += 1000n));

async function started(): Promise<{ id: string; alpha: ClaimedRun; beta: ClaimedRun }> {
  const id = await trigger(gw, 'live', 'two');
  const runs = await claimRuns(gw);
  return { id, alpha: runs.find((r) => r.taskKey === 'alpha')!, beta: runs.find((r) => r.taskKey === 'beta')! };
}

const lines = (prefix: string, from: number, to: number) => {
  const out = [];
  for (let n = from; n <= to; n++) out.push({ n, ts: nextTs(), text: `${prefix}${n}` });
  return out;
};

test('a live stream sends each line as it is posted, with the stream headers, then end with {} and closes', async () => {
  const { id, alpha, beta } = await started();
  const c = await SseClient.open(streamUrl(gw, id), auth());
  assert.equal(c.status, 200);
  assert.equal(c.headers['content-type'], 'text/event-stream');
  assert.equal(c.headers['cache-control'], 'no-cache');
  assert.equal(c.headers['x-accel-buffering'], 'no');
  await postLines(gw, alpha, lines('a', 1, 3));
  await c.until(() => c.lines.length === 3);
  await postLines(gw, beta, lines('b', 1, 2));
  await postLines(gw, alpha, lines('a', 4, 4));
  await c.until(() => c.lines.length === 6);
  assert.deepEqual(texts(c), ['a1', 'a2', 'a3', 'b1', 'b2', 'a4']);
  const first = JSON.parse(c.lines[0]!.data);
  assert.deepEqual(Object.keys(first).sort(), ['attempt', 'n', 'stream', 'task_key', 'task_run_id', 'text', 'ts']);
  assert.match(first.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
  // The id is the read position of every task run at once: the place of the line in the order the execution's lines were stored.
  assert.deepEqual(
    c.lines.map((e) => e.id),
    ['1', '2', '3', '4', '5', '6'],
  );
  assert.equal(c.closed, false, 'open while the execution runs');
  await completeRun(gw, alpha);
  await completeRun(gw, beta);
  await c.done;
  const last = c.events[c.events.length - 1]!;
  assert.deepEqual([last.event, last.data], ['end', '{}']);
  assert.equal(c.events.filter((e) => e.event === 'end').length, 1);
});

test('a quiet stream sends the keep-alive comment (SVC_SSE_KEEPALIVE_MS) and a busy one does not need it', async () => {
  const { id, alpha, beta } = await started();
  const c = await SseClient.open(streamUrl(gw, id), auth());
  await c.until(() => c.comments.length >= 2, 5000);
  assert.equal(c.comments[0]!.text, ': keep-alive');
  const gap = c.comments[1]!.at - c.comments[0]!.at;
  assert.ok(gap >= KEEPALIVE_MS * 0.8 && gap < KEEPALIVE_MS * 3, `keep-alive every ${gap} ms`);
  // While lines flow more often than the interval, no comment is sent.
  const before = c.comments.length;
  for (let i = 1; i <= 6; i++) {
    await postLines(gw, alpha, lines('k', i, i));
    await sleep(KEEPALIVE_MS / 3);
  }
  await c.until(() => c.lines.length === 6);
  assert.ok(c.comments.length - before <= 1, `${c.comments.length - before} comments while busy`);
  await completeRun(gw, alpha);
  await completeRun(gw, beta);
  await c.done;
  assert.equal(c.events.at(-1)!.event, 'end');
});

test('a stream opened after the end sends every line, then end, and matches getExecutionLogs', async () => {
  const { id, alpha, beta } = await started();
  await postLines(gw, alpha, lines('x', 1, 700));
  await postLines(gw, beta, lines('y', 1, 600));
  await completeRun(gw, alpha);
  await completeRun(gw, beta);
  await waitEnded(gw, id);
  const c = await SseClient.open(streamUrl(gw, id), auth());
  await c.done;
  assert.equal(c.lines.length, 1300);
  assert.deepEqual(c.events.at(-1), { event: 'end', data: '{}' });
  const page = await gw.api('GET', `/api/v1/executions/${id}/logs?limit=5000`);
  assert.deepEqual(
    c.lines.map((e) => JSON.parse(e.data)),
    page.body.items,
  );
  // Resuming from the last id of an ended execution: nothing repeats, just end.
  const again = await SseClient.open(streamUrl(gw, id), { ...auth(), 'last-event-id': c.lastId! });
  await again.done;
  assert.deepEqual(
    again.events.map((e) => e.event),
    ['end'],
  );
});

test('the task filter selects one task', async () => {
  const { id, alpha, beta } = await started();
  const c = await SseClient.open(streamUrl(gw, id, '?task=beta'), auth());
  await postLines(gw, alpha, lines('a', 1, 5));
  await postLines(gw, beta, lines('b', 1, 3));
  await completeRun(gw, alpha);
  await completeRun(gw, beta);
  await c.done;
  assert.deepEqual(texts(c), ['b1', 'b2', 'b3']);
  // Positions in the execution's order: beta's lines were stored after alpha's five.
  assert.deepEqual(
    c.lines.map((e) => e.id),
    ['6', '7', '8'],
  );
  assert.equal(c.events.at(-1)!.event, 'end');
});

test('Last-Event-ID resumes after a dropped connection with no repeat and no gap', async () => {
  const { id, alpha, beta } = await started();
  const c = await SseClient.open(streamUrl(gw, id), auth());
  await postLines(gw, alpha, lines('a', 1, 400));
  await postLines(gw, beta, lines('b', 1, 300));
  await c.until(() => c.lines.length >= 250);
  c.destroy();
  const got = c.lines.map((e) => JSON.parse(e.data).text as string);
  const lastId = c.lastId!;
  // Lines keep coming while nobody is connected.
  await postLines(gw, beta, lines('b', 301, 500));
  await postLines(gw, alpha, lines('a', 401, 450));
  const r = await SseClient.open(streamUrl(gw, id), { ...auth(), 'last-event-id': lastId });
  await completeRun(gw, alpha);
  await completeRun(gw, beta);
  await r.done;
  got.push(...texts(r));
  const stored = (await gw.api('GET', `/api/v1/executions/${id}/logs?limit=5000`)).body.items.map((l: any) => l.text);
  assert.equal(stored.length, 950);
  assert.deepEqual([...got].sort(), [...stored].sort(), 'every line exactly once');
  // Within each task run the order is n order.
  for (const p of ['a', 'b'])
    assert.deepEqual(
      got.filter((t) => t[0] === p),
      stored.filter((t: string) => t[0] === p),
    );
});

test('a Last-Event-ID the server never sent is 422', async () => {
  const { id, alpha, beta } = await started();
  const r = await gw.api('GET', `/api/v1/executions/${id}/logs/stream`, undefined, { 'last-event-id': 'not a position!' });
  assert.equal(r.status, 422);
  assert.equal(r.body.error.details[0].field, 'Last-Event-ID');
  await completeRun(gw, alpha);
  await completeRun(gw, beta);
});

test('a Last-Event-ID past int8, or of another form, is 422; one past every line still ends with the execution', async () => {
  const { id, alpha, beta } = await started();
  // Past int8, and a per-task-run position holding an n past int4 (once accepted, then polled a failing query forever).
  for (const bad of ['9223372036854775808', Buffer.from(`${alpha.id}:3000000000`).toString('base64url'), '-1']) {
    const r = await gw.api('GET', `/api/v1/executions/${id}/logs/stream`, undefined, { 'last-event-id': bad });
    assert.equal(r.status, 422, bad);
    assert.equal(r.body.error.details[0].field, 'Last-Event-ID');
  }
  await postLines(gw, alpha, lines('a', 1, 2));
  const c = await SseClient.open(streamUrl(gw, id), { ...auth(), 'last-event-id': '9223372036854775807' });
  await completeRun(gw, alpha);
  await completeRun(gw, beta);
  await c.done;
  assert.deepEqual(
    c.events.map((e) => e.event),
    ['end'],
    'nothing after the position; the stream ends with its execution',
  );
});

test('the event id stays one short number however many task runs wrote, and resuming from it is exact', async () => {
  const width = 200;
  await saveFlow(gw, 'live', { id: 'wide', tasks: Array.from({ length: width }, (_, i) => ({ id: `t${i}`, type: 'command', command: ['true'] })) });
  const id = await trigger(gw, 'live', 'wide');
  const runs = [...(await claimRuns(gw)), ...(await claimRuns(gw))];
  assert.equal(runs.length, width);
  const c = await SseClient.open(streamUrl(gw, id), auth());
  for (const [i, run] of runs.entries()) await postLines(gw, run, [{ n: 1, ts: nextTs(), text: `w${i}` }]);
  await c.until(() => c.lines.length === width);
  c.destroy();
  assert.ok(
    c.lines.every((e) => e.id!.length <= 19),
    `ids of at most 19 characters, the last is ${c.lines.at(-1)!.id!.length}`,
  );
  // Resume from the middle: exactly the second half, in order.
  const half = c.lines[width / 2 - 1]!.id!;
  const r = await SseClient.open(streamUrl(gw, id), { ...auth(), 'last-event-id': half });
  await r.until(() => r.lines.length === width / 2);
  for (const run of runs) await completeRun(gw, run);
  await r.done;
  assert.deepEqual(
    texts(r),
    Array.from({ length: width / 2 }, (_, i) => `w${i + width / 2}`),
  );
});

test('a line posted to one gateway instance reaches a stream on another at once (LISTEN/NOTIFY, not the poll)', async () => {
  const { id, alpha, beta } = await started();
  const c = await SseClient.open(streamUrl(gw2, id), auth());
  await sleep(200); // the hub's LISTEN connection is opened by the first subscriber
  const latencies: number[] = [];
  for (let n = 1; n <= 5; n++) {
    const t = Date.now();
    await postLines(gw, alpha, [{ n, ts: nextTs(), text: `cross ${n}` }]);
    await c.until(() => c.lines.length === n, 5000);
    latencies.push(Date.now() - t);
    await sleep(150);
  }
  assert.deepEqual(texts(c), ['cross 1', 'cross 2', 'cross 3', 'cross 4', 'cross 5']);
  // The poll backstop runs every second: five deliveries all this fast come from notifications.
  assert.ok(Math.max(...latencies) < 250, `latencies ${latencies.join(', ')} ms`);
  await completeRun(gw, alpha);
  await completeRun(gw, beta);
  await c.done;
  assert.equal(c.events.at(-1)!.event, 'end');
});

test('one LISTEN connection serves every stream of a gateway, and a vanished client unsubscribes at once', async () => {
  const { id, alpha, beta } = await started();
  const before = gw.gateway.live.stats().subscriptions;
  const admin = new pg.Client({ connectionString: gw.db.url });
  await admin.connect();
  const listening = async () =>
    (await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`)).rows[0].n as number;
  const clients = [await SseClient.open(streamUrl(gw, id), auth())];
  await sleep(200);
  const withOne = await listening();
  clients.push(...(await Promise.all(Array.from({ length: 7 }, (_, i) => SseClient.open(i % 2 ? streamUrl(gw, id) : `${gw.url}/api/v1/executions/${id}/events`, auth())))));
  await sleep(200);
  try {
    assert.equal(gw.gateway.live.stats().subscriptions, before + 4 * 2 + 4);
    // At most one per gateway (the other gateway of this file may still hold its own).
    assert.ok(withOne >= 1 && withOne <= 2, `${withOne} LISTEN connections`);
    assert.equal(await listening(), withOne, 'eight streams, no new LISTEN connection');
  } finally {
    await admin.end();
  }
  const t = Date.now();
  for (const c of clients) c.destroy();
  while (gw.gateway.live.stats().subscriptions !== before) {
    assert.ok(Date.now() - t < 5_000, 'unsubscribed within 5 s (at once, but a loaded machine may be slow to notice the closed sockets)');
    await sleep(10);
  }
  await completeRun(gw, alpha);
  await completeRun(gw, beta);
});
