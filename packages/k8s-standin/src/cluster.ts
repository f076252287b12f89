// The operations behind the API routes: create and delete Jobs, delete Pods,
// read logs, with the API server's semantics (defaults, validation, graceful
// pod deletion, garbage collection policies), over the store, the Job
// controller and the kubelet.
import type { Readable } from 'node:stream';
import { defaultJob, jobCauses } from './job-validation.js';
import { JobController } from './job-controller.js';
import type { Kubelet } from './kubelet.js';
import {
  alreadyExists,
  badRequest,
  invalid,
  namespaceNotFound,
  newUid,
  notFound,
  randomSuffix,
  RESOURCES,
  StatusError,
  timestamp,
  type Job,
  type JobRequest,
  type ObjectMeta,
  type Pod,
  type Unchecked,
  type JobSpec,
} from './meta.js';
import { Secrets } from './secrets.js';
import type { Store } from './store.js';

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
}

/** What a delete answers: the object (still there, being deleted) or a Success Status; plus API warnings. */
export interface DeleteResult {
  body: Job | Record<string, unknown>;
  warnings: string[];
}

export class Cluster {
  readonly jobs: JobController;

  constructor(
    readonly store: Store,
    readonly namespaces: Set<string>,
    private readonly kubelet: Kubelet | undefined,
    opts: { backOffMs: number; log: (m: string, f?: Record<string, unknown>) => void },
    /** The Secrets (secrets.ts); those a Job owns go when it does. */
    readonly secrets: Secrets = new Secrets(),
  ) {
    store.subscribe((e) => {
      if (e.resource === 'jobs' && e.type === 'DELETED' && e.object.metadata.uid) this.secrets.deleteOwnedBy(e.object.metadata.uid);
    });
    this.jobs = new JobController(store, { backOffMs: opts.backOffMs, deletePod: (ns, name, grace) => void this.deletePodQuietly(ns, name, grace), log: opts.log });
  }

  start(): void {
    this.jobs.start();
    if (this.kubelet) this.kubelet.start();
    else {
      // No node: every pod stays Pending, unschedulable.
      this.store.subscribe((e) => {
        if (e.resource !== 'pods' || e.type !== 'ADDED') return;
        queueMicrotask(() =>
          this.store.update('pods', e.object.metadata.namespace!, e.object.metadata.name!, (o) => {
            o.status.conditions = [
              {
                type: 'PodScheduled',
                status: 'False',
                lastProbeTime: null,
                lastTransitionTime: timestamp(),
                reason: 'Unschedulable',
                message: '0/0 nodes are available: the stand-in runs no node without a Docker engine.',
              },
            ];
          }),
        );
      });
    }
  }

  close(): void {
    this.jobs.close();
  }

  requireNamespace(ns: string): void {
    if (!this.namespaces.has(ns)) throw namespaceNotFound(ns);
  }

