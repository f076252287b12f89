// The kubernetes executor end to end, against the Kubernetes API stand-in
// driven through the real @kubernetes/client-node (no real cluster can be had
// here): flows whose tasks run in Jobs, their pods in the test run's Docker
// engine, the injected runner reporting to a real gateway. A script task in
// a Debian image succeeds with its logs and its Job carries the flow's
// kubernetes settings; the runner works in an image with no libc; image pull
// errors end image_pull_failed; a pod whose runner never starts the task, and
// a Job the API refuses, end executor_error, a pod killed after its task
// started ends lost; cancel stops the pod; no Job or pod is
// left after any run. Isolation: a task runs with no capability and no
// privilege escalation; without a service account it gets the task account
// with no token mounted; a service account the operator did not list, or the
// dispatcher's own, fails the run executor_error naming it and the setting;
// so does an image pull secret not listed for the flow's namespace
// (SVC_K8S_IMAGE_PULL_SECRETS), while the listed one reaches the pod. A file
// input reaches a task in a pod (its runner fetches the upload).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import type Dockerode from 'dockerode';
import { ensureRunnerBundle } from '@svc/runner-bundle';
import { ensureTestImages, testDocker } from '@svc/container-testing';
import { startKubernetesEnv, type KubernetesEnv } from './kubernetes-support.js';
import { until } from './support.js';

const d = testDocker();
const skip = 'skip' in d ? d.skip : false;
let env: KubernetesEnv;
const flow = (def: Record<string, unknown>) => JSON.stringify(def);

before(async () => {
  if (skip) return;
  const docker = (d as { docker: Dockerode }).docker;
  const [images, bundle] = await Promise.all([ensureTestImages(docker), ensureRunnerBundle()]);
  const k8s = (image: string, more: Record<string, unknown> = {}) => ({ type: 'kubernetes', image, ...more });
  env = await startKubernetesEnv(
    {
      'hello.sh':
        'echo "hello from a pod"\necho "task $SVC_TASK_ID in $SVC_IMAGE"\ngrep -E "^(CapEff|NoNewPrivs):" /proc/self/status | tr -s "\\t " " "\necho "token in env: $( (env; tr "\\0" "\\n" < /proc/1/environ) | grep -c "^SVC_RUN_TOKEN=")"\n',
      'hello.flow.yaml': flow({
        id: 'hello',
        executor: k8s(images.debian, {
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '512Mi' } },
          kubernetes: {
            service_account: 'etl-runner',
            node_selector: { disktype: 'ssd' },
            tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'etl', effect: 'NoExecute', toleration_seconds: 60 }],
            image_pull_secrets: ['regcred'],
            labels: { team: 'data' },
            annotations: { 'example.com/owner': 'data-team' },
          },
        }),
        tasks: [{ id: 'say', type: 'script', file: 'hello.sh' }],
      }),
      'nolibc.flow.yaml': flow({
        id: 'nolibc',
        tasks: [{ id: 't', type: 'command', command: ['sh', '-c', 'echo "no libc: $(ls /lib 2>/dev/null | wc -l) files in /lib"'], executor: k8s(images.busybox) }],
      }),
      'missing.flow.yaml': flow({ id: 'missing', tasks: [{ id: 't', type: 'command', command: ['true'], executor: k8s('svc-test/absent:1') }] }),
      'invalid.flow.yaml': flow({ id: 'invalid', tasks: [{ id: 't', type: 'command', command: ['true'], executor: k8s('Not/Valid:Ref') }] }),
      'nosvc.flow.yaml': flow({ id: 'nosvc', tasks: [{ id: 't', type: 'command', command: ['true'], executor: k8s(images.debian, { inject_runner: false }) }] }),
      'refused.flow.yaml': flow({
        id: 'refused',
        tasks: [
          {
            id: 't',
            type: 'command',
            command: ['true'],
            executor: k8s(images.busybox, { kubernetes: { tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', toleration_seconds: 5 }] } }),
          },
        ],
      }),
      'unlisted.flow.yaml': flow({
        id: 'unlisted',
        tasks: [{ id: 't', type: 'command', command: ['true'], executor: k8s(images.busybox, { kubernetes: { service_account: 'cluster-admin' } }) }],
      }),
      'othersaccount.flow.yaml': flow({
        id: 'othersaccount',
        tasks: [{ id: 't', type: 'command', command: ['true'], executor: k8s(images.busybox, { kubernetes: { service_account: 'reports-reader' } }) }],
      }),
      'otherspullsecret.flow.yaml': flow({
        id: 'otherspullsecret',
        tasks: [{ id: 't', type: 'command', command: ['true'], executor: k8s(images.busybox, { kubernetes: { image_pull_secrets: ['regcred', 'regcred-other'] } }) }],
      }),
      'unlistedpullsecret.flow.yaml': flow({
        id: 'unlistedpullsecret',
        tasks: [{ id: 't', type: 'command', command: ['true'], executor: k8s(images.busybox, { kubernetes: { image_pull_secrets: ['cluster-wide-regcred'] } }) }],
      }),
      'own.flow.yaml': flow({
        id: 'own',
        tasks: [{ id: 't', type: 'command', command: ['true'], executor: k8s(images.busybox, { kubernetes: { service_account: 'svc-dispatcher' } }) }],
      }),
      'withfile.flow.yaml': flow({
        id: 'withfile',
        inputs: [{ id: 'report', type: 'file', required: true }],
        tasks: [
          {
            id: 't',
            type: 'command',
            env: { F: '{{ inputs.report }}' },
            command: ['sh', '-c', 'echo "sha $(sha256sum "$F" | cut -c1-64)"; echo "first $(head -n1 "$F")"'],
            executor: k8s(images.busybox),
          },
        ],
      }),
      'slow.flow.yaml': flow({ id: 'slow', tasks: [{ id: 't', type: 'command', command: ['sh', '-c', 'echo started; sleep 300'], executor: k8s(images.debian) }] }),
    },
    { docker, runnerImage: images.runner, runnerArgv: bundle.argv() },
  );
});
after(() => env?.close());

