// A small Kustomize renderer for the tests of infra/kubernetes, so that they
// run where no kubectl with Kustomize v5 is installed (Debian's kubectl 1.20
// embeds one too old for `replicas`, inline `patches` and components; where a
// kubectl with Kustomize v5 is present, infra-manifests.test.ts checks that
// both print the same objects). It implements exactly the fields the
// kustomizations there use, with Kustomize's meaning and order (resources,
// then components, then generators, then transformers; the hash suffixes
// last, over the final content), and refuses any other field, so a
// kustomization cannot use a feature these tests do not render:
//
//   resources          files (multi-document YAML) and directories with a kustomization.yaml
//   components         directories whose kustomization.yaml is a `kind: Component`: its resources are added,
//                      and its generators and transformers act on everything the including kustomization holds
//   configMapGenerator name, envs (KEY=VALUE files, # comments), literals, behavior (create, merge, replace),
//                      options.labels; the name gets Kustomize's content hash suffix, and every pod template's
//                      reference to it (envFrom, env, volumes, projected sources) follows
//   namespace          set on every namespaced object, and on RoleBinding subjects named "default" (v5's defaultOnly)
//   images             name → newName / newTag on containers and initContainers
//   replicas           name → count on Deployments
//   patches            RFC 6902 JSON patches (inline `patch`) on a target { kind, name }
//   labels             pairs on every object's metadata.labels, and with includeTemplates on the pod
//                      templates of workloads; includeSelectors must be false (selectors are immutable)
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';

export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; [k: string]: unknown }; [k: string]: unknown };

