// The Job controller and the garbage collector of the stand-in, as
// kube-controller-manager runs them for NonIndexed Jobs of one completion:
//   - a Job without an active pod gets one (`<job>-<5 chars>`, owned by the
//     Job, labels of the template plus job-name and controller-uid), after a
//     back-off once pods failed;
//   - a terminal pod counts once in status.succeeded or status.failed (a pod
//     deleted before it ended counts as failed);
//   - one success: condition Complete; failures past spec.backoffLimit:
//     Failed/BackoffLimitExceeded; spec.activeDeadlineSeconds passed since
//     status.startTime: Failed/DeadlineExceeded; a failed Job's active pods
//     are deleted;
//   - spec.ttlSecondsAfterFinished: the finished Job is deleted (background);
//   - deletion: Foreground keeps the Job (deletionTimestamp, finalizer
//     foregroundDeletion) until its pods are gone; Background removes it at
//     once and the garbage collector then deletes its pods; Orphan leaves the
//     pods without their owner. Pods are deleted with their own
//     terminationGracePeriodSeconds (a Job's gracePeriodSeconds is not
//     passed on to its pods, as in Kubernetes).
import { randomSuffix, timestamp, type Job, type JobStatus, type Pod, type PodSpec } from './meta.js';
import type { Store } from './store.js';

