// @svc/k8s-standin: a local stand-in of the Kubernetes API for tests, since
// no real cluster can be had on our machines. It serves the batch/v1 Jobs and
// core/v1 Pods parts of kube-apiserver (objects, Status errors, resourceVersion,
// selectors, watch), runs a Job controller with garbage collection, and, given
// a Docker engine, one node whose kubelet runs the pods as Docker containers
// on the host's network. Clients talk to it with the real
// @kubernetes/client-node; `kubeConfigOptions` is what KubeConfig.loadFromOptions takes.
//
// What it does not do: scheduling constraints (node selectors, tolerations,
// service accounts and image pull secrets are stored and returned, not
// enforced), pulls from a registry (there is none: only images the Docker
// engine holds run), probes, pod networking apart from the host's, PATCH/PUT.
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type Docker from 'dockerode';
import { Cluster } from './cluster.js';
import { Kubelet } from './kubelet.js';
import { Secrets } from './secrets.js';
import { createApiServer } from './server.js';
import { Store } from './store.js';

export { cpuCores, defaultPullPolicy, memoryBytes } from './job-validation.js';
export { qualifiedImage } from './images.js';
export { StatusError, type Job, type KubeObject, type Pod } from './meta.js';
export type { Store, StoreEvent } from './store.js';

export interface StandinOptions {
  /** The Docker engine whose containers are the pods. Default none: pods stay Pending (Unschedulable) and only the API and the Job controller work. */
  docker?: Docker;
  /** Namespaces that exist. Default `['default']`. */
  namespaces?: string[];
  /** The bearer token every request must carry. Default: a random one. */
  token?: string;
  /** First back-off of image pulls, crashing containers and failed Job pods, doubling. Default 500 ms (Kubernetes: 10 s). */
  backOffMs?: number;
  /** Changes kept for watches that resume from a resourceVersion. Default 5000. */
  historySize?: number;
  /** Each request served, for tests asserting what a client sent. */
  onRequest?: (r: { method: string; path: string; query: URLSearchParams; status: number }) => void;
  /** Diagnostics. Default: none. */
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

export interface Standin {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  token: string;
  /** For `new KubeConfig().loadFromOptions(...)`. */
  kubeConfigOptions: {
    clusters: { name: string; server: string; skipTLSVerify: boolean }[];
    users: { name: string; token: string }[];
    contexts: { name: string; cluster: string; user: string; namespace: string }[];
    currentContext: string;
  };
  /** The objects, for assertions (what a client could read too). */
  store: Store;
  /** The Secrets, for assertions. */
  secrets: Secrets;
  /** Name of the one node; the label its Docker containers and volumes carry is `io.svc.k8s-standin=<id>`. */
  nodeName: string;
  id: string;
  /** Stops serving, kills every pod and removes their containers and volumes. */
  close(): Promise<void>;
}

export const OWNER_LABEL = 'io.svc.k8s-standin';

export async function startStandin(opts: StandinOptions = {}): Promise<Standin> {
  const id = crypto.randomBytes(4).toString('hex');
  const token = opts.token ?? crypto.randomBytes(16).toString('hex');
  const log = opts.log ?? (() => undefined);
  const backOffMs = opts.backOffMs ?? 500;
  const store = new Store(opts.historySize);
  const nodeName = `standin-node-${id}`;
  const secrets = new Secrets();
  const kubelet = opts.docker
    ? new Kubelet(store, {
        secrets,
        docker: opts.docker,
        nodeName,
        hostIP: '127.0.0.1',
        backOffMs,
        registryError: 'no image registry can be reached from the stand-in: only images already in its Docker engine run',
        ownerLabel: [OWNER_LABEL, id],
        log,
      })
    : undefined;
  const cluster = new Cluster(store, new Set(opts.namespaces ?? ['default']), kubelet, { backOffMs, log }, secrets);
  cluster.start();
  const { server, endWatches } = createApiServer(cluster, { token, onRequest: opts.onRequest });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ns = (opts.namespaces ?? ['default'])[0];
  return {
    url,
    token,
    store,
    secrets,
    nodeName,
    id,
    kubeConfigOptions: {
      clusters: [{ name: 'standin', server: url, skipTLSVerify: true }],
      users: [{ name: 'standin', token }],
      contexts: [{ name: 'standin', cluster: 'standin', user: 'standin', namespace: ns }],
      currentContext: 'standin',
    },
    async close() {
      cluster.close();
      endWatches();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await kubelet?.close();
    },
  };
}
