// 200 concurrent log streams on one execution of a real api-gateway process
// while a task writes a 5 MB log: half the clients read, half stop reading
// (slow clients). The gateway's resident memory stays flat (far below what
// buffering the log per stream would take), its stream connections to the
// database stay bounded, and every client, slow ones included once they read
// again, gets the whole log and `end`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { SseClient } from '../../apps/api-gateway/test/sse-client.js';
import { flow, sh, sleep } from './engine-support.js';
import { startStack, type Stack } from './stack.js';

let s: Stack;
const LINES = 20_000;
const STREAMS = 200;
const PAD = 'x'.repeat(200);

before(async () => {
  s = await startStack();
  const script = `i=1; while [ $i -le ${LINES} ]; do echo "line $i ${PAD}"; if [ $((i % 1000)) -eq 0 ]; then sleep 0.1; fi; i=$((i+1)); done`;
  await s.saveFlow('many', {
    'big.flow.yaml': flow({ id: 'big', tasks: [{ id: 'big', type: 'command', command: sh(script) }] }),
    'small.flow.yaml': flow({ id: 'small', tasks: [{ id: 'small', type: 'command', command: sh('echo one; echo two') }] }),
  });
});
after(() => s?.stop());

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

test('200 concurrent streams on one execution keep the gateway memory flat; slow clients are held back, not buffered', { timeout: 240_000 }, async () => {
  const gateway = s.procs[0]!.child.pid!;
  const auth = { authorization: `Bearer ${s.token}` };
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

  // Warm the code paths (streams, reads, rendering) so the baseline is not the cold process.
  const warm = await s.trigger('many', 'small');
  await s.waitEnded(warm.id);
  for (let i = 0; i < 3; i++) {
    const c = await SseClient.open(`${s.url}/api/v1/executions/${warm.id}/logs/stream`, auth, agent);
    await c.done;
    assert.equal(c.lines.length, 2);
  }
  await sleep(500);
  const baseline = rssMiB(gateway);

  const ex = await s.trigger('many', 'big');
  const url = `${s.url}/api/v1/executions/${ex.id}/logs/stream`;
  const clients = await Promise.all(Array.from({ length: STREAMS }, () => SseClient.open(url, auth, agent)));
  assert.ok(clients.every((c) => c.status === 200));
  const slow = clients.filter((_, i) => i % 2 === 1);
  for (const c of slow) c.pause();

  let peak = baseline;
  let maxLiveConnections = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(gateway))), 50);
  const connSampler = setInterval(async () => {
    const r = await s.db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'svc-api-gateway-live'`).catch(() => undefined);
    if (r) maxLiveConnections = Math.max(maxLiveConnections, r.rows[0].n);
  }, 200);
  try {
    const done = await s.waitEnded(ex.id, 120_000);
    assert.equal(done.state, 'SUCCESS');
    const readers = clients.filter((_, i) => i % 2 === 0);
    await Promise.all(readers.map((c) => c.done));
    const whileSlowWait = rssMiB(gateway);
    peak = Math.max(peak, whileSlowWait);
    // The slow clients read again and get everything.
    for (const c of slow) c.resume();
    await Promise.all(slow.map((c) => c.done));
  } finally {
    clearInterval(sampler);
    clearInterval(connSampler);
  }

  for (const c of clients) {
    assert.equal(c.lines.length, LINES);
    assert.deepEqual(c.events.at(-1), { event: 'end', data: '{}' });
  }
  assert.equal(JSON.parse(clients[1]!.lines[LINES - 1]!.data).text, `line ${LINES} ${PAD}`);
  const logBytes = LINES * (PAD.length + 12);
  const growth = peak - baseline;
  // Buffering the log per stream would take 200 x 4.3 MB; what a stream may hold is one read (250 lines).
  assert.ok(growth < 150, `gateway RSS grew ${growth.toFixed(0)} MiB (baseline ${baseline.toFixed(0)} MiB, log ${(logBytes / 2 ** 20).toFixed(1)} MiB per stream)`);
  // The read pool (4) and the LISTEN connection: never one connection per stream.
  assert.ok(maxLiveConnections >= 1 && maxLiveConnections <= 5, `${maxLiveConnections} live connections`);
  console.log(`# 200 streams: gateway RSS baseline ${baseline.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB, live connections ${maxLiveConnections}`);
  agent.destroy();
});
