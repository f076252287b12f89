// The deployment material of infra/ against the Kubernetes API schemas and the
// code it deploys. No cluster is reachable here: each kustomization is
// rendered (./infra-kustomize.ts, the fields they use) and every object is
// validated against the OpenAPI schema of its kind by kubernetes-models (types,
// required fields, enums, formats) and, strictly like kubeconform -strict,
// against the field names of the official client's models
// (@kubernetes/client-node): a field no model has, a misspelt one, is an
// error. Then what a schema cannot know: every app has its Deployment, probes
// and scrape annotations point at routes and ports the apps serve, each
// Deployment has resource requests and a PodDisruptionBudget selecting it, the
// RBAC is what the kubernetes executor needs and no more, every SVC_* variable
// set is one the configuration knows and loads, and the Compose file and the
// Dockerfiles name apps that exist.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as k8sClient from '@kubernetes/client-node';
import * as yaml from 'js-yaml';
import client from 'prom-client';
import { describeConfig, parseConfig, parseMasterKeys } from '@svc/config';
import { startHealthServer } from '@svc/service';
import { applyJsonPatch, containersOf, render, type K8sObject } from './infra-kustomize.js';
import { root } from './stack.js';

const k8s = path.join(root, 'infra', 'kubernetes');
const overlays = fs.readdirSync(path.join(k8s, 'overlays')).sort();
const rendered = new Map<string, K8sObject[]>([
  ...overlays.map((o) => [`overlays/${o}`, render(path.join(k8s, 'overlays', o))] as const),
  ['base', render(path.join(k8s, 'base'))],
  ['secrets-example', render(path.join(k8s, 'secrets-example'))],
]);
const known = new Set(describeConfig().map((v) => v.variable));
const APPS = ['api-gateway', 'scheduler', 'dispatcher', 'maintenance'];
const GOOD_KEY = `k1:${Buffer.alloc(32, 7).toString('base64')}`;

/** YAML merge keys (`<<: *anchor`), which Compose resolves and js-yaml 5 leaves as a `<<` key. */
function mergeKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(mergeKeys);
  if (v === null || typeof v !== 'object') return v;
  const { '<<': merged, ...own } = v as Record<string, unknown>;
  const bases = (merged === undefined ? [] : Array.isArray(merged) ? merged : [merged]).map(mergeKeys) as Record<string, unknown>[];
  return Object.assign({}, ...bases.reverse(), Object.fromEntries(Object.entries(own).map(([k, x]) => [k, mergeKeys(x)])));
}

type AttributeModel = { getAttributeTypeMap(): { baseName: string; type: string }[] };
const clientModels = k8sClient as unknown as Record<string, AttributeModel | undefined>;

/**
 * The paths of `value`'s fields that the client model `type` (e.g.
 * `V1Deployment`, `Array<V1Container>`) does not have. Leaves (strings,
 * numbers, IntOrString, quantities) are kubernetes-models' to check.
 */
function unknownFields(value: unknown, type: string, at: string): string[] {
  if (value === null || typeof value !== 'object') return [];
  const list = /^Array<(.+)>$/.exec(type);
  if (list) return Array.isArray(value) ? value.flatMap((v, i) => unknownFields(v, list[1]!, `${at}[${i}]`)) : [];
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return Object.entries(value).flatMap(([k, v]) => unknownFields(v, map[1]!, `${at}.${k}`));
  const model = clientModels[type];
  if (!model?.getAttributeTypeMap || Array.isArray(value)) return [];
  const fields = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  return Object.entries(value).flatMap(([k, v]) => {
    const t = fields.get(k);
    return t === undefined ? [`${at ? `${at}.` : ''}${k}`] : unknownFields(v, t, `${at ? `${at}.` : ''}${k}`);
  });
}

async function validate(o: K8sObject): Promise<void> {
  const models = (await import(`kubernetes-models/${o.apiVersion}`)) as Record<string, new (x: unknown) => { validate(): void }>;
  const Model = models[o.kind];
  if (!Model) throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
  new Model(o).validate();
  // apps/v1 -> V1Deployment, rbac.authorization.k8s.io/v1 -> V1Role, v1 -> V1ConfigMap.
  const version = o.apiVersion.split('/').at(-1)!;
  const type = `${version[0]!.toUpperCase()}${version.slice(1)}${o.kind}`;
  if (!clientModels[type]?.getAttributeTypeMap) throw new Error(`no client model ${type} for ${o.apiVersion} ${o.kind}`);
  const unknown = unknownFields(o, type, '');
  if (unknown.length) throw new Error(`${o.kind}/${o.metadata?.name}: unknown field(s) ${unknown.join(', ')}`);
}

