// One list-and-watch of this dispatcher's Jobs and of their pods (client-node's
// ListWatch, the informer of client-go), shared by every running task run
// instead of a watch per run: the cluster keeps two watches per dispatcher
// whatever SVC_K8S_MAX_JOBS is. Objects are selected by the labels every Job
// and pod of this dispatcher carries (managed-by svc, this instance's id). A
// watch that fails is started again after a pause; the re-list then reports
// what was deleted meanwhile.
import { BatchV1Api, CoreV1Api, ListWatch, Watch, type KubeConfig, type V1Job, type V1Pod } from '@kubernetes/client-node';
import type { Logger } from '@svc/logging';

/** Pause before a failed watch is started again. */
const RESTART_MS = 1_000;

/** The name of the Job that owns a pod (the Job controller's labels). */
export const jobNameOf = (pod: V1Pod): string | undefined => pod.metadata?.labels?.['batch.kubernetes.io/job-name'] ?? pod.metadata?.labels?.['job-name'];

export class ClusterWatch {
  private readonly jobs: ListWatch<V1Job>;
  private readonly pods: ListWatch<V1Pod>;
  private readonly listeners = new Map<string, Set<() => void>>();
  private started?: Promise<void>;
  private closed = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    kubeConfig: KubeConfig,
    private readonly namespace: string,
    labelSelector: string,
    private readonly log: Logger,
  ) {
    const batch = kubeConfig.makeApiClient(BatchV1Api);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const watch = new Watch(kubeConfig);
    this.jobs = new ListWatch(`/apis/batch/v1/namespaces/${namespace}/jobs`, watch, () => batch.listNamespacedJob({ namespace, labelSelector }), false, labelSelector);
    this.pods = new ListWatch(`/api/v1/namespaces/${namespace}/pods`, watch, () => core.listNamespacedPod({ namespace, labelSelector }), false, labelSelector);
    const notify = (name: string | undefined) => {
      if (name) for (const fn of [...(this.listeners.get(name) ?? [])]) fn();
    };
    this.jobs.on('change', (o) => notify(o.metadata?.name));
    this.pods.on('change', (o) => notify(jobNameOf(o)));
    for (const [kind, informer] of [
      ['jobs', this.jobs],
      ['pods', this.pods],
    ] as const) {
      informer.on('error', (err?: unknown) => {
        if (this.closed) return;
        this.log.warn(`the watch of Kubernetes ${kind} failed; it restarts`, { err, namespace, retry_in_ms: RESTART_MS });
        const t = setTimeout(() => {
          this.timers.delete(t);
          if (!this.closed) void informer.start();
        }, RESTART_MS);
        this.timers.add(t);
      });
    }
  }

  /** Starts both watches once (resolves after their first list, or their first failure: they keep restarting). */
  start(): Promise<void> {
    this.started ??= Promise.all([this.jobs.start(), this.pods.start()]).then(() => undefined);
    return this.started;
  }

  job(name: string): V1Job | undefined {
    return this.jobs.get(name, this.namespace);
  }

  /** The Job's newest pod. */
  pod(jobName: string): V1Pod | undefined {
    const pods = this.pods.list(this.namespace).filter((p) => jobNameOf(p) === jobName);
    const at = (p: V1Pod) => new Date(p.metadata?.creationTimestamp ?? 0).getTime();
    return pods.sort((a, b) => at(b) - at(a))[0];
  }

  /** Calls `fn` on every change of the Job `name` or of its pods; returns the unsubscribe. */
  subscribe(name: string, fn: () => void): () => void {
    const set = this.listeners.get(name) ?? new Set();
    this.listeners.set(name, set);
    set.add(fn);
    return () => {
      set.delete(fn);
      if (!set.size) this.listeners.delete(name);
    };
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    void this.jobs.stop();
    void this.pods.stop();
  }
}
