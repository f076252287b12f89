// A real deployment (api-gateway, dispatcher, maintenance processes) and a
// task printing 20,000 numbered lines as fast as it can: a client reads part
// of the log stream, its connection is cut mid-task, it reconnects with
// Last-Event-ID (twice), and what it received, concatenated, is exactly the
// stored log: no line repeated, none missing, in order. The download and the
// pages agree with it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SseClient } from '../../apps/api-gateway/test/sse-client.js';
import { flow, sh } from './engine-support.js';
import { startStack, type Stack } from './stack.js';

let s: Stack;
const LINES = 20_000;

before(async () => {
  s = await startStack();
  // Bursts of 2,000 lines with a short pause between them, so the task is surely still writing when the connection drops.
  const script = `i=1; while [ $i -le ${LINES} ]; do echo "line $i of the fast task"; if [ $((i % 2000)) -eq 0 ]; then sleep 0.15; fi; i=$((i+1)); done`;
  await s.saveFlow('fast', { 'spew.flow.yaml': flow({ id: 'spew', tasks: [{ id: 'spew', type: 'command', command: sh(script) }] }) });
});
after(() => s?.stop());

async function allStored(id: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | undefined;
  do {
    const r = await s.api('GET', `/api/v1/executions/${id}/logs?limit=5000${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(r.status, 200);
    out.push(...r.body.items);
    cursor = r.body.next_cursor;
  } while (cursor);
  return out;
}

test('a stream cut in the middle of a fast-writing task resumes with Last-Event-ID: the concatenation equals the stored lines exactly', async () => {
  const ex = await s.trigger('fast', 'spew');
  const url = `${s.url}/api/v1/executions/${ex.id}/logs/stream`;
  const auth = { authorization: `Bearer ${s.token}` };
  const received: any[] = [];
  const take = (c: SseClient) => received.push(...c.lines.map((e) => JSON.parse(e.data)));

  const first = await SseClient.open(url, auth);
  assert.equal(first.status, 200);
  await first.until(() => first.lines.length >= 3000, 30_000);
  first.destroy();
  take(first);
  const midway = (await s.api('GET', `/api/v1/executions/${ex.id}`)).body;
  assert.equal(midway.state, 'RUNNING', 'the connection dropped while the task was still writing');

  const second = await SseClient.open(url, { ...auth, 'last-event-id': first.lastId! });
  await second.until(() => second.lines.length >= 4000, 30_000);
  second.destroy();
  take(second);

  const third = await SseClient.open(url, { ...auth, 'last-event-id': second.lastId! });
  await third.done;
  take(third);
  assert.deepEqual(third.events.at(-1), { event: 'end', data: '{}' });

  const done = await s.waitEnded(ex.id);
  assert.equal(done.state, 'SUCCESS');
  const stored = await allStored(ex.id);
  assert.equal(stored.length, LINES);
  assert.deepEqual(
    stored.map((l) => l.text),
    Array.from({ length: LINES }, (_, i) => `line ${i + 1} of the fast task`),
  );
  assert.equal(received.length, LINES, `received ${received.length} lines over three connections`);
  assert.deepEqual(received, stored);

  const text = await (await fetch(`${s.url}/api/v1/executions/${ex.id}/logs/download`, { headers: auth })).text();
  assert.equal(text, stored.map((l) => `${l.ts} [spew#1 ${l.stream}] ${l.text}\n`).join(''));
});
