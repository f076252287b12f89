// The stand-in's Secrets: create, read and delete in a namespace, as
// kube-apiserver answers them (201 with uid, resourceVersion and creation
// time; 409 AlreadyExists; 404 NotFound), no watch. A Secret owned by a Job
// (metadata.ownerReferences) goes when that Job does, as the garbage
// collector removes it. The kubelet reads them to fill `secret` volumes.
import { newUid, StatusError, timestamp } from './meta.js';

export interface SecretObject {
  apiVersion: 'v1';
  kind: 'Secret';
  type?: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion: string;
    creationTimestamp: string;
    labels?: Record<string, string>;
    ownerReferences?: { apiVersion?: string; kind?: string; name?: string; uid?: string }[];
  };
  /** Base64 values by key. */
  data?: Record<string, string>;
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export class Secrets {
  private readonly byKey = new Map<string, SecretObject>();
  private rv = 1;

  create(ns: string, body: unknown): SecretObject {
    const b = (body ?? {}) as Partial<SecretObject> & { stringData?: Record<string, string> };
    const name = b.metadata?.name ?? '';
    if (!NAME.test(name) || name.length > 253) {
      throw new StatusError(
        422,
        'Invalid',
        `Secret "${name}" is invalid: metadata.name: Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`,
      );
    }
    const key = `${ns}/${name}`;
    if (this.byKey.has(key)) throw new StatusError(409, 'AlreadyExists', `secrets "${name}" already exists`, { name, kind: 'secrets' });
    const data = { ...b.data };
    for (const [k, v] of Object.entries(b.stringData ?? {})) data[k] = Buffer.from(v).toString('base64');
    const o: SecretObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: b.type ?? 'Opaque',
      metadata: {
        name,
        namespace: ns,
        uid: newUid(),
        resourceVersion: String(this.rv++),
        creationTimestamp: timestamp(),
        ...(b.metadata?.labels ? { labels: { ...b.metadata.labels } } : {}),
        ...(b.metadata?.ownerReferences ? { ownerReferences: structuredClone(b.metadata.ownerReferences) } : {}),
      },
      data,
    };
    this.byKey.set(key, o);
    return structuredClone(o);
  }

  get(ns: string, name: string): SecretObject | undefined {
    const o = this.byKey.get(`${ns}/${name}`);
    return o && structuredClone(o);
  }

  /** Deletes it; throws 404 when there is none. */
  delete(ns: string, name: string): SecretObject {
    const o = this.byKey.get(`${ns}/${name}`);
    if (!o) throw new StatusError(404, 'NotFound', `secrets "${name}" not found`, { name, kind: 'secrets' });
    this.byKey.delete(`${ns}/${name}`);
    return o;
  }

  /** Removes the Secrets an object of `uid` owns (the garbage collector's part). */
  deleteOwnedBy(uid: string): void {
    for (const [k, o] of this.byKey) if (o.metadata.ownerReferences?.some((r) => r.uid === uid)) this.byKey.delete(k);
  }

  /** Every Secret, for assertions. */
  all(): SecretObject[] {
    return [...this.byKey.values()].map((o) => structuredClone(o));
  }
}
