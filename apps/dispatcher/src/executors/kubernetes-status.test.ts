// What the executor reads from pod and Job statuses, on statuses shaped as
// the API returns them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { jobOutcome, podOutcome } from './kubernetes-status.js';

const pod = (status: V1Pod['status']): V1Pod => ({ metadata: { name: 'svc-tr-1-abcde' }, status });
const waiting = (name: string, image: string, reason: string, message?: string) => ({
  name,
  image,
  imageID: '',
  ready: false,
  restartCount: 0,
  state: { waiting: { reason, message } },
});

test('image pull errors of the task image or the runner image end image_pull_failed with the kubelet message', () => {
  for (const reason of ['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']) {
    const o = podOutcome(pod({ phase: 'Pending', containerStatuses: [waiting('task', 'py:3', reason, 'the kubelet says why')] }));
    assert.deepEqual(o, { kind: 'image_pull_failed', message: `image py:3 cannot be pulled: ${reason}: the kubelet says why` });
  }
  const runner = podOutcome(
    pod({ phase: 'Pending', initContainerStatuses: [waiting('svc-runner', 'svc-runner:1', 'ErrImageNeverPull')], containerStatuses: [waiting('task', 'py:3', 'PodInitializing')] }),
  );
  assert.deepEqual(runner, { kind: 'image_pull_failed', message: 'the runner image svc-runner:1 cannot be pulled: ErrImageNeverPull' });
});

test('normal waits are no outcome; a container that cannot be created is', () => {
  assert.equal(podOutcome(pod({ phase: 'Pending', containerStatuses: [waiting('task', 'py:3', 'ContainerCreating')] })), null);
  assert.equal(
    podOutcome(pod({ phase: 'Running', containerStatuses: [{ name: 'task', image: 'py:3', imageID: '', ready: true, restartCount: 0, state: { running: {} } }] })),
    null,
  );
  assert.deepEqual(podOutcome(pod({ phase: 'Pending', containerStatuses: [waiting('task', 'py:3', 'CreateContainerConfigError', 'secret "x" not found')] })), {
    kind: 'ended',
    message: 'container task cannot start: CreateContainerConfigError: secret "x" not found',
  });
});

test('an ended pod names the exit code and reason of the task container, a failed init container, or the pod reason', () => {
  const term = (name: string, exitCode: number, reason: string) => ({ name, image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, reason } } });
  assert.deepEqual(podOutcome(pod({ phase: 'Failed', containerStatuses: [term('task', 137, 'OOMKilled')] })), {
    kind: 'ended',
    message: 'pod svc-tr-1-abcde ended Failed: container task exited with code 137 (OOMKilled)',
  });
  assert.deepEqual(podOutcome(pod({ phase: 'Failed', initContainerStatuses: [term('svc-runner', 1, 'Error')], containerStatuses: [waiting('task', 'i', 'PodInitializing')] })), {
    kind: 'ended',
    message: 'pod svc-tr-1-abcde ended Failed: init container svc-runner exited with code 1 (Error)',
  });
  assert.deepEqual(podOutcome(pod({ phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' })), {
    kind: 'ended',
    message: 'pod svc-tr-1-abcde ended Failed: pod Evicted: The node was low on resource: memory.',
  });
});

test('a failed Job (deadline, back-off limit) is an outcome', () => {
  const job: V1Job = {
    metadata: { name: 'svc-tr-1' },
    status: { conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }] },
  };
  assert.deepEqual(jobOutcome(job), { kind: 'ended', message: 'Job svc-tr-1 failed: DeadlineExceeded: Job was active longer than specified deadline' });
  assert.equal(jobOutcome({ metadata: { name: 'j' }, status: { active: 1 } }), null);
});
