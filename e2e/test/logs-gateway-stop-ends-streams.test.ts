// An api-gateway process stopped with SIGTERM while event streams are open on
// a running execution ends them at once (without `end`: the execution has not
// ended, so clients resume elsewhere with Last-Event-ID) and exits cleanly,
// instead of waiting for the streams as for in-flight requests. A second
// gateway picks the stream up from the position the first one reached.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { SseClient } from '../../apps/api-gateway/test/sse-client.js';
import { flow, sh } from './engine-support.js';
import { startStack, type Stack } from './stack.js';

let s: Stack;

before(async () => {
  s = await startStack();
  await s.saveFlow('stop', {
    'slow.flow.yaml': flow({ id: 'slow', tasks: [{ id: 'slow', type: 'command', command: sh('for i in 1 2 3; do echo "early $i"; done; sleep 4; echo late') }] }),
  });
});
after(() => s?.stop());

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

test('SIGTERM ends open streams at once; another gateway resumes the log stream', async () => {
  const port = await freePort();
  const second = s.startApp('api-gateway', { SVC_PORT: String(port) });
  const ex = await s.trigger('stop', 'slow');
  const auth = { authorization: `Bearer ${s.token}` };
  const logs = await SseClient.open(`${s.url}/api/v1/executions/${ex.id}/logs/stream`, auth);
  const events = await SseClient.open(`${s.url}/api/v1/executions/${ex.id}/events`, auth);
  await logs.until(() => logs.lines.length === 3, 15_000);
  await events.until(() => events.events.length >= 1);

  const first = s.procs[0]!;
  const t = Date.now();
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0, first.output());
  assert.ok(Date.now() - t < 5000, `stopped in ${Date.now() - t} ms with two streams open`);
  await logs.done;
  await events.done;
  assert.ok(!logs.events.some((e) => e.event === 'end'), 'no end: the execution is still running');
  assert.ok(!events.events.some((e) => e.event === 'end'));

  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
    } catch {}
    assert.ok(i < 200, `second gateway did not start:\n${second.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const resumed = await SseClient.open(`http://127.0.0.1:${port}/api/v1/executions/${ex.id}/logs/stream`, { ...auth, 'last-event-id': logs.lastId! });
  await resumed.done;
  assert.deepEqual(
    resumed.lines.map((e) => JSON.parse(e.data).text),
    ['late'],
  );
  assert.deepEqual(resumed.events.at(-1), { event: 'end', data: '{}' });
});
