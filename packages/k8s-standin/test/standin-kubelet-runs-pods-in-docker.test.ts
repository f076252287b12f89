// The stand-in's kubelet runs the pods of Jobs through a real Docker engine
// (the one `npm test` starts), observed only through @kubernetes/client-node:
// init containers before containers with a shared emptyDir, command, args,
// env and limits; phases and container states; logs; the Job controller's
// conditions and back-off limit; image pull errors; deletion with SIGTERM,
// SIGKILL after the grace period, and nothing left in Docker; the
// securityContext as the process sees it, and runAsNonRoot's refusal.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Watch, type V1Pod } from '@kubernetes/client-node';
import type Dockerode from 'dockerode';
import { OWNER_LABEL, startStandin, type Standin } from '../src/index.js';
import { ensureTestImages, testDocker } from '@svc/container-testing';
import { apiError, clients, job, plain, until } from './support.js';

const d = testDocker();
const skip = 'skip' in d ? d.skip : false;
let docker: Dockerode;
let s: Standin;
let c: ReturnType<typeof clients>;
let busybox: string;

before(async () => {
  if (skip) return;
  docker = (d as { docker: Dockerode }).docker;
  busybox = (await ensureTestImages(docker)).busybox;
  s = await startStandin({ docker, backOffMs: 100 });
  c = clients(s);
});
after(() => s?.close());