  createJob(ns: string, json: unknown): Job {
    this.requireNamespace(ns);
    if (!json || typeof json !== 'object' || Array.isArray(json))
      throw badRequest('the body of the request was in an unknown format - accepted media types include: application/json');
    // What is read of it is checked below and by jobCauses.
    const body = json as { kind?: string; metadata?: ObjectMeta; spec?: Unchecked<JobSpec> };
    if (body.kind !== undefined && body.kind !== 'Job')
      throw badRequest(`${body.kind} in version "v1" cannot be handled as a Job: no kind "${body.kind}" is registered for version "batch/v1"`);
    const meta = body.metadata ?? {};
    if (meta.namespace !== undefined && meta.namespace !== ns) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    let name: string = meta.name ?? '';
    if (!name && meta.generateName) name = `${meta.generateName}${randomSuffix()}`;
    if (!name) throw invalid(RESOURCES.jobs, '', [{ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }]);
    const job: JobRequest = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      // What the server owns is not taken from the client.
      metadata: { ...meta, name, namespace: ns, uid: newUid(), resourceVersion: undefined, creationTimestamp: undefined, deletionTimestamp: undefined, generation: undefined },
      spec: structuredClone(body.spec ?? {}),
      status: {},
    };
    for (const k of Object.keys(job.metadata) as (keyof typeof job.metadata)[]) if (job.metadata[k] === undefined) delete job.metadata[k];
    const causes = jobCauses(job);
    if (causes.length) throw invalid(RESOURCES.jobs, name, causes);
    if (this.store.get('jobs', ns, name)) throw alreadyExists(RESOURCES.jobs, name);
    return this.store.create('jobs', defaultJob(job));
  }

  deleteJob(ns: string, name: string, opts: DeleteOptions): DeleteResult {
    this.requireNamespace(ns);
    const job = this.store.get('jobs', ns, name);
    if (!job) throw notFound(RESOURCES.jobs, name);
    const warnings: string[] = [];
    let policy = opts.propagationPolicy;
    if (policy === undefined) {
      // batch/v1 Jobs keep the legacy default: the pods are orphaned.
      policy = opts.orphanDependents === false ? 'Background' : 'Orphan';
      if (opts.orphanDependents === undefined)
        warnings.push(
          'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning',
        );
    }
    const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: 'batch', kind: 'jobs', uid: job.metadata.uid } };
    switch (policy) {
      case 'Foreground': {
        const o = this.store.update('jobs', ns, name, (j) => {
          j.metadata.deletionTimestamp ??= timestamp();
          j.metadata.deletionGracePeriodSeconds = 0;
          j.metadata.finalizers = [...new Set([...(j.metadata.finalizers ?? []), 'foregroundDeletion'])];
        })!;
        return { body: o, warnings };
      }
      case 'Background':
        this.store.remove('jobs', ns, name);
        return { body: success, warnings };
      case 'Orphan':
        for (const p of this.store.list('pods', ns, (p) => !!p.metadata.ownerReferences?.some((r) => r.uid === job.metadata.uid))) {
          this.store.update('pods', ns, p.metadata.name!, (o) => {
            o.metadata.ownerReferences = o.metadata.ownerReferences!.filter((r) => r.uid !== job.metadata.uid);
            if (!o.metadata.ownerReferences.length) delete o.metadata.ownerReferences;
          });
        }
        this.store.remove('jobs', ns, name);
        return { body: success, warnings };
      default:
        throw invalid(RESOURCES.jobs, name, [
          { reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"` },
        ]);
    }
  }

  /**
   * Graceful deletion: the pod gets its deletionTimestamp and the kubelet
   * stops it (SIGTERM, SIGKILL after the grace period), then removes it. A
   * pod no kubelet runs, or a grace period of 0, goes at once.
   */
  deletePod(ns: string, name: string, graceSeconds?: number): Pod {
    this.requireNamespace(ns);
    const pod = this.store.get('pods', ns, name);
    if (!pod) throw notFound(RESOURCES.pods, name);
    const grace = graceSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    if (grace === 0 || !this.kubelet?.runs(pod.metadata.uid!)) return this.store.remove('pods', ns, name)!;
    return this.store.update('pods', ns, name, (o) => {
      if (o.metadata.deletionGracePeriodSeconds !== undefined && o.metadata.deletionGracePeriodSeconds <= grace) return;
      o.metadata.deletionTimestamp = timestamp(new Date(Date.now() + grace * 1000));
      o.metadata.deletionGracePeriodSeconds = grace;
    })!;
  }

  private deletePodQuietly(ns: string, name: string, grace?: number): void {
    try {
      this.deletePod(ns, name, grace);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }

  async podLogs(ns: string, name: string, q: { container?: string; follow: boolean; tailLines?: number; timestamps: boolean }): Promise<Readable> {
    this.requireNamespace(ns);
    const pod = this.store.get('pods', ns, name);
    if (!pod) throw notFound(RESOURCES.pods, name);
    const apps = (pod.spec.containers ?? []).map((c) => c.name);
    const inits = (pod.spec.initContainers ?? []).map((c) => c.name);
    let container = q.container;
    if (!container) {
      if (apps.length !== 1)
        throw badRequest(
          `a container name must be specified for pod ${name}, choose one of: [${apps.join(' ')}]${inits.length ? ` or one of the init containers: [${inits.join(' ')}]` : ''}`,
        );
      container = apps[0]!;
    }
    if (!apps.includes(container) && !inits.includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
    if (!this.kubelet) throw badRequest(`container "${container}" in pod "${name}" is waiting to start: ContainerCreating`);
    return this.kubelet.logs(pod, container, { follow: q.follow, tailLines: q.tailLines, timestamps: q.timestamps });
  }
}
