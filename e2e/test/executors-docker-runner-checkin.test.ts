// A docker task whose runner cannot reach the gateway does not stay RUNNING
// while its runner retries: SVC_RUNNER_CHECKIN_TIMEOUT after the container
// started without a call (no event, no heartbeat), the dispatcher ends the
// run FAILED executor_error with an error naming the address it gave the
// runner, removes the container, and its /readyz details say so
// (`runner_url`). A dispatcher with a good address runs the same task to
// SUCCESS, and its /readyz has no such detail.
//
// Real gateway and dispatchers, a real Docker engine (npm test starts one);
// tasks on the host network. The bad address is a loopback port nothing
// listens on.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type Dockerode from 'dockerode';
import { ensureTestImages, testDocker, type TestImages } from '@svc/container-testing';
import { labelValue } from '../../apps/dispatcher/src/executors/container-task.js';
import { until } from './engine-support.js';
import { startStack, type Stack } from './stack.js';

const d = testDocker();
const skip = 'skip' in d ? `SKIPPED, no Docker engine: ${d.skip}` : false;
if (skip) process.stderr.write(`\n!!! ${skip}\n\n`);
let docker: Dockerode;
let images: TestImages;
let s: Stack;
let badUrl = '';
const health = { bad: 0, good: 0 };

/** A loopback port nobody listens on (taken, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const readyz = async (port: number) => (await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as { details?: Record<string, string> };

before(async () => {
  if (skip) return;
  docker = (d as { docker: Dockerode }).docker;
  images = await ensureTestImages(docker);
  const host = (d as { host: string }).host;
  badUrl = `http://127.0.0.1:${await closedPort()}`;
  health.bad = await closedPort();
  health.good = await closedPort();
  s = await startStack({ dispatchers: 0 });
  const docked = { SVC_EXECUTORS: 'docker', SVC_DOCKER_HOST: host, SVC_DOCKER_NETWORK: 'host', SVC_RUNNER_CHECKIN_TIMEOUT: '5s' };
  s.startApp('dispatcher', { ...docked, SVC_POOLS: 'bad', SVC_RUNNER_URL: badUrl, SVC_HEALTH_PORT: String(health.bad) });
  s.startApp('dispatcher', { ...docked, SVC_POOLS: 'good', SVC_HEALTH_PORT: String(health.good) });
  await until(
    'both dispatchers advertise docker',
    async () => (await s.db.query(`SELECT 1 FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL AND 'docker' = ANY(executors)`)).rowCount === 2,
    120_000,
  );
  const onPool = (id: string, pool: string) =>
    JSON.stringify({ id, tasks: [{ id: 't', type: 'command', executor: { type: 'docker', image: images.busybox, pool }, command: ['sh', '-c', 'echo reached; sleep 1'] }] });
  await s.saveFlow('checkin', { 'bad.flow.yaml': onPool('bad', 'bad'), 'good.flow.yaml': onPool('good', 'good') });
});

after(async () => {
  await s?.stop();
});

test('a runner that cannot reach the gateway ends its run executor_error naming the address, and /readyz says so', { skip }, async () => {
  const ex = await s.trigger('checkin', 'bad');
  const done = await s.waitEnded(ex.id, 120_000);
  assert.equal(done.state, 'FAILED');
  const runs = done.task_runs as { reason: string; error: string }[];
  assert.equal(runs.length, 1);
  assert.equal(runs[0]!.reason, 'executor_error');
  assert.match(runs[0]!.error, /did not call the API gateway within 5 s \(SVC_RUNNER_CHECKIN_TIMEOUT\)/);
  assert.ok(runs[0]!.error.includes(`${badUrl} (SVC_RUNNER_URL)`), runs[0]!.error);
  // The dispatcher stopped and removed the container; nothing of the run is left on the engine.
  const taskRunId = (done.task_runs[0] as { id: string }).id;
  await until(
    'the container is removed',
    async () => (await docker.listContainers({ all: true, filters: { label: [`svc.dev/task-run-id=${labelValue(taskRunId)}`] } })).length === 0,
    60_000,
  );
  const bad = await readyz(health.bad);
  assert.match(bad.details?.runner_url ?? '', new RegExp(`did not call in within 5 s at ${badUrl.replace(/[.]/g, '\\.')}`));
});

test('a runner that reaches the gateway runs to SUCCESS, and that dispatcher reports nothing', { skip }, async () => {
  const ex = await s.trigger('checkin', 'good');
  const done = await s.waitEnded(ex.id, 120_000);
  assert.equal(done.state, 'SUCCESS');
  const good = await readyz(health.good);
  assert.equal(good.details?.runner_url, undefined);
});
