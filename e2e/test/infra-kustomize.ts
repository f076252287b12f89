// A small Kustomize renderer for the tests of infra/kubernetes, so that they
// run where no kubectl with Kustomize v5 is installed (Debian's kubectl 1.20
// embeds one too old for `replicas` and inline `patches`; where a kubectl with
// Kustomize v5 is present, infra-manifests.test.ts checks that both print the
// same objects). It implements exactly the fields the kustomizations there
// use, with Kustomize's meaning, and refuses any other field, so a
// kustomization cannot use a feature these tests do not render:
//
//   resources   files (multi-document YAML) and directories with a kustomization.yaml
//   namespace   set on every namespaced object, and on RoleBinding subjects named "default" (v5's defaultOnly)
//   images      name → newName / newTag on containers and initContainers
//   replicas    name → count on Deployments
//   patches     RFC 6902 JSON patches (inline `patch`) on a target { kind, name }
//   labels      pairs on every object's metadata.labels, and with includeTemplates on the pod
//               templates of workloads; includeSelectors must be false (selectors are immutable)
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';

export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; [k: string]: unknown }; [k: string]: unknown };

const KNOWN = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'replicas', 'patches', 'labels']);
/** Kinds whose spec.template is a pod template (Kustomize's fieldspecs for includeTemplates). */
const TEMPLATED = new Set(['Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'Job', 'ReplicationController']);
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PersistentVolume', 'StorageClass', 'PriorityClass']);

interface Kustomization {
  resources?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string }[];
  replicas?: { name: string; count: number }[];
  patches?: { target: { kind: string; name: string }; patch: string }[];
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
}

/** The objects `kubectl kustomize dir` prints, in resource order. */
export function render(dir: string): K8sObject[] {
  const file = path.join(dir, 'kustomization.yaml');
  const k = yaml.load(fs.readFileSync(file, 'utf8')) as Kustomization & Record<string, unknown>;
  const unknown = Object.keys(k).filter((key) => !KNOWN.has(key));
  if (unknown.length) throw new Error(`${file}: fields this renderer does not implement: ${unknown.join(', ')}`);
  let objects: K8sObject[] = [];
  for (const r of k.resources ?? []) {
    const p = path.resolve(dir, r);
    if (fs.statSync(p).isDirectory()) objects.push(...render(p));
    else objects.push(...(yaml.loadAll(fs.readFileSync(p, 'utf8')) as K8sObject[]).filter(Boolean));
  }
  objects = structuredClone(objects);
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
