// The stand-in's etcd: objects by resource, namespace and name, one
// cluster-wide resourceVersion counter, and a bounded history of changes that
// watches replay from a resourceVersion (older than the history: 410 Gone, as
// after etcd's compaction). Objects are copied in and out, so nobody holds a
// reference into the store.
import { StatusError, timestamp, newUid, type KubeObject } from './meta.js';

export type Resource = 'jobs' | 'pods';
export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: EventType;
  resource: Resource;
  object: KubeObject;
  /** The resourceVersion of the change. */
  rv: number;
}

const key = (resource: Resource, ns: string, name: string) => `${resource}/${ns}/${name}`;

export class Store {
  private rv = 1;
  private readonly objects = new Map<string, KubeObject>();
  private readonly history: StoreEvent[] = [];
  private readonly subscribers = new Set<(e: StoreEvent) => void>();

  /** `historySize`: changes kept for watches that resume from a resourceVersion. Default 5000. */
  constructor(private readonly historySize = 5000) {}

  /** The current resourceVersion (of lists). */
  version(): string {
    return String(this.rv);
  }

  /** The oldest resourceVersion a watch can resume from. */
  oldestResumable(): number {
    return this.history.length ? this.history[0].rv - 1 : this.rv;
  }

  get(resource: Resource, ns: string, name: string): KubeObject | undefined {
    const o = this.objects.get(key(resource, ns, name));
    return o && structuredClone(o);
  }

  list(resource: Resource, ns: string | undefined, match: (o: KubeObject) => boolean = () => true): KubeObject[] {
    const out: KubeObject[] = [];
    for (const [k, o] of this.objects) {
      if (!k.startsWith(`${resource}/`)) continue;
      if (ns !== undefined && o.metadata.namespace !== ns) continue;
      if (match(o)) out.push(structuredClone(o));
    }
    return out.sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  }

  /** Adds a new object (name already chosen), setting uid, resourceVersion and creationTimestamp. */
  create(resource: Resource, obj: KubeObject): KubeObject {
    const k = key(resource, obj.metadata.namespace!, obj.metadata.name!);
    if (this.objects.has(k)) throw new StatusError(409, 'AlreadyExists', `exists: ${k}`);
    const o = structuredClone(obj);
    o.metadata.uid ??= newUid();
    o.metadata.creationTimestamp = timestamp();
    o.metadata.generation = o.kind === 'Job' ? 1 : o.metadata.generation;
    return this.commit('ADDED', resource, k, o);
  }

  /** Replaces an existing object; undefined when it is gone. */
  update(resource: Resource, ns: string, name: string, change: (o: KubeObject) => void): KubeObject | undefined {
    const k = key(resource, ns, name);
    const cur = this.objects.get(k);
    if (!cur) return undefined;
    const o = structuredClone(cur);
    change(o);
    if (JSON.stringify(o) === JSON.stringify(cur)) return structuredClone(cur); // no change, no event
    return this.commit('MODIFIED', resource, k, o);
  }

  /** Removes an object for good; the DELETED event carries a new resourceVersion. */
  remove(resource: Resource, ns: string, name: string): KubeObject | undefined {
    const k = key(resource, ns, name);
    const cur = this.objects.get(k);
    if (!cur) return undefined;
    this.objects.delete(k);
    const o = structuredClone(cur);
    o.metadata.resourceVersion = String(++this.rv);
    this.publish({ type: 'DELETED', resource, object: o, rv: this.rv });
    return structuredClone(o);
  }

  private commit(type: EventType, resource: Resource, k: string, o: KubeObject): KubeObject {
    o.metadata.resourceVersion = String(++this.rv);
    this.objects.set(k, o);
    this.publish({ type, resource, object: structuredClone(o), rv: this.rv });
    return structuredClone(o);
  }

  private publish(e: StoreEvent): void {
    this.history.push(e);
    if (this.history.length > this.historySize) this.history.shift();
    for (const s of [...this.subscribers]) s(e);
  }

  /** Changes after `rv`, oldest first; null when the history no longer reaches back that far. */
  since(rv: number): StoreEvent[] | null {
    if (rv < this.oldestResumable()) return null;
    return this.history.filter((e) => e.rv > rv).map((e) => ({ ...e, object: structuredClone(e.object) }));
  }

  /** Every change from now on (controllers, kubelet, watches); returns the unsubscribe. */
  subscribe(fn: (e: StoreEvent) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }
}