const podsOf = async (name: string) => (await c.core.listNamespacedPod({ namespace: 'default', labelSelector: `job-name=${name}` })).items;
const jobDone = (name: string) =>
  until(`job ${name} to finish`, async () => {
    const j = await c.batch.readNamespacedJob({ name, namespace: 'default' });
    return j.status?.conditions?.some((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True') && j;
  });

/** Every version of the pods of `jobName` the watch delivers, until `stop` holds for one event. */
function watchPods(jobName: string, stop: (type: string, pod: any) => boolean): Promise<[string, any][]> {
  return new Promise((resolve, reject) => {
    const events: [string, any][] = [];
    let ctl: AbortController | undefined;
    let done = false;
    new Watch(c.kc)
      .watch(
        '/api/v1/namespaces/default/pods',
        { labelSelector: `job-name=${jobName}` },
        (type, obj) => {
          events.push([type, obj]);
          if (!done && stop(type, obj)) {
            done = true;
            ctl?.abort();
            resolve(events);
          }
        },
        (err) => !done && (err && (err as Error).name !== 'AbortError' ? reject(err) : resolve(events)),
      )
      .then((x) => {
        ctl = x;
        if (done) x.abort();
      }, reject);
  });
}

test('a pod runs in Docker: init container into an emptyDir, then the container with its command, args, env and limits; phases and logs', { skip }, async () => {
  const seen = watchPods('runs', (type, p) => type === 'MODIFIED' && p.status?.phase === 'Succeeded');
  const body = job(
    'runs',
    {
      image: busybox,
      command: ['sh', '-c'],
      args: ['cat /data/x; echo "greeting=$GREETING pod=$POD_NAME"; sleep 0.5'],
      env: [
        { name: 'GREETING', value: 'hello' },
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ],
      resources: { requests: { cpu: '250m' }, limits: { cpu: '500m', memory: '64Mi' } },
      volumeMounts: [{ name: 'shared', mountPath: '/data' }],
    },
    {},
    {
      volumes: [{ name: 'shared', emptyDir: {} }],
      initContainers: [{ name: 'init', image: busybox, command: ['sh', '-c', 'echo from init > /data/x; echo init ran'], volumeMounts: [{ name: 'shared', mountPath: '/data' }] }],
    },
  );
  await c.batch.createNamespacedJob({ namespace: 'default', body });
  const events = await seen;
  const phases = events.map(([, p]) => p.status?.phase).filter((p, i, a) => p && p !== a[i - 1]);
  assert.deepEqual(phases, ['Pending', 'Running', 'Succeeded']);
  const waiting = events.map(([, p]) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason).filter(Boolean);
  assert.ok(waiting.includes('PodInitializing'), `the container waits for the init container: ${waiting}`);

  const j = await jobDone('runs');
  assert.deepEqual(
    j.status!.conditions!.map((x) => [x.type, x.status, x.reason]),
    [
      ['SuccessCriteriaMet', 'True', 'CompletionsReached'],
      ['Complete', 'True', 'CompletionsReached'],
    ],
  );
  assert.equal(j.status!.succeeded, 1);
  assert.ok(j.status!.completionTime instanceof Date);

  const [pod] = await podsOf('runs');
  const st = pod!.status!;
  assert.equal(st.phase, 'Succeeded');
  assert.equal(st.initContainerStatuses![0]!.state!.terminated!.exitCode, 0);
  assert.equal(st.initContainerStatuses![0]!.state!.terminated!.reason, 'Completed');
  const main = st.containerStatuses![0]!;
  assert.equal(main.state!.terminated!.exitCode, 0);
  assert.equal(main.state!.terminated!.reason, 'Completed');
  assert.match(main.containerID!, /^docker:\/\/[0-9a-f]{64}$/);
  assert.equal(st.podIP, '127.0.0.1', 'the host network');

  const name = pod!.metadata!.name!;
  assert.equal(await c.core.readNamespacedPodLog({ name, namespace: 'default', container: 'main' }), `from init\ngreeting=hello pod=${name}\n`);
  assert.equal(await c.core.readNamespacedPodLog({ name, namespace: 'default', container: 'init' }), 'init ran\n');
  assert.equal(await c.core.readNamespacedPodLog({ name, namespace: 'default' }), `from init\ngreeting=hello pod=${name}\n`, 'the one container by default');
  const which = await apiError(c.core.readNamespacedPodLog({ name, namespace: 'default', container: 'other' }));
  assert.equal(which.code, 400);
  assert.equal(which.body.message, `container other is not valid for pod ${name}`);

  const [info] = await docker.listContainers({ all: true, filters: JSON.stringify({ label: [`io.kubernetes.pod.name=${name}`, 'io.kubernetes.container.name=main'] }) });
  const inspect = await docker.getContainer(info!.Id).inspect();
  assert.equal(inspect.HostConfig.NanoCpus, 500_000_000);
  assert.equal(inspect.HostConfig.Memory, 64 * 1024 * 1024);
  assert.equal(inspect.HostConfig.CpuShares, 256);
  assert.equal(inspect.HostConfig.NetworkMode, 'host');
  assert.deepEqual(inspect.Config.Entrypoint, ['sh', '-c']);
  assert.ok(inspect.Config.Env.includes('GREETING=hello'));
  assert.equal(inspect.Config.Labels[OWNER_LABEL], s.id);
});

test('a failing container fails its pod; past backoffLimit the Job fails BackoffLimitExceeded', { skip }, async () => {
  await c.batch.createNamespacedJob({ namespace: 'default', body: job('fails', { image: busybox, command: ['sh', '-c', 'echo failing >&2; exit 3'] }, { backoffLimit: 1 }) });
  const j = await jobDone('fails');
  const failed = j.status!.conditions!.find((x) => x.type === 'Failed')!;
  assert.equal(failed.reason, 'BackoffLimitExceeded');
  assert.equal(failed.message, 'Job has reached the specified backoff limit');
  assert.equal(j.status!.failed, 2, 'backoffLimit 1: a second pod ran');
  const pods = await podsOf('fails');
  assert.equal(pods.length, 2);
  for (const p of pods) {
    assert.equal(p.status!.phase, 'Failed');
    assert.deepEqual([p.status!.containerStatuses![0]!.state!.terminated!.exitCode, p.status!.containerStatuses![0]!.state!.terminated!.reason], [3, 'Error']);
  }
  assert.equal(await c.core.readNamespacedPodLog({ name: pods[0]!.metadata!.name!, namespace: 'default' }), 'failing\n');
});

test('images: a missing one waits in ErrImagePull and ImagePullBackOff, Never gives ErrImageNeverPull, a malformed one InvalidImageName', { skip }, async () => {
  const cases: [string, string, string, RegExp][] = [
    ['pull-missing', 'svc-test/nothing-here:1', 'IfNotPresent', /^Failed to pull image "svc-test\/nothing-here:1": .*"docker\.io\/svc-test\/nothing-here:1"/],
    ['pull-never', 'svc-test/nothing-here:1', 'Never', /^Container image "svc-test\/nothing-here:1" is not present with pull policy of Never$/],
    [
      'pull-invalid',
      'Not/A:Valid:Ref',
      'IfNotPresent',
      /^Failed to apply default image tag "Not\/A:Valid:Ref": couldn't parse image name "Not\/A:Valid:Ref": invalid reference format$/,
    ],
  ];
  const expected: Record<string, string> = { 'pull-missing': 'ErrImagePull', 'pull-never': 'ErrImageNeverPull', 'pull-invalid': 'InvalidImageName' };
  for (const [name, image, imagePullPolicy] of cases) await c.batch.createNamespacedJob({ namespace: 'default', body: job(name, { image, imagePullPolicy }) });
  for (const [name, , , message] of cases) {
    // One read per look: the state may move on (ErrImagePull to ImagePullBackOff) between two.
    const w = await until(`${name} to wait`, async () => {
      const waiting = (await podsOf(name))[0]?.status?.containerStatuses?.[0]?.state?.waiting;
      return waiting?.reason === expected[name] && waiting;
    });
    assert.match(w.message!, message);
  }
  await until('ImagePullBackOff', async () => (await podsOf('pull-missing'))[0]?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff');
  const [p] = await podsOf('pull-missing');
  assert.equal(p!.status!.phase, 'Pending');
  assert.equal(p!.status!.containerStatuses![0]!.state!.waiting!.message, 'Back-off pulling image "svc-test/nothing-here:1"');
  const log = await apiError(c.core.readNamespacedPodLog({ name: p!.metadata!.name!, namespace: 'default' }));
  assert.equal(log.code, 400);
  assert.match(log.body.message, /is waiting to start: trying and failing to pull image/);
  for (const [name] of cases) await c.batch.deleteNamespacedJob({ name, namespace: 'default', propagationPolicy: 'Background' });
  await until('their pods to go', async () => (await Promise.all(cases.map(([n]) => podsOf(n)))).every((x) => x.length === 0));
});

test('deletion: SIGTERM, SIGKILL after the grace period, then the containers and volumes are removed', { skip }, async () => {
  const script = (trap: string) => `${trap}; echo started; while true; do sleep 0.1; done`;
  await c.batch.createNamespacedJob({
    namespace: 'default',
    body: job(
      'obeys',
      { image: busybox, command: ['sh', '-c', script("trap 'echo got TERM; exit 0' TERM")] },
      {},
      { terminationGracePeriodSeconds: 30, volumes: [{ name: 'v', emptyDir: {} }] },
    ),
  });
  await c.batch.createNamespacedJob({
    namespace: 'default',
    body: job('ignores', { image: busybox, command: ['sh', '-c', script("trap '' TERM")] }, {}, { terminationGracePeriodSeconds: 2 }),
  });
  const running = async (n: string) => {
    const [p] = await podsOf(n);
    return p?.status?.phase === 'Running' && (await c.core.readNamespacedPodLog({ name: p.metadata!.name!, namespace: 'default' })) === 'started\n' && p;
  };
  const obeys = (await until('obeys to run', () => running('obeys'))) as V1Pod;
  const ignores = (await until('ignores to run', () => running('ignores'))) as V1Pod;

  for (const [name, pod] of [
    ['obeys', obeys],
    ['ignores', ignores],
  ] as const) {
    const gone = watchPods(name, (type, p) => type === 'DELETED' && p.metadata?.uid === pod.metadata!.uid);
    const t0 = Date.now();
    const answer = plain(await c.core.deleteNamespacedPod({ name: pod.metadata!.name!, namespace: 'default' }));
    assert.ok(answer.metadata.deletionTimestamp, 'answered with the pod, marked for deletion');
    assert.equal(answer.metadata.deletionGracePeriodSeconds, pod.spec!.terminationGracePeriodSeconds);
    const events = await gone;
    const ms = Date.now() - t0;
    // The container's end as the kubelet reported it (the DELETED event, or, when the removal raced the
    // status write, the last event before it that carries it).
    const mine = events.filter((e) => e[1].metadata?.uid === pod.metadata!.uid);
    const term = mine
      .map((e) => e[1].status?.containerStatuses?.[0]?.state?.terminated)
      .filter(Boolean)
      .at(-1);
    assert.ok(term, `the container's end was reported: ${JSON.stringify(events.map((e) => [e[0], e[1].metadata?.name, e[1].status?.containerStatuses?.[0]?.state]))}`);
    if (name === 'obeys') {
      assert.ok(ms < 10_000, `ended at SIGTERM, in ${ms} ms`);
      assert.equal(term.exitCode, 0);
    } else {
      assert.ok(ms >= 2_000, `killed after the 2 s grace period, not before (${ms} ms)`);
      assert.equal(term.exitCode, 137);
    }
    const uid = pod.metadata!.uid!;
    const filters = JSON.stringify({ label: [`io.kubernetes.pod.uid=${uid}`] });
    assert.deepEqual(await docker.listContainers({ all: true, filters }), []);
    assert.deepEqual((await docker.listVolumes({ filters })).Volumes ?? [], []);
  }
  for (const name of ['obeys', 'ignores']) await c.batch.deleteNamespacedJob({ name, namespace: 'default', propagationPolicy: 'Background' });
});

test('activeDeadlineSeconds fails the Job DeadlineExceeded and deletes its pod', { skip }, async () => {
  await c.batch.createNamespacedJob({
    namespace: 'default',
    body: job('deadline', { image: busybox, command: ['sleep', '60'] }, { activeDeadlineSeconds: 1 }, { terminationGracePeriodSeconds: 1 }),
  });
  const j = await jobDone('deadline');
  const failed = j.status!.conditions!.find((x) => x.type === 'Failed')!;
  assert.deepEqual([failed.reason, failed.message], ['DeadlineExceeded', 'Job was active longer than specified deadline']);
  await until('its pod to go', async () => (await podsOf('deadline')).length === 0);
});

test('securityContext: dropped capabilities, no privilege escalation and the default seccomp profile reach the process; runAsNonRoot refuses a root image', { skip }, async () => {
  const status = ['sh', '-c', "grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status | tr -s '\\t ' ' '; id -u"];
  const hardened = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } };
  await c.batch.createNamespacedJob({ namespace: 'default', body: job('hardened', { image: busybox, command: status, securityContext: hardened }) });
  await c.batch.createNamespacedJob({ namespace: 'default', body: job('plain', { image: busybox, command: status }) });
  await c.batch.createNamespacedJob({
    namespace: 'default',
    body: job('nonroot-user', { image: busybox, command: status, securityContext: { runAsUser: 65534 } }, {}, { securityContext: { runAsNonRoot: true } }),
  });
  await c.batch.createNamespacedJob({ namespace: 'default', body: job('nonroot-image', { image: busybox, command: status }, {}, { securityContext: { runAsNonRoot: true } }) });
  const logOf = async (name: string) => {
    await jobDone(name);
    const [p] = await podsOf(name);
    return c.core.readNamespacedPodLog({ name: p!.metadata!.name!, namespace: 'default' });
  };
  assert.equal(await logOf('hardened'), 'CapEff: 0000000000000000\nNoNewPrivs: 1\nSeccomp: 2\n0\n');
  assert.match(await logOf('plain'), /^CapEff: (?!0{16})[0-9a-f]{16}\nNoNewPrivs: 0\nSeccomp: 0\n0\n$/, "Kubernetes' defaults: the runtime's capabilities, Unconfined");
  assert.match(await logOf('nonroot-user'), /\n65534\n$/);
  const w = await until('the root image to be refused', async () => {
    const waiting = (await podsOf('nonroot-image'))[0]?.status?.containerStatuses?.[0]?.state?.waiting;
    return waiting?.reason === 'CreateContainerConfigError' && waiting;
  });
  assert.match(w.message!, /^container has runAsNonRoot and image will run as root \(pod: "nonroot-image-[a-z0-9]+_default\(.+\)", container: main\)$/);
  const [info] = await docker
    .listContainers({ all: true, filters: JSON.stringify({ label: ['io.kubernetes.container.name=main', `io.kubernetes.pod.namespace=default`] }) })
    .then((l) => l.filter((x) => x.Labels['io.kubernetes.pod.name']?.startsWith('hardened-')));
  const inspect = await docker.getContainer(info!.Id).inspect();
  assert.deepEqual(inspect.HostConfig.CapDrop, ['ALL']);
  assert.deepEqual(inspect.HostConfig.SecurityOpt, ['no-new-privileges']);
  for (const name of ['hardened', 'plain', 'nonroot-user', 'nonroot-image']) await c.batch.deleteNamespacedJob({ name, namespace: 'default', propagationPolicy: 'Background' });
  await until('their pods to go', async () => (await Promise.all(['hardened', 'plain', 'nonroot-user', 'nonroot-image'].map(podsOf))).every((x) => x.length === 0));
});
