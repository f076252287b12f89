// The flow revisions a process triggered (systems/trigger.ts reads them
// before the database).
import type { FlowHead } from '../sql/trigger-flow.js';

export type { FlowHead };

/** Flows cached at most (the least recently triggered go first). */
const FLOW_CACHE_SIZE = 500;

/**
 * The flow revisions a process triggered, by namespace and flow id. An entry
 * is a hint, never trusted: a trigger from the cache inserts only while the
 * flow is still enabled at that revision and its namespace at that version
 * (createCheckedExecution), else it reads the flow again. So a save, a
 * disable or a delete on any instance takes effect at the next trigger.
 */
export class FlowCache {
  private readonly heads = new Map<string, FlowHead>();

  get(namespace: string, flowId: string): FlowHead | undefined {
    const k = `${namespace}/${flowId}`;
    const h = this.heads.get(k);
    if (h) {
      this.heads.delete(k);
      this.heads.set(k, h);
    }
    return h;
  }

  set(namespace: string, flowId: string, h: FlowHead): void {
    this.heads.delete(`${namespace}/${flowId}`);
    this.heads.set(`${namespace}/${flowId}`, h);
    if (this.heads.size > FLOW_CACHE_SIZE) this.heads.delete(this.heads.keys().next().value!);
  }

  delete(namespace: string, flowId: string): void {
    this.heads.delete(`${namespace}/${flowId}`);
  }
}
