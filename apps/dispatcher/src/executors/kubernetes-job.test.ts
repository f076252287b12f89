// The Job manifest of a task run, field by field: every `kubernetes` setting
// of the spec, resources, the runner's init container and volume, what
// inject_runner: false leaves out, the task service account without a token
// by default, and the security context of every container.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClaimedRun, PreparedTask } from '@svc/engine';
import type { ContainerTask } from './container-task.js';
import { DEADLINE_MARGIN_S, FINISHED_JOB_TTL_S, imagePullPolicy, INSTALL_DIR, jobManifest, tokenSecret } from './kubernetes-job.js';

const RUNNER_ARGV = ['/.svc-runner/lib/ld-linux-x86-64.so.2', '--inhibit-cache', '--library-path', '/.svc-runner/lib', '/.svc-runner/bin/node', '/.svc-runner/svc.cjs'];
const OPTS = {
  namespace: 'svc-jobs',
  taskServiceAccount: 'svc-task',
  runnerImage: 'svc-runner:abc123',
  runnerArgv: RUNNER_ARGV,
  runnerMount: '/.svc-runner',
  terminationGraceSeconds: 10,
};
const LABELS = {
  'app.kubernetes.io/managed-by': 'svc',
  'svc.dev/instance-id': 'disp-1',
  'svc.dev/execution-id': 'ex-1',
  'svc.dev/task-run-id': 'tr-1',
  'svc.dev/namespace': 'team',
  'svc.dev/flow-id': 'etl',
  'svc.dev/task-id': 'load',
};
const SECURE = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } };
const ENV = { SVC_SERVER: 'http://gw:8080', SVC_TASK_RUN_ID: 'tr-1', SVC_IMAGE: 'python:3.12-slim' };

function task(over: Partial<ContainerTask> = {}, timeoutSeconds = 600): ContainerTask {
  return {
    run: { id: 'tr-1' } as ClaimedRun,
    prepared: { spec: { timeout_seconds: timeoutSeconds } } as PreparedTask,
    image: 'python:3.12-slim',
    injectRunner: true,
    pull: 'if_not_present',
    network: undefined,
    resources: {},
    kubernetes: {},
    command: [...RUNNER_ARGV, 'exec'],
    env: ENV,
    token: 'tok',
    labels: LABELS,
    name: 'svc-tr-1',
    ...over,
  };
}

