// Clients of a stand-in through the real @kubernetes/client-node, and waits.
import { BatchV1Api, CoreV1Api, KubeConfig, type V1Job } from '@kubernetes/client-node';
import type { Standin } from '../src/index.js';

export function clients(s: Pick<Standin, 'kubeConfigOptions'>) {
  const kc = new KubeConfig();
  kc.loadFromOptions(s.kubeConfigOptions);
  return { kc, batch: kc.makeApiClient(BatchV1Api), core: kc.makeApiClient(CoreV1Api) };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The error a client-node call throws (ApiException: code and the Status body). */
export async function apiError(p: Promise<unknown>): Promise<{ code: number; body: any }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: number; body: unknown };
    return { code: e.code, body: typeof e.body === 'string' && e.body ? JSON.parse(e.body) : e.body };
  }
  throw new Error('the call succeeded');
}

/** A Job of one container, restartPolicy Never. */
export function job(name: string, container: Record<string, unknown>, spec: Record<string, unknown> = {}, pod: Record<string, unknown> = {}): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, labels: { app: 'test' } },
    spec: {
      backoffLimit: 0,
      ...spec,
      template: { metadata: { labels: { app: 'test' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', ...container } as never], ...pod } },
    },
  };
}

/** A client-node model (class instances, Dates) as plain JSON values. */
export const plain = (o: unknown): any => JSON.parse(JSON.stringify(o));