/** No Job or pod of the executor is left once a run ended (deleted with propagation). */
async function nothingLeft(): Promise<void> {
  await until('the Jobs and pods to be deleted', () => {
    const l = env.leftovers();
    return l.jobs.length === 0 && l.pods.length === 0;
  });
}

test('a script task in a Debian image runs in a Job and succeeds with its logs; the Job carries the kubernetes settings', { skip }, async () => {
  const id = await env.trigger('hello');
  const ex = await env.ended(id);
  assert.equal(ex.state, 'SUCCESS', JSON.stringify(ex));
  const lines = await env.logLines(id);
  assert.ok(lines.includes('hello from a pod'), lines.join('\n'));
  assert.ok(
    lines.some((l) => /^task say in svc-test\/debian/.test(l) || /^task say in /.test(l)),
    lines.join('\n'),
  );
  assert.ok(lines.includes('CapEff: 0000000000000000') && lines.includes('NoNewPrivs: 1'), `no capability, no privilege escalation:\n${lines.join('\n')}`);

  const job = env.createdJobs.find((j) => j.metadata.labels?.['svc.dev/execution-id'] === id)!;
  assert.ok(job, 'the Job was created');
  assert.equal(job.metadata.namespace, 'svc-jobs');
  assert.equal(job.metadata.labels!.team, 'data');
  assert.equal(job.metadata.labels!['app.kubernetes.io/managed-by'], 'svc');
  assert.equal(job.metadata.labels!['svc.dev/task-run-id'], ex.runs[0]!.id);
  assert.deepEqual(job.metadata.annotations, { 'example.com/owner': 'data-team' });
  const pod = job.spec.template.spec;
  assert.equal(pod.serviceAccountName, 'etl-runner', 'listed in SVC_K8S_SERVICE_ACCOUNTS for the namespace ns');
  // The run token: in a Secret owned by the Job (gone with it), never in the Job's environment.
  const env0 = pod.containers[0].env ?? [];
  assert.ok(!env0.some((e) => e.name === 'SVC_RUN_TOKEN'), 'no SVC_RUN_TOKEN in the Job');
  assert.ok(env0.some((e) => e.name === 'SVC_RUN_TOKEN_FILE' && e.value === '/.svc-token/token'));
  assert.ok(lines.includes('token in env: 0'), `the task saw no token variable:\n${lines.join('\n')}`);
  assert.equal(pod.automountServiceAccountToken, undefined, 'an allowed account keeps its token');
  const secure = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } };
  assert.deepEqual(pod.containers[0].securityContext, secure);
  assert.deepEqual(pod.initContainers![0].securityContext, secure);
  assert.deepEqual(pod.nodeSelector, { disktype: 'ssd' });
  assert.deepEqual(pod.tolerations, [{ key: 'dedicated', operator: 'Equal', value: 'etl', effect: 'NoExecute', tolerationSeconds: 60 }]);
  assert.deepEqual(pod.imagePullSecrets, [{ name: 'regcred' }]);
  assert.equal(pod.restartPolicy, 'Never');
  assert.equal(job.spec.backoffLimit, 0);
  assert.equal(pod.terminationGracePeriodSeconds, 2, 'the kill delay');
  assert.deepEqual(pod.containers[0].resources, { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '512Mi' } });
  assert.equal(pod.initContainers![0].name, 'svc-runner');
  assert.equal(env.executor.slots, 3, 'SVC_K8S_MAX_JOBS');
  await nothingLeft();
});

