// 200 concurrent log streams on one execution of a real api-gateway process
// while a task writes a 20 MB log. 190 clients stop reading (slow clients):
// once the socket buffers (about 4.4 MB per connection on loopback) are full,
// the rest must stay unsent and unread, not pile up in the gateway. 10
// clients read everything. What holds the gateway's memory flat is checked
// as a mechanism, not as a memory figure (resident memory is a benchmark's
// figure: it moves with the garbage collector and the machine's load): every
// slow stream waits for its socket to drain, the bytes the gateway holds for
// all of them stay within one write each beyond their sockets
// (svc_live_stream_buffered_bytes), it does no work for the slow clients once
// they are held back, its stream connections to the database stay bounded,
// and slow clients that read again get the whole log, exactly, then `end`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { getDefaultHighWaterMark } from 'node:stream';
import { after, before, test } from 'node:test';
import { flow, sh, sleep } from './engine-support.js';
import { startStack, type Stack } from './stack.js';

let s: Stack;
const LINES = 20_000;
const STREAMS = 200;
const READERS = 10;
const PAD = 'x'.repeat(1000);

before(async () => {
  s = await startStack();
  const script = `p=${PAD}; i=1; while [ $i -le ${LINES} ]; do echo "line $i $p"; if [ $((i % 2000)) -eq 0 ]; then sleep 0.1; fi; i=$((i+1)); done`;
  await s.saveFlow('many', {
    'big.flow.yaml': flow({ id: 'big', tasks: [{ id: 'big', type: 'command', command: sh(script) }] }),
    'small.flow.yaml': flow({ id: 'small', tasks: [{ id: 'small', type: 'command', command: sh('echo one; echo two') }] }),
  });
});
after(() => s?.stop());

/** CPU time (user + system) a process has used, in ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** The gateway's stream gauges, from its /metrics. */
async function streamGauges(url: string): Promise<{ open: number; waiting: number; buffered: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (re: RegExp) => {
    const m = re.exec(text);
    assert.ok(m, `${re} on /metrics`);
    return Number(m[1]);
  };
  return {
    open: value(/^svc_live_streams\{state="open"\} (\S+)$/m),
    waiting: value(/^svc_live_streams\{state="waiting_for_drain"\} (\S+)$/m),
    buffered: value(/^svc_live_stream_buffered_bytes (\S+)$/m),
  };
}
/**
 * What a stream may hold beyond its socket: the response's high-water mark (Node's default for byte streams, which the
 * gateway runs on too: 16 KiB up to Node 20, 64 KiB from Node 22) plus one write (16 KiB of events, plus the event that
 * crossed it), with room.
 */
const HELD_PER_STREAM = getDefaultHighWaterMark(false) + 48 * 1024;

/**
 * A log stream client that keeps nothing but a count: each line must be the
 * next `n` of the single task run (so a repeat, a gap or a reordering fails).
 */
class CountingClient {
  lines = 0;
  ended = false;
  closed = false;
  problem = '';
  status = 0;
  private buf = '';
  private res?: http.IncomingMessage;
  private req!: http.ClientRequest;
  readonly opened: Promise<void>;
  readonly done: Promise<void>;

  /** `paused`: a slow client, which stops reading as soon as the stream opens, before its first line. */
  constructor(url: string, token: string, agent: http.Agent, paused = false) {
    let opened!: () => void;
    this.opened = new Promise((r) => (opened = r));
    this.done = new Promise((resolve) => {
      this.req = http.get(url, { agent, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
        this.res = res;
        this.status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        res.on('data', (d: string) => this.feed(d));
        // Before any line arrives: a client paused only once all 200 streams were open could have read most of the
        // log by then (opening them takes longer than the task's output on a loaded machine) and been sent the rest.
        if (paused) res.pause();
        const finish = () => {
          this.closed = true;
          resolve();
        };
        res.on('end', finish);
        res.on('close', finish);
        opened();
      });
      this.req.on('error', () => {
        this.closed = true;
        opened();
        resolve();
      });
    });
  }

  resume = () => this.res?.resume();
  destroy = () => this.req.destroy();

