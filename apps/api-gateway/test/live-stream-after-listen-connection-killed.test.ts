// The gateway's LISTEN connection (the process's shared Notifier, which its live hub
// subscribes through) is terminated under an open log stream: the hub reconnects by itself, a line
// posted meanwhile still arrives, and lines posted on another gateway reach
// the stream through notifications again: the streaming gateway's backstop
// poll is set to 10 minutes, so only a notification can deliver them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { claimRuns, completeRun, postLines, saveFlow, sleep, SseClient, startLiveGateway, trigger, type LiveGateway } from './live-helpers.js';

let gw: LiveGateway;
let gw2: LiveGateway;

before(async () => {
  gw = await startLiveGateway();
  gw2 = await startLiveGateway({ shareWith: gw, live: { pollMs: 600_000 } });
  await saveFlow(gw, 'live', { id: 'one', tasks: [{ id: 'alpha', type: 'command', command: ['true'] }] });
});
after(async () => {
  await gw2?.close();
  await gw?.close();
});

async function until(what: string, fn: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('a stream keeps receiving notifications after its gateway LISTEN connection is terminated', async () => {
  const id = await trigger(gw, 'live', 'one');
  const [alpha] = await claimRuns(gw);
  let n = 0;
  let ts = 1767225600_000000000n;
  const post = (text: string) => postLines(gw, alpha!, [{ n: ++n, ts: String((ts += 1000n)), text }]);
  // Streams only on gw2: its hub holds the only LISTEN connection of this database.
  const c = await SseClient.open(`${gw2.url}/api/v1/executions/${id}/logs/stream`, { authorization: `Bearer ${gw.token}` });
  await until('the hub to listen', () => gw2.gateway.live.stats().listening);

  const admin = new pg.Client({ connectionString: gw.db.url });
  await admin.connect();
  try {
    const killed = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'svc-api-gateway-listen' AND query ILIKE 'LISTEN%'`,
    );
    assert.equal(killed.rowCount, 1, 'one LISTEN connection terminated');
  } finally {
    await admin.end();
  }
  await until('the hub to see the loss', () => !gw2.gateway.live.stats().listening);
  await post('during the outage');
  await until('the hub to listen again', () => gw2.gateway.live.stats().listening);
  await c.until(() => c.lines.length === 1, 5000);
  assert.ok(
    gw2.logs().some((l) => /notification connection re-established/.test(String(l.message))),
    'the reconnect was logged',
  );

  for (let i = 1; i <= 5; i++) {
    await post(`after ${i}`);
    await c.until(() => c.lines.length === 1 + i, 30_000);
    await sleep(100);
  }
  assert.deepEqual(
    c.lines.map((e) => JSON.parse(e.data).text),
    ['during the outage', 'after 1', 'after 2', 'after 3', 'after 4', 'after 5'],
  );
  await completeRun(gw, alpha!);
  await c.done;
});