export interface JobControllerOptions {
  /** First delay before a failed pod is replaced, doubling. The controller's is 10 s. */
  backOffMs: number;
  /** Deletes a pod as the API would (graceful through the kubelet). */
  deletePod: (ns: string, name: string, graceSeconds?: number) => void;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

const terminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
const ownerUid = (p: Pod) => p.metadata.ownerReferences?.find((r) => r.controller && r.kind === 'Job')?.uid;
const finished = (job: Job) => (job.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');

export class JobController {
  private unsubscribe?: () => void;
  /** Pods already counted in their Job's status, by Job uid (the job-tracking finalizer's role). */
  private readonly counted = new Map<string, Map<string, 'succeeded' | 'failed'>>();
  private readonly lastFailure = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queue = new Set<string>();
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly opts: JobControllerOptions,
  ) {}

  start(): void {
    this.unsubscribe = this.store.subscribe((e) => {
      if (e.resource === 'jobs') {
        if (e.type === 'DELETED') this.collect(e.object);
        else this.enqueue(e.object.metadata.namespace!, e.object.metadata.name!);
        return;
      }
      const o = e.object;
      const uid = ownerUid(o);
      const owner = o.metadata.ownerReferences?.find((r) => r.uid === uid);
      if (!uid || !owner) return;
      if (e.type === 'DELETED' && !terminal(o)) this.count(uid, o.metadata.uid!, 'failed');
      if (e.type !== 'DELETED' && terminal(o)) this.count(uid, o.metadata.uid!, o.status.phase === 'Succeeded' ? 'succeeded' : 'failed');
      this.enqueue(o.metadata.namespace!, owner.name);
    });
  }

  close(): void {
    this.closed = true;
    this.unsubscribe?.();
    for (const t of this.timers.values()) clearTimeout(t);
  }

  private count(jobUid: string, podUid: string, as: 'succeeded' | 'failed'): void {
    const m = this.counted.get(jobUid) ?? new Map<string, 'succeeded' | 'failed'>();
    this.counted.set(jobUid, m);
    if (m.has(podUid)) return;
    m.set(podUid, as);
    if (as === 'failed') this.lastFailure.set(jobUid, Date.now());
  }

  private enqueue(ns: string, name: string): void {
    this.queue.add(`${ns}/${name}`);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const keys = [...this.queue];
      this.queue.clear();
      for (const k of keys) {
        const [ns, name] = k.split('/') as [string, string];
        try {
          if (!this.closed) this.reconcile(ns, name);
        } catch (err) {
          this.opts.log('job reconcile failed', { job: k, err: String(err) });
        }
      }
    });
  }

  private later(ns: string, name: string, ms: number): void {
    const k = `${ns}/${name}`;
    clearTimeout(this.timers.get(k));
    this.timers.set(
      k,
      setTimeout(
        () => {
          this.timers.delete(k);
          this.enqueue(ns, name);
        },
        Math.max(0, ms),
      ),
    );
  }

  private pods(job: Job): Pod[] {
    return this.store.list('pods', job.metadata.namespace, (p) => ownerUid(p) === job.metadata.uid);
  }

  /** Background deletion and ownerless pods: the garbage collector deletes the dependents of a removed Job. */
  private collect(job: Job): void {
    const uid = job.metadata.uid!;
    for (const p of this.store.list('pods', job.metadata.namespace, (p) => ownerUid(p) === uid)) {
      if (!p.metadata.deletionTimestamp) this.opts.deletePod(p.metadata.namespace!, p.metadata.name!);
    }
    clearTimeout(this.timers.get(`${job.metadata.namespace}/${job.metadata.name}`));
    this.counted.delete(uid);
    this.lastFailure.delete(uid);
  }

  private reconcile(ns: string, name: string): void {
    const job = this.store.get('jobs', ns, name);
    if (!job) return;
    const pods = this.pods(job);
    if (job.metadata.deletionTimestamp) {
      if (!job.metadata.finalizers?.includes('foregroundDeletion')) return;
      for (const p of pods) if (!p.metadata.deletionTimestamp) this.opts.deletePod(ns, p.metadata.name!);
      if (!pods.length) this.store.remove('jobs', ns, name);
      return;
    }
    const spec = job.spec;
    const uid = job.metadata.uid!;
    const counts = [...(this.counted.get(uid)?.values() ?? [])];
    const succeeded = counts.filter((c) => c === 'succeeded').length;
    const failed = counts.filter((c) => c === 'failed').length;
    const active = pods.filter((p) => !terminal(p) && !p.metadata.deletionTimestamp);
    const terminating = pods.filter((p) => !terminal(p) && p.metadata.deletionTimestamp).length;
    const ready = active.filter((p) => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')).length;

    if (finished(job)) {
      const failedJob = (job.status.conditions ?? []).some((c) => c.type === 'Failed' && c.status === 'True');
      if (failedJob) for (const p of active) this.opts.deletePod(ns, p.metadata.name!);
      this.writeStatus(job, { active: 0, ready: 0, succeeded, failed, terminating });
      const ttl = spec.ttlSecondsAfterFinished;
      if (ttl !== undefined) {
        const due = new Date(job.status.completionTime ?? lastTransition(job)).getTime() + ttl * 1000;
        if (Date.now() >= due) {
          // The TTL controller deletes with background propagation.
          this.store.remove('jobs', ns, name);
        } else this.later(ns, name, due - Date.now());
      }
      return;
    }

    const now = timestamp();
    const startTime = job.status?.startTime ?? now;
    let condition: { type: 'Complete' | 'Failed'; reason: string; message: string } | undefined;
    if (succeeded >= (spec.completions ?? 1)) condition = { type: 'Complete', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
    else if (failed > (spec.backoffLimit ?? 6)) condition = { type: 'Failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    else if (spec.activeDeadlineSeconds !== undefined) {
      const due = new Date(startTime).getTime() + spec.activeDeadlineSeconds * 1000;
      if (Date.now() >= due) condition = { type: 'Failed', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
      else this.later(ns, name, due - Date.now());
    }

    if (condition) {
      if (condition.type === 'Failed') for (const p of active) this.opts.deletePod(ns, p.metadata.name!);
      // As since Kubernetes 1.31: the interim condition first (SuccessCriteriaMet / FailureTarget), then the final one.
      const interim = condition.type === 'Complete' ? 'SuccessCriteriaMet' : 'FailureTarget';
      const c = (type: string) => ({ type, status: 'True', lastProbeTime: now, lastTransitionTime: now, reason: condition.reason, message: condition.message });
      this.writeStatus(job, {
        startTime,
        active: condition.type === 'Failed' ? 0 : active.length,
        ready: 0,
        succeeded,
        failed,
        terminating: terminating + (condition.type === 'Failed' ? active.length : 0),
        conditions: [...(job.status?.conditions ?? []), c(interim), c(condition.type)],
        ...(condition.type === 'Complete' ? { completionTime: now } : {}),
      });
      return;
    }

    if (!active.length && !(spec.suspend ?? false)) {
      const last = this.lastFailure.get(uid);
      const delay = failed ? this.opts.backOffMs * 2 ** (failed - 1) : 0;
      if (last !== undefined && Date.now() < last + delay) this.later(ns, name, last + delay - Date.now());
      else {
        this.createPod(job);
        this.writeStatus(job, { startTime, active: 1, ready, succeeded, failed, terminating });
        return;
      }
    }
    this.writeStatus(job, { startTime, active: active.length, ready, succeeded, failed, terminating });
  }

  private writeStatus(job: Job, fields: JobStatus): void {
    this.store.update('jobs', job.metadata.namespace!, job.metadata.name!, (o) => {
      const s = (o.status ??= {});
      Object.assign(s, fields);
      // Zero counts are omitted, as the API server's omitempty does.
      for (const k of ['active', 'succeeded', 'failed'] as const) if (fields[k] === 0) delete s[k];
      s.uncountedTerminatedPods ??= {};
    });
  }

  private createPod(job: Job): void {
    const t = job.spec.template;
    const ns = job.metadata.namespace!;
    let name = `${job.metadata.name}-${randomSuffix()}`;
    while (this.store.get('pods', ns, name)) name = `${job.metadata.name}-${randomSuffix()}`;
    const spec = structuredClone(t.spec);
    spec.serviceAccountName ??= 'default';
    spec.serviceAccount = spec.serviceAccountName;
    spec.enableServiceLinks ??= true;
    spec.priority ??= 0;
    spec.preemptionPolicy ??= 'PreemptLowerPriority';
    // The DefaultTolerationSeconds admission plugin.
    spec.tolerations = [
      ...(spec.tolerations ?? []),
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ];
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        generateName: `${job.metadata.name}-`,
        namespace: ns,
        labels: { ...t.metadata?.labels },
        ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name!, uid: job.metadata.uid!, controller: true, blockOwnerDeletion: true }],
      },
      spec,
      status: { phase: 'Pending', qosClass: qosClass(spec) },
    };
    this.store.create('pods', pod);
  }
}

function lastTransition(job: Job): string {
  const c = (job.status?.conditions ?? []).find((x) => x.type === 'Complete' || x.type === 'Failed');
  return c?.lastTransitionTime ?? timestamp();
}

/** Guaranteed when every container's requests equal its limits for cpu and memory; BestEffort with none at all. */
function qosClass(spec: PodSpec): string {
  const cs = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  const any = cs.some((c) => Object.keys(c.resources?.requests ?? {}).length || Object.keys(c.resources?.limits ?? {}).length);
  if (!any) return 'BestEffort';
  const guaranteed = cs.every((c) =>
    ['cpu', 'memory'].every((r) => c.resources?.limits?.[r] !== undefined && (c.resources?.requests?.[r] ?? c.resources.limits[r]) === c.resources.limits[r]),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