  private feed(d: string) {
    this.buf += d;
    let i: number;
    while ((i = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      if (block.startsWith(':')) continue;
      if (block.includes('event: end\n')) {
        this.ended = true;
        continue;
      }
      const data = block.slice(block.indexOf('data: ') + 6);
      const line = JSON.parse(data) as { n: number; text: string };
      if (line.n !== this.lines + 1 || !line.text.startsWith(`line ${line.n} x`)) this.problem ||= `after ${this.lines} lines got n=${line.n}`;
      this.lines++;
    }
  }
}

test('200 concurrent streams on one execution: slow clients are held back by back-pressure, not buffered in the gateway', { timeout: 240_000 }, async () => {
  const gateway = s.procs[0]!.child.pid!;
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

  // Warm the code paths (streams, reads, rendering) so the baseline is not the cold process.
  const warm = await s.trigger('many', 'small');
  await s.waitEnded(warm.id);
  for (let i = 0; i < 3; i++) {
    const c = new CountingClient(`${s.url}/api/v1/executions/${warm.id}/logs/stream`, s.token, agent);
    await c.done;
    assert.equal(c.lines, 2);
  }
  await sleep(500);
  const baseline = rssMiB(gateway);

  const ex = await s.trigger('many', 'big');
  const url = `${s.url}/api/v1/executions/${ex.id}/logs/stream`;
  const clients = Array.from({ length: STREAMS }, (_, i) => new CountingClient(url, s.token, agent, i >= READERS));
  await Promise.all(clients.map((c) => c.opened));
  assert.ok(clients.every((c) => c.status === 200));
  const readers = clients.slice(0, READERS);
  const slow = clients.slice(READERS);

  let peak = baseline;
  let idleCpu = 0;
  let held = { open: 0, waiting: 0, buffered: 0 };
  let maxLiveConnections = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(gateway))), 50);
  const connSampler = setInterval(async () => {
    const r = await s.db
      .query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'svc-api-gateway-live'`)
      .catch(() => undefined);
    if (r) maxLiveConnections = Math.max(maxLiveConnections, r.rows[0].n);
  }, 200);
  try {
    const done = await s.waitEnded(ex.id, 120_000);
    assert.equal(done.state, 'SUCCESS');
    await Promise.all(readers.map((c) => c.done));
    await sleep(1000);
    // Only slow clients are left, all with full socket buffers: their streams wait for a drain and do nothing.
    // A gateway that ignored back-pressure would be busy reading and queueing for them now.
    const cpu0 = cpuMs(gateway);
    await sleep(3000);
    idleCpu = cpuMs(gateway) - cpu0;
    held = await streamGauges(s.url);
  } finally {
    clearInterval(sampler);
    clearInterval(connSampler);
  }
  const growth = peak - baseline;

  for (const c of readers) {
    assert.equal(c.problem, '');
    assert.equal(c.lines, LINES);
    assert.ok(c.ended, 'end after the last line');
  }
  // The slow clients are far behind (their kernel buffers hold a few MB of the 20 MB) and still open.
  const behind = slow.filter((c) => !c.closed && c.lines < LINES).length;
  assert.equal(behind, slow.length, 'slow clients have not been sent the whole log');
  assert.ok(idleCpu < 400, `the gateway used ${idleCpu} ms of CPU in 3 s with only slow clients left`);
  // Every slow stream is open and waits for its socket to drain; the gateway holds at most about one write
  // for each beyond what the kernel took (buffering the log per stream would be 20 MB each, 3.8 GB in all).
  assert.equal(held.open, slow.length, 'one open stream per slow client, none left of the readers');
  assert.equal(held.waiting, slow.length, 'every slow stream waits for its socket to drain');
  assert.ok(held.buffered <= slow.length * HELD_PER_STREAM, `the gateway holds ${held.buffered} bytes for ${slow.length} slow streams`);
  // The read pool (4) and the LISTEN connection: never one connection per stream.
  assert.ok(maxLiveConnections >= 1 && maxLiveConnections <= 5, `${maxLiveConnections} live connections`);

  // Five slow clients read again: they get everything, in order, then end. The others go away.
  const back = slow.slice(0, 5);
  for (const c of slow.slice(5)) c.destroy();
  for (const c of back) c.resume();
  await Promise.all(back.map((c) => c.done));
  for (const c of back) {
    assert.equal(c.problem, '');
    assert.equal(c.lines, LINES);
    assert.ok(c.ended);
  }
  console.log(
    `# 200 streams: gateway RSS baseline ${baseline.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB (growth ${growth.toFixed(0)} MiB, not asserted), held for slow streams ${held.buffered} bytes, CPU with only slow clients ${idleCpu} ms / 3 s, live connections ${maxLiveConnections}`,
  );
  agent.destroy();
});
