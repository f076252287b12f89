// The stand-in's etcd: objects by resource, namespace and name, one
// cluster-wide resourceVersion counter, and a bounded history of changes that
// watches replay from a resourceVersion (older than the history: 410 Gone, as
// after etcd's compaction). Objects are copied in and out, so nobody holds a
// reference into the store.
import { StatusError, timestamp, newUid, type Job, type KubeObject, type Pod } from './meta.js';

export type Resource = 'jobs' | 'pods';
export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** The objects of a resource. */
export interface ObjectOf {
  jobs: Job;
  pods: Pod;
}

interface EventOf<R extends Resource> {
  type: EventType;
  resource: R;
  object: ObjectOf[R];
  /** The resourceVersion of the change. */
  rv: number;
}

/** A change; `resource` tells whether `object` is a Job or a Pod. */
export type StoreEvent = EventOf<'jobs'> | EventOf<'pods'>;

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

  get<R extends Resource>(resource: R, ns: string, name: string): ObjectOf[R] | undefined {
    const o = this.objects.get(key(resource, ns, name)) as ObjectOf[R] | undefined;
    return o && structuredClone(o);
  }

  list<R extends Resource>(resource: R, ns: string | undefined, match: (o: ObjectOf[R]) => boolean = () => true): ObjectOf[R][] {
    const out: ObjectOf[R][] = [];
    for (const [k, stored] of this.objects) {
      if (!k.startsWith(`${resource}/`)) continue;
      // The key's prefix is the resource.
      const o = stored as ObjectOf[R];
      if (ns !== undefined && o.metadata.namespace !== ns) continue;
      if (match(o)) out.push(structuredClone(o));
    }
    return out.sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  }

  /** Adds a new object (name already chosen), setting uid, resourceVersion and creationTimestamp. */
  create<R extends Resource>(resource: R, obj: ObjectOf[R]): ObjectOf[R] {
    const k = key(resource, obj.metadata.namespace!, obj.metadata.name!);
    if (this.objects.has(k)) throw new StatusError(409, 'AlreadyExists', `exists: ${k}`);
    const o = structuredClone(obj);
    o.metadata.uid ??= newUid();
    o.metadata.creationTimestamp = timestamp();
    o.metadata.generation = o.kind === 'Job' ? 1 : o.metadata.generation;
    return this.commit('ADDED', resource, k, o);
  }

  /** Replaces an existing object; undefined when it is gone. */
  update<R extends Resource>(resource: R, ns: string, name: string, change: (o: ObjectOf[R]) => void): ObjectOf[R] | undefined {
    const k = key(resource, ns, name);
    const cur = this.objects.get(k) as ObjectOf[R] | undefined;
    if (!cur) return undefined;
    const o = structuredClone(cur);
    change(o);
    if (JSON.stringify(o) === JSON.stringify(cur)) return structuredClone(cur); // no change, no event
    return this.commit('MODIFIED', resource, k, o);
  }

  /** Removes an object for good; the DELETED event carries a new resourceVersion. */
  remove<R extends Resource>(resource: R, ns: string, name: string): ObjectOf[R] | undefined {
    const k = key(resource, ns, name);
    const cur = this.objects.get(k) as ObjectOf[R] | undefined;
    if (!cur) return undefined;
    this.objects.delete(k);
    const o = structuredClone(cur);
    o.metadata.resourceVersion = String(++this.rv);
    this.publish({ type: 'DELETED', resource, object: o, rv: this.rv } as StoreEvent);
    return structuredClone(o);
  }

  private commit<R extends Resource>(type: EventType, resource: R, k: string, o: ObjectOf[R]): ObjectOf[R] {
    o.metadata.resourceVersion = String(++this.rv);
    this.objects.set(k, o);
    // `object` is of `resource`, as every caller passes them together.
    this.publish({ type, resource, object: structuredClone(o), rv: this.rv } as StoreEvent);
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
    return this.history.filter((e) => e.rv > rv).map((e) => structuredClone(e));
  }

  /** Every change from now on (controllers, kubelet, watches); returns the unsubscribe. */
  subscribe(fn: (e: StoreEvent) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }
}
