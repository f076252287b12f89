// A dispatcher's own figures on its /metrics (SVC_HEALTH_PORT): its slots per
// executor type and how many are in use, the task runs it claimed and how
// long it held a slot for each, and its failures, every series present from
// the start. Real gateway and dispatcher processes, three process tasks.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { until } from './engine-support.js';
import { startStack, type Stack } from './stack.js';

let s: Stack;
let port = 0;

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port: p } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(p));
    });
  });
}

const scrape = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
/** The value of one series (`name{labels} value`), or undefined. */
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

before(async () => {
  port = await freeLoopbackPort();
  s = await startStack({ dispatchers: 0 });
  s.startApp('dispatcher', { SVC_EXECUTORS: 'process', SVC_WORKER_SLOTS: '3', SVC_HEALTH_PORT: String(port) });
  await until('the dispatcher online', async () => (await s.db.query(`SELECT 1 FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL`)).rowCount === 1, 60_000);
  await s.saveFlow('metered', { 'quick.flow.yaml': JSON.stringify({ id: 'quick', tasks: [{ id: 't', type: 'command', command: ['sh', '-c', 'sleep 0.2; echo done'] }] }) });
});

after(async () => {
  await s?.stop();
});

test('a fresh dispatcher shows its slots and every counter at 0', async () => {
  const text = await scrape();
  assert.equal(sample(text, 'svc_dispatcher_slots{executor="process"}'), 3);
  assert.equal(sample(text, 'svc_dispatcher_slots{executor="inline"}'), 3);
  assert.equal(sample(text, 'svc_dispatcher_slots_used{executor="process"}'), 0);
  for (const c of ['svc_dispatcher_claimed_total', 'svc_dispatcher_claim_errors_total', 'svc_dispatcher_executor_errors_total'])
    assert.equal(sample(text, `${c}{executor="process"}`), 0, c);
});

test('three task runs are counted as claimed and held, and their slots are free again after', async () => {
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push((await s.trigger('metered', 'quick')).id as string);
  for (const id of ids) assert.equal((await s.waitEnded(id, 60_000)).state, 'SUCCESS');
  const text = await until('the three runs counted', async () => {
    const t = await scrape();
    return sample(t, 'svc_dispatcher_task_run_seconds_count{executor="process"}') === 3 ? t : undefined;
  });
  assert.equal(sample(text, 'svc_dispatcher_claimed_total{executor="process"}'), 3);
  // Each held its slot at least as long as its command slept.
  assert.ok(sample(text, 'svc_dispatcher_task_run_seconds_sum{executor="process"}')! >= 0.6, text);
  assert.equal(sample(text, 'svc_dispatcher_slots_used{executor="process"}'), 0);
  assert.equal(sample(text, 'svc_dispatcher_executor_errors_total{executor="process"}'), 0);
  // Their durations by executor and outcome, start to end: each ran at least as long as its command slept.
  const durations = await until('the three ends in the duration histogram', async () => {
    const t = await scrape();
    return sample(t, 'svc_task_run_duration_seconds_count{executor="process",outcome="SUCCESS"}') === 3 ? t : undefined;
  });
  assert.ok(sample(durations, 'svc_task_run_duration_seconds_sum{executor="process",outcome="SUCCESS"}')! >= 0.6, durations);
  // None under 0.1 s (in whatever order the labels come).
  const fastBucket = durations
    .split('\n')
    .find((l) => l.startsWith('svc_task_run_duration_seconds_bucket{') && ['le="0.1"', 'executor="process"', 'outcome="SUCCESS"'].every((x) => l.includes(x)));
  assert.equal(Number(fastBucket?.split(' ').pop()), 0, durations);
});

test('a failed task run is counted under its outcome', async () => {
  await s.saveFlow('metered', { 'broken.flow.yaml': JSON.stringify({ id: 'broken', tasks: [{ id: 't', type: 'command', command: ['sh', '-c', 'exit 3'] }] }) });
  const id = (await s.trigger('metered', 'broken')).id as string;
  assert.equal((await s.waitEnded(id, 60_000)).state, 'FAILED');
  const text = await until('the failed end in the duration histogram', async () => {
    const t = await scrape();
    return sample(t, 'svc_task_run_duration_seconds_count{executor="process",outcome="FAILED"}') === 1 ? t : undefined;
  });
  assert.equal(sample(text, 'svc_task_run_duration_seconds_count{executor="process",outcome="SUCCESS"}'), 3, 'the successes are unchanged');
});

test('the queue wait per pool: runs that waited for a free slot show it', async () => {
  await s.saveFlow('metered', { 'second.flow.yaml': JSON.stringify({ id: 'second', tasks: [{ id: 't', type: 'command', command: ['sh', '-c', 'sleep 1'] }] }) });
  const before = sample(await scrape(), 'svc_dispatcher_queue_wait_seconds_sum{pool="default"}') ?? 0;
  const count0 = sample(await scrape(), 'svc_dispatcher_queue_wait_seconds_count{pool="default"}') ?? 0;
  // Six runs of a one-second task on three slots: three wait for a slot, about a second each.
  const ids = await Promise.all(Array.from({ length: 6 }, async () => (await s.trigger('metered', 'second')).id as string));
  for (const id of ids) assert.equal((await s.waitEnded(id, 60_000)).state, 'SUCCESS');
  const text = await until('the six starts counted', async () => {
    const t = await scrape();
    return sample(t, 'svc_dispatcher_queue_wait_seconds_count{pool="default"}') === count0 + 6 ? t : undefined;
  });
  const waited = sample(text, 'svc_dispatcher_queue_wait_seconds_sum{pool="default"}')! - before;
  assert.ok(waited >= 1, `the three that waited for a slot waited ${waited} s in all`);
});
