// The stand-in's API as the real @kubernetes/client-node sees it, without a
// Docker engine (pods stay Pending, unschedulable): stored Jobs with the API
// server's defaults, Status errors (401, 404, 409, 422), label and field
// selectors, watch streams (initial ADDED, resume from a resourceVersion,
// 410 Expired), client-node's informer, and the three propagation policies of
// a Job deletion.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { KubeConfig, ListWatch, Watch, BatchV1Api, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { startStandin, type Standin } from '../src/index.js';
import { apiError, clients, job, plain, until } from './support.js';

let s: Standin;
let c: ReturnType<typeof clients>;
const requests: { method: string; path: string; query: URLSearchParams; status: number }[] = [];

before(async () => {
  s = await startStandin({ namespaces: ['default', 'jobs'], historySize: 50, onRequest: (r) => requests.push(r) });
  c = clients(s);
});
after(() => s.close());

test('a created Job is stored with the API server defaults and its pod is created by the Job controller', async () => {
  const created = await c.batch.createNamespacedJob({ namespace: 'default', body: job('defaults', { image: 'busybox', command: ['true'] }) });
  const uid = created.metadata!.uid!;
  assert.match(uid, /^[0-9a-f-]{36}$/);
  assert.ok(Number(created.metadata!.resourceVersion) > 0);
  assert.ok(created.metadata!.creationTimestamp instanceof Date);
  assert.deepEqual(plain(created.spec!.selector), { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
  assert.equal(created.spec!.completions, 1);
  assert.equal(created.spec!.parallelism, 1);
  assert.equal(created.spec!.backoffLimit, 0, 'as sent');
  assert.deepEqual(plain(created.metadata!.labels), { app: 'test' });
  assert.deepEqual(plain(created.spec!.template.metadata!.labels), {
    app: 'test',
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': 'defaults',
    'controller-uid': uid,
    'job-name': 'defaults',
  });
  const tpl = created.spec!.template.spec!;
  assert.equal(tpl.containers[0]!.imagePullPolicy, 'Always', 'no tag: Always');
  assert.equal(tpl.terminationGracePeriodSeconds, 30);
  assert.equal(tpl.containers[0]!.terminationMessagePath, '/dev/termination-log');

  const pods = await until('the pod', async () =>
    (await c.core.listNamespacedPod({ namespace: 'default', labelSelector: 'job-name=defaults' })).items.filter((p) => p.status?.conditions?.length),
  );
  assert.equal(pods.length, 1);
  const pod = pods[0]!;
  assert.match(pod.metadata!.name!, /^defaults-[a-z0-9]{5}$/);
  assert.deepEqual(plain(pod.metadata!.ownerReferences), [{ apiVersion: 'batch/v1', kind: 'Job', name: 'defaults', uid, controller: true, blockOwnerDeletion: true }]);
  assert.equal(pod.spec!.serviceAccountName, 'default');
  assert.equal(pod.status!.phase, 'Pending');
  assert.equal(pod.status!.conditions![0]!.reason, 'Unschedulable', 'no node without Docker');
  const read = await c.batch.readNamespacedJob({ name: 'defaults', namespace: 'default' });
  assert.equal(read.status!.active, 1);
  assert.ok(read.status!.startTime instanceof Date);
});

test('API errors are Status bodies: 404 NotFound, 409 AlreadyExists, 422 Invalid, 404 for a missing namespace', async () => {
  const nf = await apiError(c.batch.readNamespacedJob({ name: 'nope', namespace: 'default' }));
  assert.equal(nf.code, 404);
  assert.deepEqual(nf.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'jobs.batch "nope" not found',
    reason: 'NotFound',
    details: { name: 'nope', group: 'batch', kind: 'jobs' },
    code: 404,
  });
  const podNf = await apiError(c.core.deleteNamespacedPod({ name: 'nope', namespace: 'default' }));
  assert.equal(podNf.body.message, 'pods "nope" not found');

  await c.batch.createNamespacedJob({ namespace: 'default', body: job('twice', { image: 'busybox:1' }) });
  const dup = await apiError(c.batch.createNamespacedJob({ namespace: 'default', body: job('twice', { image: 'busybox:1' }) }));
  assert.equal(dup.code, 409);
  assert.equal(dup.body.reason, 'AlreadyExists');
  assert.equal(dup.body.message, 'jobs.batch "twice" already exists');

  const bad = await apiError(c.batch.createNamespacedJob({ namespace: 'default', body: job('Bad_Name', { image: 'busybox:1' }) }));
  assert.equal(bad.code, 422);
  assert.equal(bad.body.reason, 'Invalid');
  assert.match(bad.body.message, /^Job\.batch "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  assert.deepEqual(
    bad.body.details.causes.map((x: any) => [x.reason, x.field]),
    [['FieldValueInvalid', 'metadata.name']],
  );

  const tol = await apiError(
    c.batch.createNamespacedJob({
      namespace: 'default',
      body: job('tol', { image: 'busybox:1' }, {}, { tolerations: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule', tolerationSeconds: 5 }] }),
    }),
  );
  assert.equal(tol.code, 422);
  assert.match(tol.body.message, /spec\.template\.spec\.tolerations\[0\]\.effect: Invalid value: "NoSchedule": effect must be 'NoExecute' when `tolerationSeconds` is set/);

  const rp = await apiError(c.batch.createNamespacedJob({ namespace: 'default', body: job('rp', { image: 'busybox:1' }, {}, { restartPolicy: 'Always' }) }));
  assert.match(rp.body.message, /spec\.template\.spec\.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"/);

  const limits = await apiError(
    c.batch.createNamespacedJob({ namespace: 'default', body: job('res', { image: 'busybox:1', resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }) }),
  );
  assert.match(limits.body.message, /must be less than or equal to cpu limit of 1/);

  const ns = await apiError(c.batch.createNamespacedJob({ namespace: 'elsewhere', body: job('x', { image: 'busybox:1' }) }));
  assert.equal(ns.code, 404);
  assert.equal(ns.body.message, 'namespaces "elsewhere" not found');
});

test('a request without the bearer token is 401 Unauthorized', async () => {
  const kc = new KubeConfig();
  kc.loadFromOptions({ ...s.kubeConfigOptions, users: [{ name: 'standin', token: 'wrong' }] });
  const e = await apiError(kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: 'default' }));
  assert.equal(e.code, 401);
  // client-node drops a 401's body; the API server's is a Status.
  const raw = await fetch(`${s.url}/apis/batch/v1/namespaces/default/jobs`, { headers: { authorization: 'Bearer wrong' } });
  assert.equal(raw.status, 401);
  assert.deepEqual(await raw.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
});

test('lists filter by label and field selectors and carry the resourceVersion', async () => {
  for (const [name, tier] of [
    ['sel-a', 'a'],
    ['sel-b', 'b'],
  ] as const) {
    const body = job(name, { image: 'busybox:1' });
    body.metadata!.labels = { sel: 'yes', tier };
    await c.batch.createNamespacedJob({ namespace: 'jobs', body });
  }
  const names = async (labelSelector?: string, fieldSelector?: string) =>
    (await c.batch.listNamespacedJob({ namespace: 'jobs', labelSelector, fieldSelector })).items.map((j) => j.metadata!.name).sort();
  assert.deepEqual(await names('sel=yes'), ['sel-a', 'sel-b']);
  assert.deepEqual(await names('sel=yes,tier!=a'), ['sel-b']);
  assert.deepEqual(await names('tier in (a, c)'), ['sel-a']);
  assert.deepEqual(await names('tier notin (a)'), ['sel-b']);
  assert.deepEqual(await names('!tier'), []);
  assert.deepEqual(await names(undefined, 'metadata.name=sel-b'), ['sel-b']);
  const list = await c.batch.listNamespacedJob({ namespace: 'jobs' });
  assert.ok(Number(list.metadata!.resourceVersion) >= Number(list.items.at(-1)!.metadata!.resourceVersion));
  const e = await apiError(c.batch.listNamespacedJob({ namespace: 'jobs', fieldSelector: 'spec.foo=1' }));
  assert.equal(e.code, 400);
});

/** Collects a watch's events until `stop` holds. */
function collect(kc: KubeConfig, path: string, query: Record<string, string | number | boolean | undefined>, stop: (events: [string, any][]) => boolean): Promise<[string, any][]> {
  return new Promise((resolve, reject) => {
    const events: [string, any][] = [];
    let ctl: AbortController | undefined;
    let ended = false;
    new Watch(kc)
      .watch(
        path,
        query,
        (type, obj) => {
          events.push([type, obj]);
          if (!ended && stop(events)) {
            ended = true;
            ctl?.abort();
            resolve(events);
          }
        },
        (err) => {
          if (!ended) {
            ended = true;
            if (err && (err as Error).name !== 'AbortError') reject(err);
            else resolve(events);
          }
        },
      )
      .then((c) => {
        ctl = c;
        if (ended) c.abort();
      }, reject);
  });
}

test('a watch starts with the current objects as ADDED, then streams MODIFIED and DELETED', async () => {
  await c.batch.createNamespacedJob({ namespace: 'jobs', body: { ...job('watched', { image: 'busybox:1' }), metadata: { name: 'watched', labels: { w: '1' } } } });
  const events = collect(c.kc, '/apis/batch/v1/namespaces/jobs/jobs', { labelSelector: 'w=1' }, (ev) => ev.some(([t]) => t === 'DELETED'));
  await until('the watch to see the job', async () => requests.some((r) => r.query.get('watch') === 'true' && r.query.get('labelSelector') === 'w=1'));
  await c.batch.deleteNamespacedJob({ name: 'watched', namespace: 'jobs', propagationPolicy: 'Background' });
  const got = await events;
  assert.equal(got[0]![0], 'ADDED');
  assert.equal(got[0]![1].kind, 'Job', 'watch objects carry kind');
  assert.equal(got[0]![1].metadata.name, 'watched');
  assert.equal(got.at(-1)![0], 'DELETED');
  const rvs = got.map(([, o]) => Number(o.metadata.resourceVersion));
  assert.deepEqual(
    rvs,
    [...rvs].sort((a, b) => a - b),
    'resourceVersions increase',
  );
});

test('a watch from a resourceVersion replays the changes after it; one older than the history gets 410 Expired', async () => {
  const created = await c.batch.createNamespacedJob({ namespace: 'jobs', body: { ...job('resume', { image: 'busybox:1' }), metadata: { name: 'resume', labels: { r: '1' } } } });
  const rv = created.metadata!.resourceVersion!;
  await c.batch.deleteNamespacedJob({ name: 'resume', namespace: 'jobs', propagationPolicy: 'Background' });
  const replayed = await collect(c.kc, '/apis/batch/v1/namespaces/jobs/jobs', { labelSelector: 'r=1', resourceVersion: rv }, (ev) => ev.some(([t]) => t === 'DELETED'));
  assert.ok(replayed.every(([, o]) => Number(o.metadata.resourceVersion) > Number(rv)));
  assert.equal(replayed.at(-1)![0], 'DELETED');

  // historySize 50: a burst of changes pushes resourceVersion 1 out of it.
  for (let i = 0; i < 30; i++) await c.batch.createNamespacedJob({ namespace: 'jobs', body: job(`burst-${i}`, { image: 'busybox:1' }) });
  const expired = await collect(c.kc, '/apis/batch/v1/namespaces/jobs/jobs', { resourceVersion: '1' }, (ev) => ev.length > 0);
  assert.equal(expired[0]![0], 'ERROR');
  assert.equal(expired[0]![1].code, 410);
  assert.equal(expired[0]![1].reason, 'Expired');
});

test("client-node's informer (ListWatch) follows Jobs through list and watch", async () => {
  const seen: string[] = [];
  const batch = c.batch;
  const informer = new ListWatch<V1Job>(
    '/apis/batch/v1/namespaces/default/jobs',
    new Watch(c.kc),
    () => batch.listNamespacedJob({ namespace: 'default', labelSelector: 'inf=1' }),
    false,
    'inf=1',
  );
  informer.on('add', (j) => seen.push(`add ${j.metadata!.name}`));
  informer.on('delete', (j) => seen.push(`delete ${j.metadata!.name}`));
  await informer.start();
  const body = job('informed', { image: 'busybox:1' });
  body.metadata!.labels = { inf: '1' };
  await c.batch.createNamespacedJob({ namespace: 'default', body });
  await until('add', () => informer.get('informed', 'default'));
  await c.batch.deleteNamespacedJob({ name: 'informed', namespace: 'default', propagationPolicy: 'Background' });
  await until('delete', () => seen.includes('delete informed'));
  await informer.stop();
  assert.deepEqual(seen, ['add informed', 'delete informed']);
});

test('deleting a Job: Orphan (the batch/v1 default, with its warning) keeps the pods, Background and Foreground remove them', async () => {
  const podsOf = async (name: string) => (await c.core.listNamespacedPod({ namespace: 'jobs', labelSelector: `job-name=${name}` })).items as V1Pod[];
  for (const name of ['orphan', 'background', 'foreground']) {
    await c.batch.createNamespacedJob({ namespace: 'jobs', body: job(name, { image: 'busybox:1' }) });
    await until(`the pod of ${name}`, async () => (await podsOf(name)).length === 1);
  }
  const before = requests.length;
  await c.batch.deleteNamespacedJob({ name: 'orphan', namespace: 'jobs' });
  assert.equal(
    requests
      .slice(before)
      .find((r) => r.method === 'DELETE')
      ?.query.get('propagationPolicy'),
    null,
  );
  const orphaned = await podsOf('orphan');
  assert.equal(orphaned.length, 1, 'the pod stays');
  assert.equal(orphaned[0]!.metadata!.ownerReferences, undefined, 'without its owner');

  await c.batch.deleteNamespacedJob({ name: 'background', namespace: 'jobs', propagationPolicy: 'Background' });
  await until('the background pod to go', async () => (await podsOf('background')).length === 0);

  const fg = await c.batch.deleteNamespacedJob({ name: 'foreground', namespace: 'jobs', propagationPolicy: 'Foreground', gracePeriodSeconds: 10 });
  assert.ok(fg, 'answered');
  await until('the foreground job to go', async () => (await c.batch.listNamespacedJob({ namespace: 'jobs', fieldSelector: 'metadata.name=foreground' })).items.length === 0);
  assert.equal((await podsOf('foreground')).length, 0);
});
