// A kubernetes task whose runner cannot reach the gateway (SVC_RUNNER_URL a
// loopback port nothing listens on) ends FAILED executor_error naming that
// address SVC_RUNNER_CHECKIN_TIMEOUT after its pod's task container started,
// instead of running for as long as the runner retries; its Job is deleted
// and the dispatcher's readiness details say so (runner_url). Against the
// Kubernetes API stand-in, pods in the test run's Docker engine.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type Dockerode from 'dockerode';
import { ensureRunnerBundle } from '@svc/runner-bundle';
import { ensureTestImages, testDocker } from '@svc/container-testing';
import { startKubernetesEnv, type KubernetesEnv } from './kubernetes-support.js';
import { until } from './support.js';

const d = testDocker();
const skip = 'skip' in d ? d.skip : false;
let env: KubernetesEnv;
let badUrl = '';

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

before(async () => {
  if (skip) return;
  const docker = (d as { docker: Dockerode }).docker;
  const [images, bundle] = await Promise.all([ensureTestImages(docker), ensureRunnerBundle()]);
  badUrl = `http://127.0.0.1:${await closedPort()}`;
  env = await startKubernetesEnv(
    {
      'unreachable.flow.yaml': JSON.stringify({
        id: 'unreachable',
        tasks: [{ id: 't', type: 'command', command: ['sh', '-c', 'echo never; sleep 1'], executor: { type: 'kubernetes', image: images.busybox } }],
      }),
    },
    { docker, runnerImage: images.runner, runnerArgv: bundle.argv(), dispatcherEnv: { SVC_RUNNER_URL: badUrl, SVC_RUNNER_CHECKIN_TIMEOUT: '5s' } },
  );
});
after(() => env?.close());

test('a runner that cannot reach the gateway ends its run executor_error naming the address; the Job goes', { skip }, async () => {
  const id = await env.trigger('unreachable');
  const done = await env.ended(id, 120_000);
  assert.equal(done.state, 'FAILED');
  assert.equal(done.runs.length, 1);
  assert.equal(done.runs[0]!.reason, 'executor_error');
  assert.match(done.runs[0]!.error, /^the runner in the pod of Job \S+ \(image [^)]+\) did not call the API gateway within 5 s \(SVC_RUNNER_CHECKIN_TIMEOUT\)/);
  assert.ok(done.runs[0]!.error.includes(`${badUrl} (SVC_RUNNER_URL)`), done.runs[0]!.error);
  assert.match(env.readiness.runner_url ?? '', /did not call in within 5 s/);
  await until('the Job and its pod to be deleted', () => {
    const l = env.leftovers();
    return l.jobs.length === 0 && l.pods.length === 0;
  });
});