test('a task with every kubernetes setting: the Job carries each of them, the resources and the runner init container', () => {
  const job = jobManifest(
    task({
      pull: 'always',
      resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
      kubernetes: {
        service_account: 'etl-runner',
        node_selector: { 'kubernetes.io/arch': 'amd64', pool: 'batch' },
        tolerations: [
          { key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' },
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', toleration_seconds: 30 },
        ],
        image_pull_secrets: ['registry-a', 'registry-b'],
        labels: { team: 'data', 'svc.dev/task-id': 'overridden?' },
        annotations: { 'cost-center': '42', 'example.com/owner': 'data-team' },
      },
    }),
    OPTS,
  );
  const labels = { team: 'data', ...LABELS };
  const annotations = { 'cost-center': '42', 'example.com/owner': 'data-team' };
  assert.equal(job.apiVersion, 'batch/v1');
  assert.equal(job.kind, 'Job');
  assert.deepEqual(job.metadata, { name: 'svc-tr-1', namespace: 'svc-jobs', labels, annotations });
  assert.equal(labels['svc.dev/task-id'], 'load', "svc's own labels win over a user label of the same key");
  const spec = job.spec!;
  assert.equal(spec.backoffLimit, 0);
  assert.equal(spec.activeDeadlineSeconds, 600 + DEADLINE_MARGIN_S);
  assert.equal(spec.ttlSecondsAfterFinished, FINISHED_JOB_TTL_S);
  assert.deepEqual(spec.template.metadata, { labels, annotations });
  const pod = spec.template.spec!;
  assert.equal(pod.restartPolicy, 'Never');
  assert.equal(pod.serviceAccountName, 'etl-runner');
  assert.equal(pod.automountServiceAccountToken, undefined, 'a chosen service account keeps its token');
  assert.deepEqual(pod.nodeSelector, { 'kubernetes.io/arch': 'amd64', pool: 'batch' });
  assert.deepEqual(pod.tolerations, [
    { key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
  ]);
  assert.deepEqual(pod.imagePullSecrets, [{ name: 'registry-a' }, { name: 'registry-b' }]);
  assert.equal(pod.terminationGracePeriodSeconds, 10);
  assert.deepEqual(pod.volumes, [
    { name: 'svc-runner', emptyDir: {} },
    { name: 'svc-run-token', secret: { secretName: 'svc-tr-1-token', defaultMode: 0o400, items: [{ key: 'token', path: 'token' }] } },
  ]);
  assert.deepEqual(pod.initContainers, [
    {
      name: 'svc-runner',
      image: 'svc-runner:abc123',
      imagePullPolicy: 'IfNotPresent',
      command: [...RUNNER_ARGV, 'install-runner', INSTALL_DIR],
      volumeMounts: [{ name: 'svc-runner', mountPath: INSTALL_DIR }],
      securityContext: SECURE,
    },
  ]);
  assert.deepEqual(pod.containers, [
    {
      name: 'task',
      image: 'python:3.12-slim',
      imagePullPolicy: 'Always',
      command: [...RUNNER_ARGV, 'exec'],
      env: [
        { name: 'SVC_SERVER', value: 'http://gw:8080' },
        { name: 'SVC_TASK_RUN_ID', value: 'tr-1' },
        { name: 'SVC_IMAGE', value: 'python:3.12-slim' },
        { name: 'SVC_RUN_TOKEN_FILE', value: '/.svc-token/token' },
      ],
      resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
      volumeMounts: [
        { name: 'svc-runner', mountPath: '/.svc-runner', readOnly: true },
        { name: 'svc-run-token', mountPath: '/.svc-token', readOnly: true },
      ],
      securityContext: SECURE,
    },
  ]);
  assert.deepEqual(pod.securityContext, { fsGroup: 64000 }, 'runAsNonRoot only when the operator asks for it; the token group always');
  assert.ok(!JSON.stringify(job).includes('"tok"'), 'the token is nowhere in the Job');
});

test('inject_runner false: no init container, no runner volume, svc from the image PATH', () => {
  const job = jobManifest(task({ injectRunner: false, command: ['svc', 'exec'] }), OPTS);
  const pod = job.spec!.template.spec!;
  assert.equal(pod.initContainers, undefined);
  assert.deepEqual(
    pod.volumes,
    [{ name: 'svc-run-token', secret: { secretName: 'svc-tr-1-token', defaultMode: 0o400, items: [{ key: 'token', path: 'token' }] } }],
    'the token volume only',
  );
  assert.deepEqual(pod.containers[0]!.command, ['svc', 'exec']);
  assert.deepEqual(pod.containers[0]!.volumeMounts, [{ name: 'svc-run-token', mountPath: '/.svc-token', readOnly: true }]);
});

test('a task without settings: the task service account without its token, no resources', () => {
  const job = jobManifest(task({}, 0), OPTS);
  const pod = job.spec!.template.spec!;
  assert.deepEqual(job.metadata, { name: 'svc-tr-1', namespace: 'svc-jobs', labels: LABELS });
  assert.equal(job.spec!.activeDeadlineSeconds, 24 * 3600 + DEADLINE_MARGIN_S, 'no timeout: the 24 h default');
  assert.equal(pod.serviceAccountName, 'svc-task', 'SVC_K8S_TASK_SERVICE_ACCOUNT, not the namespace default account');
  assert.equal(pod.automountServiceAccountToken, false);
  for (const k of ['nodeSelector', 'tolerations', 'imagePullSecrets'] as const) assert.equal(pod[k], undefined, k);
  assert.deepEqual(pod.containers[0]!.securityContext, SECURE);
  assert.deepEqual(pod.initContainers![0]!.securityContext, SECURE);
  assert.equal(pod.containers[0]!.resources, undefined);
  assert.equal(pod.containers[0]!.imagePullPolicy, 'IfNotPresent');
});

test('SVC_K8S_RUN_AS_NON_ROOT adds runAsNonRoot at the pod level; the containers keep their security context', () => {
  for (const injectRunner of [true, false]) {
    const pod = jobManifest(task({ injectRunner }), { ...OPTS, runAsNonRoot: true }).spec!.template.spec!;
    assert.deepEqual(pod.securityContext, { runAsNonRoot: true, fsGroup: 64000 });
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) assert.deepEqual(c.securityContext, SECURE, c.name);
  }
  const a = jobManifest(task(), OPTS).spec!.template.spec!;
  a.containers[0]!.securityContext!.capabilities!.drop!.pop();
  assert.deepEqual(jobManifest(task(), OPTS).spec!.template.spec!.containers[0]!.securityContext, SECURE, 'no manifest shares its objects with the next');
});

test('pull policies map to imagePullPolicy', () => {
  assert.deepEqual((['always', 'if_not_present', 'never'] as const).map(imagePullPolicy), ['Always', 'IfNotPresent', 'Never']);
});

test('the run token is in a Secret owned by the Job, never in the Job: the task reads it from SVC_RUN_TOKEN_FILE', () => {
  const t = task();
  const job = jobManifest(t, OPTS);
  assert.ok(!JSON.stringify(job).includes('"tok"'), 'no token value in the Job');
  assert.ok(!job.spec!.template.spec!.containers[0]!.env!.some((e) => e.name === 'SVC_RUN_TOKEN'), 'no SVC_RUN_TOKEN variable');
  const secret = tokenSecret(t, 'svc-jobs', { name: 'svc-tr-1', uid: 'uid-1' });
  assert.equal(secret.metadata!.name, 'svc-tr-1-token');
  assert.deepEqual(secret.metadata!.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'svc-tr-1', uid: 'uid-1' }], 'removed with its Job');
  assert.equal(Buffer.from(secret.data!.token!, 'base64').toString(), 'tok');
});