const KNOWN = new Set(['apiVersion', 'kind', 'resources', 'components', 'configMapGenerator', 'namespace', 'images', 'replicas', 'patches', 'labels']);
/** Marks a generated ConfigMap until its hash suffix is computed (removed from the output, as Kustomize's own marker is). */
const NEEDS_HASH = 'internal.svc.test/needs-hash-suffix';
/** Kinds whose spec.template is a pod template (Kustomize's fieldspecs for includeTemplates). */
const TEMPLATED = new Set(['Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'Job', 'ReplicationController']);
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PersistentVolume', 'StorageClass', 'PriorityClass']);

interface Kustomization {
  kind?: string;
  resources?: string[];
  components?: string[];
  configMapGenerator?: {
    name: string;
    behavior?: 'create' | 'merge' | 'replace';
    envs?: string[];
    literals?: string[];
    options?: { labels?: Record<string, string> };
  }[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string }[];
  replicas?: { name: string; count: number }[];
  patches?: { target: { kind: string; name: string }; patch: string }[];
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
}

/** The objects `kubectl kustomize dir` prints, in resource order. */
export function render(dir: string): K8sObject[] {
  const objects = build(dir, 'Kustomization', []);
  for (const o of objects) {
    const annotations = o.metadata.annotations as Record<string, string> | undefined;
    if (!annotations?.[NEEDS_HASH]) continue;
    delete annotations[NEEDS_HASH];
    if (!Object.keys(annotations).length) delete o.metadata.annotations;
    const before = o.metadata.name;
    o.metadata.name = `${before}-${configMapHash(o)}`;
    for (const w of objects.filter((x) => x.metadata.namespace === o.metadata.namespace)) for (const ref of configMapRefs(w)) if (ref.name === before) ref.name = o.metadata.name;
  }
  return objects;
}

/**
 * Kustomize's hash suffix of a ConfigMap (api/hasher): the SHA-256 of Go's JSON encoding (sorted keys, HTML
 * characters escaped) of its kind, an empty name (v5 hashes the generated object before it has one) and its
 * data, the first 10 hex digits with 0, 1, 3, a and e replaced so that the suffix cannot read as a number or a
 * word of hex. Checked against kubectl kustomize (Kustomize v5.5) where one is installed.
 */
export function configMapHash(o: K8sObject): string {
  const data = (o.data as Record<string, string> | undefined) ?? {};
  const sorted = Object.fromEntries(
    Object.keys(data)
      .sort()
      .map((k) => [k, data[k]]),
  );
  const json = JSON.stringify({ data: sorted, kind: 'ConfigMap', name: '' }).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const hex = crypto.createHash('sha256').update(json).digest('hex').slice(0, 10);
  return hex.replace(/[013ae]/g, (c) => ({ '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' })[c]!);
}

/** The ConfigMap references of a workload's pod template that Kustomize's name references follow. */
function configMapRefs(o: K8sObject): { name: string }[] {
  const spec = (o.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template?.spec;
  if (!spec) return [];
  type Env = { envFrom?: { configMapRef?: { name: string } }[]; env?: { valueFrom?: { configMapKeyRef?: { name: string } } }[] };
  type Volume = { configMap?: { name: string }; projected?: { sources?: { configMap?: { name: string } }[] } };
  const containers = [...((spec.initContainers as Env[] | undefined) ?? []), ...((spec.containers as Env[] | undefined) ?? [])];
  return [
    ...containers.flatMap((c) => (c.envFrom ?? []).flatMap((f) => (f.configMapRef ? [f.configMapRef] : []))),
    ...containers.flatMap((c) => (c.env ?? []).flatMap((e) => (e.valueFrom?.configMapKeyRef ? [e.valueFrom.configMapKeyRef] : []))),
    ...((spec.volumes as Volume[] | undefined) ?? []).flatMap((v) => [
      ...(v.configMap ? [v.configMap] : []),
      ...(v.projected?.sources ?? []).flatMap((x) => (x.configMap ? [x.configMap] : [])),
    ]),
  ];
}

/** KEY=VALUE lines of a Kustomize env file: blank lines and # comments skipped, the value as written. */
function envFile(file: string): [string, string][] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.trimStart().startsWith('#'))
    .map((l) => {
      const at = l.indexOf('=');
      if (at < 1) throw new Error(`${file}: not KEY=VALUE: ${l}`);
      return [l.slice(0, at).trim(), l.slice(at + 1)];
    });
}

/** A literal KEY=VALUE; Kustomize drops one pair of quotes around the value. */
function literal(l: string): [string, string] {
  const at = l.indexOf('=');
  if (at < 1) throw new Error(`literal not KEY=VALUE: ${l}`);
  const v = l.slice(at + 1);
  return [l.slice(0, at), /^(["']).*\1$/s.test(v) ? v.slice(1, -1) : v];
}

/** One kustomization (or, with `inherited`, a component acting on its includer's objects). */
function build(dir: string, expect: 'Kustomization' | 'Component', inherited: K8sObject[]): K8sObject[] {
  const file = path.join(dir, 'kustomization.yaml');
  const k = yaml.load(fs.readFileSync(file, 'utf8')) as Kustomization & Record<string, unknown>;
  const unknown = Object.keys(k).filter((key) => !KNOWN.has(key));
  if (unknown.length) throw new Error(`${file}: fields this renderer does not implement: ${unknown.join(', ')}`);
  if ((k.kind ?? 'Kustomization') !== expect) throw new Error(`${file}: a ${k.kind ?? 'Kustomization'} where a ${expect} is expected`);
  if (expect === 'Component' && k.apiVersion !== 'kustomize.config.k8s.io/v1alpha1') throw new Error(`${file}: a Component is kustomize.config.k8s.io/v1alpha1`);
  let objects: K8sObject[] = [...inherited];
  for (const r of k.resources ?? []) {
    const p = path.resolve(dir, r);
    if (fs.statSync(p).isDirectory()) objects.push(...build(p, 'Kustomization', []));
    else objects.push(...(yaml.loadAll(fs.readFileSync(p, 'utf8')) as K8sObject[]).filter(Boolean));
  }
  objects = structuredClone(objects);
  for (const c of k.components ?? []) objects = build(path.resolve(dir, c), 'Component', objects);
  for (const g of k.configMapGenerator ?? []) {
    const data = Object.fromEntries([...(g.envs ?? []).flatMap((e) => envFile(path.resolve(dir, e))), ...(g.literals ?? []).map(literal)]);
    const existing = objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.name === g.name && (o.metadata.annotations as Record<string, string> | undefined)?.[NEEDS_HASH]);
    const behavior = g.behavior ?? 'create';
    if (behavior === 'create') {
      if (existing.length) throw new Error(`${file}: configMapGenerator ${g.name} exists already (behavior merge or replace)`);
      objects.push({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: g.name, ...(g.options?.labels ? { labels: { ...g.options.labels } } : {}), annotations: { [NEEDS_HASH]: 'true' } },
        data,
      });
    } else {
      if (existing.length !== 1) throw new Error(`${file}: configMapGenerator ${g.name} (${behavior}): ${existing.length} generated ConfigMaps of that name`);
      const cm = existing[0]!;
      cm.data = behavior === 'merge' ? { ...(cm.data as Record<string, string>), ...data } : data;
      if (g.options?.labels) cm.metadata.labels = { ...(cm.metadata.labels as Record<string, string> | undefined), ...g.options.labels };
    }
  }
  for (const p of k.patches ?? []) {
    const targets = objects.filter((o) => o.kind === p.target.kind && o.metadata.name === p.target.name);
    if (targets.length !== 1) throw new Error(`${file}: patch target ${p.target.kind}/${p.target.name} matches ${targets.length} objects`);
    applyJsonPatch(targets[0]!, yaml.load(p.patch) as JsonPatchOp[]);
  }
  for (const r of k.replicas ?? []) {
    const targets = objects.filter((o) => o.kind === 'Deployment' && o.metadata.name === r.name);
    if (!targets.length) throw new Error(`${file}: replicas for ${r.name}: no such Deployment`);
    for (const t of targets) (t.spec as { replicas: number }).replicas = r.count;
  }
  for (const img of k.images ?? []) {
    if (!img.newName && !img.newTag) continue;
    for (const c of objects.flatMap(containersOf)) {
      const { name, tag } = splitImage(c.image);
      if (name !== img.name) continue;
      c.image = `${img.newName ?? name}${img.newTag ? `:${img.newTag}` : tag ? `:${tag}` : ''}`;
    }
  }
  for (const l of k.labels ?? []) {
    if (l.includeSelectors) throw new Error(`${file}: labels with includeSelectors: this renderer does not implement it`);
    for (const o of objects) {
      o.metadata.labels = { ...(o.metadata.labels as Record<string, string> | undefined), ...l.pairs };
      const template = (o.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined)?.template;
      if (l.includeTemplates && TEMPLATED.has(o.kind) && template) template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...l.pairs } };
    }
  }
  if (k.namespace) {
    for (const o of objects) {
      if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
      if (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') {
        // Kustomize v5's default (setRoleBindingSubjects: defaultOnly): only subjects named "default"; others keep theirs.
        for (const s of (o.subjects as { name: string; namespace?: string }[] | undefined) ?? []) if (s.name === 'default') s.namespace = k.namespace;
      }
    }
  }
  return objects;
}