test('the injected runner runs in an image without any libc', { skip }, async () => {
  const id = await env.trigger('nolibc');
  const ex = await env.ended(id);
  assert.equal(ex.state, 'SUCCESS', JSON.stringify(ex));
  assert.deepEqual(await env.logLines(id), ['no libc: 0 files in /lib']);
  const pod = env.createdJobs.find((j) => j.metadata.labels?.['svc.dev/execution-id'] === id)!.spec.template.spec;
  assert.equal(pod.serviceAccountName, 'svc-task', 'no account named: SVC_K8S_TASK_SERVICE_ACCOUNT');
  assert.equal(pod.automountServiceAccountToken, false, 'whose token is not mounted');
  await nothingLeft();
});

test(
  "a service account or image pull secret the operator did not list for the namespace, or the dispatcher's own account, fails the run executor_error naming it and the setting; no Job is made",
  { skip },
  async () => {
    const cases: [string, RegExp][] = [
      [
        'unlisted',
        /^task t cannot run on the kubernetes executor: the service account cluster-admin is not allowed in namespace ns: an operator must list it in SVC_K8S_SERVICE_ACCOUNTS for a prefix of ns \(for namespace ns it lists etl-runner\)$/,
      ],
      [
        'othersaccount',
        /^task t cannot run on the kubernetes executor: the service account reports-reader is not allowed in namespace ns: .*\(for namespace ns it lists etl-runner\)$/,
      ],
      ['own', /^task t cannot run on the kubernetes executor: the service account svc-dispatcher is the dispatcher's own .*SVC_K8S_SERVICE_ACCOUNTS/],
      // Image pull secrets: the same namespace rule (SVC_K8S_IMAGE_PULL_SECRETS).
      [
        'otherspullsecret',
        /^task t cannot run on the kubernetes executor: the image pull secret regcred-other is not allowed in namespace ns: an operator must list it in SVC_K8S_IMAGE_PULL_SECRETS for a prefix of ns \(for namespace ns it lists regcred\)$/,
      ],
      [
        'unlistedpullsecret',
        /^task t cannot run on the kubernetes executor: the image pull secret cluster-wide-regcred is not allowed in namespace ns: .*SVC_K8S_IMAGE_PULL_SECRETS/,
      ],
    ];
    for (const [flowId, message] of cases) {
      const id = await env.trigger(flowId);
      const ex = await env.ended(id);
      assert.equal(ex.state, 'FAILED', flowId);
      assert.equal(ex.runs[0]!.reason, 'executor_error', flowId);
      assert.match(ex.runs[0]!.error, message);
      assert.ok(!env.createdJobs.some((j) => j.metadata.labels?.['svc.dev/execution-id'] === id), `${flowId}: no Job`);
    }
  },
);

// `pull` is a docker setting (the flow schema refuses it on kubernetes): Jobs pull IfNotPresent, and no registry can be reached here.
test("a file input reaches a task in a pod: the pod's runner fetches the upload from the gateway", { skip }, async () => {
  const body = Buffer.from(`first line of the report\n${'y'.repeat(200_000)}\n`);
  const upload = await env.engine.uploads.create('ns', 'report.txt', Readable.from([body]), { maxBytes: 10 << 20 });
  const id = (await env.engine.executions.trigger({ namespace: 'ns', flowId: 'withfile', triggerType: 'manual', createdBy: 't', inputs: { report: upload.id } })).id;
  const ex = await env.ended(id);
  assert.equal(ex.state, 'SUCCESS', JSON.stringify(ex));
  const lines = await env.logLines(id);
  assert.ok(lines.includes(`sha ${crypto.createHash('sha256').update(body).digest('hex')}`), `the bytes the task read are the upload:\n${lines.join('\n')}`);
  assert.ok(lines.includes('first first line of the report'), lines.join('\n'));
  await nothingLeft();
});

test('an image that cannot be pulled ends the run image_pull_failed with the kubelet message', { skip }, async () => {
  const cases: [string, RegExp][] = [
    ['missing', /image svc-test\/absent:1 cannot be pulled: (ErrImagePull|ImagePullBackOff): /],
    ['invalid', /image Not\/Valid:Ref cannot be pulled: InvalidImageName: /],
  ];
  for (const [flowId, message] of cases) {
    const ex = await env.ended(await env.trigger(flowId));
    assert.equal(ex.state, 'FAILED', flowId);
    assert.equal(ex.runs[0]!.reason, 'image_pull_failed', `${flowId}: ${ex.runs[0]!.error}`);
    assert.match(ex.runs[0]!.error, message);
  }
  await nothingLeft();
});

test('a pod that ends without its runner reporting (no svc on the PATH: the task never started) ends executor_error naming the exit', { skip }, async () => {
  const ex = await env.ended(await env.trigger('nosvc'));
  assert.equal(ex.state, 'FAILED');
  assert.equal(ex.runs[0]!.reason, 'executor_error');
  assert.match(ex.runs[0]!.error, /before its runner reported the end: pod svc-[a-z0-9-]+ ended( Failed)?: container task exited with code 128 \(StartError\): .*svc.*not found/);
  await nothingLeft();
});

test('a Job the API refuses ends executor_error with the API message', { skip }, async () => {
  const ex = await env.ended(await env.trigger('refused'));
  assert.equal(ex.runs[0]!.reason, 'executor_error');
  assert.match(
    ex.runs[0]!.error,
    /cannot create the Kubernetes Job svc-[a-z0-9-]+ in namespace svc-jobs: Job\.batch "svc-[a-z0-9-]+" is invalid: spec\.template\.spec\.tolerations\[0\]\.effect: .*effect must be 'NoExecute' when `tolerationSeconds` is set \(HTTP 422\)/,
  );
});

test('cancel deletes the Job: the pod gets SIGTERM, the runner reports, the execution ends CANCELLED and nothing is left', { skip }, async () => {
  const id = await env.trigger('slow');
  await until('the task to start', async () => (await env.logLines(id)).includes('started'), 60_000);
  assert.equal(env.leftovers().jobs.length, 1);
  await env.engine.executions.cancel(id, 't');
  const ex = await env.ended(id, 30_000);
  assert.equal(ex.state, 'CANCELLED', JSON.stringify(ex));
  // Reported by the runner itself (SIGTERM from the pod's deletion; it asks the gateway whether that is a cancel), not ended by the executor's fallback.
  assert.deepEqual([ex.runs[0]!.state, ex.runs[0]!.reason], ['CANCELLED', 'cancelled'], JSON.stringify(ex.runs[0]));
  await nothingLeft();
});

test(
  "a pod killed outright (deleted without a grace period) after its task started ends the run lost (the spec's reason for lost work) instead of leaving it running",
  { skip },
  async () => {
    const id = await env.trigger('slow');
    await until('the task to start', async () => (await env.logLines(id)).includes('started'), 60_000);
    const [pod] = (await env.core.listNamespacedPod({ namespace: 'svc-jobs', labelSelector: `svc.dev/execution-id=${id}` })).items;
    await env.core.deleteNamespacedPod({ name: pod!.metadata!.name!, namespace: 'svc-jobs', gracePeriodSeconds: 0 });
    const ex = await env.ended(id, 30_000);
    assert.equal(ex.state, 'FAILED');
    assert.equal(ex.runs[0]!.reason, 'lost');
    assert.match(ex.runs[0]!.error, /before its runner reported the end: .*(exited with code 137|BackoffLimitExceeded)/);
    await nothingLeft();
  },
);

test('a Job left by a dispatcher that died, for a run that has ended, is deleted by the sweep', { skip }, async () => {
  const ended = await env.ended(await env.trigger('nolibc'));
  await nothingLeft();
  const leftover = 'svc-left-by-a-dead-dispatcher';
  const labels = {
    'app.kubernetes.io/managed-by': 'svc',
    'svc.dev/deployment': await env.engine.dispatch.deploymentId(),
    'svc.dev/instance-id': 'disp-gone',
    'svc.dev/task-run-id': ended.runs[0]!.id,
  };
  const foreign = 'not-ours';
  // Another deployment's Job for a run id this one knows as ended: not ours to delete either.
  const otherDeployment = 'svc-of-another-deployment';
  for (const [name, l] of [
    [leftover, labels],
    [foreign, { app: 'other' }],
    [otherDeployment, { ...labels, 'svc.dev/deployment': 'another' }],
  ] as const) {
    await env.batch.createNamespacedJob({
      namespace: 'svc-jobs',
      body: { metadata: { name, labels: l }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'svc-test/absent:1' }] } } } },
    });
  }
  await until('the sweep to delete the leftover', () => !env.leftovers().jobs.includes(leftover));
  assert.ok(env.leftovers().jobs.includes(foreign), 'a Job svc did not make stays');
  assert.ok(env.leftovers().jobs.includes(otherDeployment), 'a Job of another deployment stays');
  for (const name of [foreign, otherDeployment]) await env.batch.deleteNamespacedJob({ name, namespace: 'svc-jobs', propagationPolicy: 'Background' });
});