/** Keys sorted at every level: two renderings compare equal whatever their key order. */
function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortDeep((v as Record<string, unknown>)[k])]));
  return v;
}

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const noKustomize = kubectl.status === 0 && /Kustomize Version: v5/.test(kubectl.stdout) ? false : `no kubectl with Kustomize v5 on this machine (${(kubectl.error?.message ?? kubectl.stdout ?? '').trim().split('\n')[0]}): the renderer is not compared with Kustomize`;
if (noKustomize) process.stderr.write(`\n!! ${noKustomize}\n\n`);

test('the renderer prints what `kubectl kustomize` prints, for every kustomization', { skip: noKustomize }, () => {
  for (const [name, objects] of rendered) {
    const out = spawnSync('kubectl', ['kustomize', path.join(k8s, name)], { encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    const real = (yaml.loadAll(out.stdout) as K8sObject[]).filter(Boolean);
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
    assert.deepEqual(real.map(key).sort(), objects.map(key).sort(), name);
    for (const o of objects) assert.deepEqual(sortDeep(real.find((r) => key(r) === key(o))), sortDeep(o), `${name}: ${key(o)}`);
  }
});

test('there is a production and a staging overlay, and the base renders on its own', () => {
  assert.deepEqual(overlays, ['production', 'staging']);
  for (const [name, objects] of rendered) assert.ok(objects.length > 0, name);
});

test('every rendered object is valid against the Kubernetes schema of its kind', async () => {
  let n = 0;
  for (const [name, objects] of rendered) {
    for (const o of objects) {
      await assert.doesNotReject(validate(o), `${name}: ${o.kind}/${o.metadata?.name}`);
      n++;
    }
  }
  assert.ok(n > 30, `${n} objects`);
});

test('the validator refuses what a cluster would refuse', async () => {
  const gw = structuredClone(rendered.get('overlays/production')!.find((o) => o.kind === 'Deployment')!);
  applyJsonPatch(gw, [{ op: 'replace', path: '/spec/template/spec/containers/0/ports/0/containerPort', value: 'eighty' }]);
  await assert.rejects(validate(gw), /containerPort must be integer/);
  const pdb = structuredClone(rendered.get('base')!.find((o) => o.kind === 'PodDisruptionBudget')!);
  delete (pdb as { spec?: unknown }).spec;
  (pdb as { metadata: unknown }).metadata = 'svc';
  await assert.rejects(validate(pdb));
});

test('the validator is strict: a misspelt or unknown field is refused, wherever it is', async () => {
  const objects = rendered.get('overlays/production')!;
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'svc-scheduler')!;
  await assert.doesNotReject(validate(deployment));
  const misspelt = structuredClone(deployment);
  const [c] = containersOf(misspelt);
  c!.readinesProbe = c!.readinessProbe;
  delete c!.readinessProbe;
  await assert.rejects(validate(misspelt), /unknown field\(s\) spec\.template\.spec\.containers\[0\]\.readinesProbe$/);
  const deep = structuredClone(deployment);
  (containersOf(deep)[0]!.livenessProbe as { httpGet: Record<string, unknown> }).httpGet.paht = '/healthz';
  await assert.rejects(validate(deep), /containers\[0\]\.livenessProbe\.httpGet\.paht/);
  const top = structuredClone(objects.find((o) => o.kind === 'PodDisruptionBudget')!) as K8sObject & { spec: Record<string, unknown> };
  top.spec.maxUnavaliable = 1;
  await assert.rejects(validate(top), /spec\.maxUnavaliable/);
  const map = structuredClone(objects.find((o) => o.kind === 'Role')!) as K8sObject & { rules: Record<string, unknown>[] };
  map.rules[0]!.verb = ['get'];
  await assert.rejects(validate(map), /rules\[0\]\.verb$/);
});

for (const overlay of overlays) {
  const objects = rendered.get(`overlays/${overlay}`)!;
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const byName = (kind: string, name: string) => of(kind).find((o) => o.metadata.name === name)!;
  const deployments = of('Deployment');
  const podOf = (d: K8sObject) => (d.spec as { template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: Record<string, unknown> } }).template;

  test(`${overlay}: one Deployment per app, each with requests, a PodDisruptionBudget, a namespace and its pushed image`, () => {
    assert.deepEqual(deployments.map((d) => d.metadata.name).sort(), APPS.map((a) => `svc-${a}`).sort());
    const ns = objects[0]!.metadata.namespace;
    assert.ok(ns);
    for (const o of objects) assert.equal(o.metadata.namespace, ns, `${o.kind}/${o.metadata.name}`);
    for (const d of deployments) {
      const [c] = containersOf(d);
      const req = (c!.resources as { requests?: { cpu?: string; memory?: string } }).requests;
      assert.ok(req?.cpu && req.memory, `${d.metadata.name}: requests`);
      assert.match(c!.image, /^registry\.example\.com\/svc\/[a-z-]+:[\w.-]+$/, d.metadata.name);
      assert.equal(c!.image.split('/').at(-1)!.split(':')[0], d.metadata.name.replace(/^svc-/, ''));
      const labels = podOf(d).metadata.labels;
      const pdbs = of('PodDisruptionBudget').filter((p) => Object.entries((p.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels).every(([k, v]) => labels[k] === v));
      assert.equal(pdbs.length, 1, `${d.metadata.name}: PodDisruptionBudget`);
      assert.deepEqual((d.spec as { selector: { matchLabels: object } }).selector.matchLabels, (pdbs[0]!.spec as { selector: { matchLabels: object } }).selector.matchLabels);
      const sc = c!.securityContext as { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean };
      assert.deepEqual([sc.readOnlyRootFilesystem, sc.allowPrivilegeEscalation, (podOf(d).spec.securityContext as { runAsNonRoot: boolean }).runAsNonRoot], [true, false, true]);
      const mounts = (c!.volumeMounts as { mountPath: string }[]).map((m) => m.mountPath);
      assert.ok(mounts.includes('/tmp'), `${d.metadata.name}: a writable /tmp on a read-only root`);
    }
  });

  test(`${overlay}: every app is probed on /readyz and /healthz and scraped on /metrics, at the port it serves them on`, async () => {
    const gw = byName('Deployment', 'svc-api-gateway');
    const svc = byName('Service', 'svc-api-gateway');
    assert.deepEqual((svc.spec as { selector: object }).selector, (gw.spec as { selector: { matchLabels: object } }).selector.matchLabels);
    assert.equal((svc.spec as { ports: { targetPort: string }[] }).ports[0]!.targetPort, 'http');
    // The routes the health server of the scheduler, dispatcher and maintenance really answers (not 404).
    const server = await startHealthServer({ port: 0, host: '127.0.0.1', checks: {}, registry: new client.Registry() });
    const served = async (route: string) => (await fetch(`http://127.0.0.1:${server.port}${route}`)).status !== 404;
    try {
      assert.equal(await served('/nothing-here'), false);
      for (const d of deployments) {
        const [c] = containersOf(d);
        const env = Object.fromEntries(((c!.env ?? []) as { name: string; value?: string }[]).map((e) => [e.name, e.value]));
        // The port the app listens on, by its own configuration.
        const config = parseConfig({ ...env, SVC_MASTER_KEYS: GOOD_KEY }, { cwd: root });
        const isGateway = d.metadata.name === 'svc-api-gateway';
        const port = isGateway ? config.port : config.healthPort;
        assert.ok(port, `${d.metadata.name}: ${isGateway ? 'SVC_PORT' : 'SVC_HEALTH_PORT'} set`);
        const ports = (c!.ports ?? []) as { name: string; containerPort: number }[];
        const probe = (p: string) => (c![p] as { httpGet: { path: string; port: string | number } } | undefined)?.httpGet;
        assert.deepEqual(['readinessProbe', 'livenessProbe', 'startupProbe'].map((p) => probe(p)?.path), ['/readyz', '/healthz', '/healthz'], d.metadata.name);
        for (const p of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
          const h = probe(p)!;
          const number = typeof h.port === 'number' ? h.port : ports.find((x) => x.name === h.port)?.containerPort;
          assert.equal(number, port, `${d.metadata.name} ${p}: port ${h.port}`);
          if (!isGateway) assert.ok(await served(h.path), `${d.metadata.name} ${p}: ${h.path} is served`);
        }
        assert.ok((c!.readinessProbe as { timeoutSeconds: number }).timeoutSeconds > 5, `${d.metadata.name}: /readyz answers within its 5 s budget`);
        const annotations = podOf(d).metadata.annotations ?? {};
        assert.equal(annotations['prometheus.io/scrape'], 'true', d.metadata.name);
        assert.equal(annotations['prometheus.io/port'], String(port), d.metadata.name);
        assert.equal(annotations['prometheus.io/path'], '/metrics', d.metadata.name);
        if (!isGateway) assert.ok(await served('/metrics'));
      }
    } finally {
      await server.close();
    }
  });

  test(`${overlay}: the dispatcher's service account may run task Jobs in its own namespace, and nothing else`, () => {
    const d = byName('Deployment', 'svc-dispatcher');
    const spec = podOf(d).spec as { serviceAccountName: string; terminationGracePeriodSeconds: number };
    const sa = byName('ServiceAccount', spec.serviceAccountName);
    assert.ok(sa);
    assert.equal(of('ClusterRole').length + of('ClusterRoleBinding').length, 0);
    const bindings = of('RoleBinding').filter((b) => (b.subjects as { kind: string; name: string; namespace: string }[]).some((s) => s.kind === 'ServiceAccount' && s.name === sa.metadata.name && s.namespace === sa.metadata.namespace));
    assert.equal(bindings.length, 1);
    const role = byName('Role', (bindings[0]!.roleRef as { name: string }).name);
    const rules = (role.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]).flatMap((r) => r.resources.map((res) => `${r.apiGroups.join()}/${res}: ${[...r.verbs].sort().join(' ')}`));
    assert.deepEqual(rules.sort(), ['/pods/log: get', '/pods: delete get list watch', 'batch/jobs: create delete get list watch']);
    const env = containersOf(d)[0]!.env as { name: string; value?: string; valueFrom?: { fieldRef: { fieldPath: string } } }[];
    assert.equal(env.find((e) => e.name === 'SVC_K8S_NAMESPACE')!.valueFrom!.fieldRef.fieldPath, 'metadata.namespace', 'Jobs go where the Role grants');
    assert.match(env.find((e) => e.name === 'SVC_RUNNER_IMAGE')!.value!, /^registry\.example\.com\/svc\/runner:/);
    assert.equal(env.find((e) => e.name === 'SVC_RUNNER_URL')!.value, `http://${byName('Service', 'svc-api-gateway').metadata.name}`);
    const killDelayS = Number(describeConfig().find((v) => v.variable === 'SVC_KILL_DELAY_MS')!.default) / 1000;
    assert.ok(spec.terminationGracePeriodSeconds > killDelayS, 'SIGTERM, then the tasks get SIGKILL after the kill delay, before Kubernetes kills the pod');
    for (const other of deployments.filter((x) => x !== d)) assert.equal(podOf(other).spec.automountServiceAccountToken, false, other.metadata.name);
  });

  test(`${overlay}: a migration Job of the same release runs before the rollout, with the database URL only`, () => {
    const job = byName('Job', 'svc-migrate');
    const [c] = containersOf(job);
    assert.deepEqual(c!.command, ['node', '/app/migrate.mjs']);
    assert.equal(c!.image, containersOf(byName('Deployment', 'svc-maintenance'))[0]!.image, 'the migrations of the release being rolled out');
    assert.deepEqual(c!.envFrom, [{ secretRef: { name: 'svc-database' } }]);
    assert.equal((job.metadata.labels as Record<string, string>)['app.kubernetes.io/component'], 'migration');
    assert.ok(objects.filter((o) => (o.metadata.labels as Record<string, string> | undefined)?.['app.kubernetes.io/component'] === 'migration').every((o) => o.kind === 'Job'), 'the selector of the first apply picks the Job alone');
  });

  test(`${overlay}: every SVC_ variable set is known, and the configuration of every container loads`, () => {
    const secrets = [...rendered.get('secrets-example')!, ...of('Secret')].filter((o) => o.kind === 'Secret');
    const secretData = (name: string) => (secrets.find((s) => s.metadata.name === name)!.stringData as Record<string, string>);
    const config = byName('ConfigMap', 'svc-config').data as Record<string, string>;
    const dockerfileEnv = Object.fromEntries([...fs.readFileSync(path.join(root, 'infra/Dockerfile'), 'utf8').matchAll(/\b(SVC_[A-Z0-9_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/\\$/, '')]));
    for (const o of [...deployments, byName('Job', 'svc-migrate')]) {
      for (const c of containersOf(o)) {
        const env: Record<string, string> = { ...dockerfileEnv, SVC_APP: '' };
        for (const from of (c.envFrom ?? []) as { configMapRef?: { name: string }; secretRef?: { name: string } }[]) {
          if (from.configMapRef) Object.assign(env, byName('ConfigMap', from.configMapRef.name).data);
          if (from.secretRef) Object.assign(env, secretData(from.secretRef.name));
        }
        for (const e of (c.env ?? []) as { name: string; value?: string }[]) env[e.name] = e.value ?? overlay;
        const svcVars = Object.keys(env).filter((k) => k.startsWith('SVC_') && k !== 'SVC_APP');
        assert.deepEqual(svcVars.filter((v) => !known.has(v)), [], `${o.metadata.name}: unknown variables`);
        if (o.kind === 'Job') continue;
        assert.ok(env.SVC_DATABASE_URL && env.SVC_MASTER_KEYS && env.SVC_STORAGE_URL, o.metadata.name);
        assert.throws(() => parseMasterKeys(env.SVC_MASTER_KEYS!), /expected 32/, 'the placeholder key is refused');
        const parsed = parseConfig({ ...env, SVC_MASTER_KEYS: GOOD_KEY }, { cwd: root });
        assert.equal(parsed.host, '0.0.0.0', `${o.metadata.name}: listens beyond loopback`);
      }
    }
    assert.ok(Object.keys(config).every((k) => known.has(k)));
  });
}

test('staging carries the example Secrets; production carries none', () => {
  assert.deepEqual(rendered.get('overlays/production')!.filter((o) => o.kind === 'Secret'), []);
  assert.deepEqual(rendered.get('overlays/staging')!.filter((o) => o.kind === 'Secret').map((s) => s.metadata.name).sort(), ['svc-database', 'svc-master-keys', 'svc-storage']);
});

test('the Compose file runs PostgreSQL, an S3 store, the migrations first, every app and two dispatchers', () => {
  const compose = mergeKeys(yaml.load(fs.readFileSync(path.join(root, 'infra/compose.yaml'), 'utf8'))) as { services: Record<string, Record<string, any>> };
  const s = compose.services;
  for (const name of ['postgres', 's3', 'migrate', ...APPS]) assert.ok(s[name], name);
  assert.equal(s.dispatcher!.deploy.replicas, 2);
  for (const app of [...APPS, 'migrate']) {
    const b = s[app]!.build;
    assert.equal(b.dockerfile, 'infra/Dockerfile', app);
    const appArg = b.args.APP as string;
    assert.ok(fs.existsSync(path.join(root, 'apps', appArg, 'package.json')), app);
    if (app !== 'migrate') assert.equal(appArg, app);
    const env = s[app]!.environment as Record<string, string>;
    assert.ok(env.SVC_DATABASE_URL && env.SVC_MASTER_KEYS && env.SVC_STORAGE_URL, app);
    assert.deepEqual(Object.keys(env).filter((k) => k.startsWith('SVC_') && !known.has(k)), [], app);
  }
  for (const app of APPS) assert.equal(s[app]!.depends_on.migrate.condition, 'service_completed_successfully', app);
  // Each app's health is its /readyz, on the port its configuration gives (infra/healthcheck.mjs).
  for (const app of APPS) assert.deepEqual(s[app]!.healthcheck.test, ['CMD', 'node', '/app/healthcheck.mjs', 'readyz'], app);
  assert.match(fs.readFileSync(path.join(root, 'infra/Dockerfile'), 'utf8'), /^\s+SVC_HEALTH_PORT=9464 \\$/m);
  assert.deepEqual(s.maintenance!.ports, ['9464:9464']);
  assert.deepEqual(s.migrate!.command ?? s.migrate!.entrypoint, ['node', '/app/migrate.mjs']);
  assert.match(s.s3!.image, /minio/);
  assert.match(s.postgres!.image, /^postgres:/);
});

test('the Dockerfiles build one app each from a named supported base, as a non-root user, with a health check', () => {
  const df = fs.readFileSync(path.join(root, 'infra/Dockerfile'), 'utf8');
  const runner = fs.readFileSync(path.join(root, 'infra/runner.Dockerfile'), 'utf8');
  for (const f of [df, runner]) assert.match(f, /^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
  assert.match(df, /sh infra\/deploy-app\.sh "\$\{APP\}" "\/out\/\$\{APP\}"/);
  assert.match(fs.readFileSync(path.join(root, 'infra/deploy-app.sh'), 'utf8'), /pnpm --filter "\.\/apps\/\$\{app\}" deploy --prod/);
  assert.match(df, /^USER node$/m);
  assert.match(df, /^HEALTHCHECK .*\/app\/healthcheck\.mjs/m);
  assert.match(runner, /^FROM scratch AS runner$/m);
  assert.match(runner, /^COPY --from=bundled \/out\/runner \/\.svc-runner$/m);
  const ignore = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
  for (const p of ['**/node_modules', '**/dist', '.svc-data', '.test-data', '.git', '.tools']) assert.ok(ignore.includes(p), p);
});
