// A dispatcher advertises docker only while its Docker engine answers, and
// kubernetes only with a cluster configuration: a docker task run that no
// instance can run stays QUEUED with reason no_instance_for_pool (instead of
// being claimed by a dispatcher that cannot start it), and runs as soon as a
// dispatcher whose engine answers comes up.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ensureTestImages, testDocker } from '@svc/container-testing';
import { startStack, type Stack } from './stack.js';

const d = testDocker();
const skip = 'skip' in d ? `SKIPPED, no Docker engine: ${d.skip}` : false;
if (skip) process.stderr.write(`\n!!! ${skip}\n\n`);
let s: Stack;

before(async () => {
  if (skip) return;
  const images = await ensureTestImages((d as { docker: import('dockerode') }).docker);
  // The stack's own dispatcher is given an engine that does not exist, and no cluster.
  s = await startStack({ env: { SVC_EXECUTORS: 'process,docker,kubernetes', SVC_DOCKER_HOST: 'unix:///nonexistent/docker.sock' } });
  await s.saveFlow('adv', {
    'boxed.flow.yaml': JSON.stringify({ id: 'boxed', tasks: [{ id: 'b', type: 'command', executor: { type: 'docker', image: images.busybox }, command: ['echo', 'ran'] }] }),
  });
});
after(async () => {
  if (!skip) await s?.stop();
});

test('docker without an answering engine is not advertised; its runs wait as no_instance_for_pool, then run on a dispatcher that can', { skip }, async () => {
  const rows = async () =>
    (await s.db.query(`SELECT executors FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL ORDER BY started_at`)).rows.map((r) => [...r.executors].sort());
  for (let i = 0; i < 100 && !(await rows()).length; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(await rows(), [['inline', 'process']], 'neither docker (no engine) nor kubernetes (no cluster) is advertised');

  const e = await s.trigger('adv', 'boxed');
  const waiting = await s.waitFor(e.id, (x) => x.task_runs[0]?.reason === 'no_instance_for_pool', 30_000);
  assert.equal(waiting.task_runs[0].state, 'QUEUED');

  s.startApp('dispatcher', { SVC_EXECUTORS: 'docker', SVC_DOCKER_HOST: (d as { host: string }).host, SVC_DOCKER_NETWORK: 'host' });
  const done = await s.waitEnded(e.id, 120_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.deepEqual(await rows(), [
    ['inline', 'process'],
    ['docker', 'inline'],
  ]);
});