/** Every container and init container of a Deployment's, Job's or Pod's pod template. */
export function containersOf(o: K8sObject): { name: string; image: string; [k: string]: unknown }[] {
  const spec = o.kind === 'Pod' ? (o.spec as PodSpec) : (o.spec as { template?: { spec?: PodSpec } } | undefined)?.template?.spec;
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
}
type PodSpec = { containers?: { name: string; image: string }[]; initContainers?: { name: string; image: string }[] };

function splitImage(ref: string): { name: string; tag?: string } {
  const at = ref.lastIndexOf(':');
  return at > ref.lastIndexOf('/') ? { name: ref.slice(0, at), tag: ref.slice(at + 1) } : { name: ref };
}

export type JsonPatchOp = { op: 'add' | 'replace' | 'remove' | 'test'; path: string; value?: unknown };

/** RFC 6902 add, replace, remove and test, in place; a path that does not resolve throws. */
export function applyJsonPatch(doc: unknown, ops: JsonPatchOp[]): void {
  for (const op of ops) {
    const keys = op.path
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop();
    if (last === undefined) throw new Error(`patch ${op.op} ${op.path}: the root cannot be patched`);
    let parent = doc as Record<string, unknown> | unknown[];
    for (const key of keys) {
      const next = (parent as Record<string, unknown>)[key];
      if (next === null || typeof next !== 'object') throw new Error(`patch ${op.op} ${op.path}: ${key} is missing`);
      parent = next as Record<string, unknown>;
    }
    const list = Array.isArray(parent) ? (parent as unknown[]) : null;
    const isArray = list !== null;
    const index = list ? (last === '-' ? list.length : Number(last)) : -1;
    const exists = list ? index < list.length : Object.hasOwn(parent, last);
    switch (op.op) {
      case 'add':
        if (isArray) (parent as unknown[]).splice(index, 0, op.value);
        else (parent as Record<string, unknown>)[last] = op.value;
        break;
      case 'replace':
        if (!exists) throw new Error(`patch replace ${op.path}: nothing there`);
        (parent as Record<string, unknown>)[last] = op.value;
        break;
      case 'remove':
        if (!exists) throw new Error(`patch remove ${op.path}: nothing there`);
        if (isArray) (parent as unknown[]).splice(index, 1);
        else delete (parent as Record<string, unknown>)[last];
        break;
      case 'test':
        if (JSON.stringify((parent as Record<string, unknown>)[last]) !== JSON.stringify(op.value)) throw new Error(`patch test ${op.path} failed`);
        break;
      default:
        throw new Error(`patch op ${String((op as { op: unknown }).op)} is not implemented`);
    }
  }
}
