// The kubernetes executor: one batch/v1 Job per task run (kubernetes-job.ts
// builds it), whose pod runs `svc exec`; the runner inside reports to the
// gateway over HTTP with its run token (spec, bundle, logs, outputs,
// artifacts, heartbeats, completion), so the executor only:
//   0. refuses a service account the operator did not allow
//      (SVC_K8S_SERVICE_ACCOUNTS), or the dispatcher's own: the run ends
//      executor_error naming the account and the setting, and no Job is made;
//   1. creates the Job (an API refusal ends the run executor_error with the
//      API's message), then the Secret holding its run token, owned by the
//      Job (the cluster removes it with the Job; the pod waits for it to
//      mount; a refusal deletes the Job and ends the run executor_error);
//   2. follows it through the shared watch (kubernetes-watch.ts) until
//      - an image cannot be pulled (ErrImagePull, ImagePullBackOff,
//        InvalidImageName, ErrImageNeverPull): the run ends image_pull_failed
//        with the kubelet's message;
//      - the pod or the Job ends: a run its runner did not report ends
//        executor_error naming the exit code or the pod's reason, with the
//        last lines of the container's log;
//      - the Job or its pod is deleted by someone else: likewise;
//      - `signal` aborts (cancel, the run ended elsewhere, dispatcher
//        shutdown): the Job is deleted in the foreground; its pod gets
//        SIGTERM and terminationGracePeriodSeconds (the kill delay) before
//        SIGKILL, the runner reports, and the executor waits for the pod to go;
//   3. deletes the Job with propagation (Background: the pod goes too).
// A pod that vanishes while its dispatcher is gone is the watchdog's: the
// task heartbeat stops and the run ends `lost` after SVC_HEARTBEAT_TIMEOUT.
// At most SVC_K8S_MAX_JOBS Jobs run per dispatcher (the executor's slots).
// Jobs left by earlier dispatchers for runs that have ended are deleted at
// start and every few minutes (the sweep).
import { STATUS_CODES } from 'node:http';
import { BatchV1Api, CoreV1Api, KubeConfig, type V1Job } from '@kubernetes/client-node';
import { assertNever } from '@svc/assert';
import { allAllowed, type Config } from '@svc/config';
import type { ClaimedRun } from '@svc/engine';
import { RUNNER_MOUNT } from '@svc/runner-bundle';
import type { DispatcherContext } from '../context.js';
import { containerTaskOf, endDied, endUnreported, LABELS, labelValue, MANAGED_BY, SVC_ON_PATH, watchRunnerCheckIn } from './container-task.js';
import { jobManifest, TASK_CONTAINER, tokenSecret, tokenSecretName } from './kubernetes-job.js';
import { imagePullSecretsRefusal } from './kubernetes-pull-secrets.js';
import { dispatcherServiceAccounts, serviceAccountRefusal } from './kubernetes-service-account.js';
import { jobOutcome, podOutcome, type JobOutcome } from './kubernetes-status.js';
import { ClusterWatch } from './kubernetes-watch.js';
import type { Executor } from './types.js';

/** Lines of the task container's log quoted in an executor_error. */
const LOG_TAIL_LINES = 20;
/** How long a cancelled run waits for its pod to go, past its grace period. */
const DELETE_WAIT_EXTRA_MS = 30_000;
/** Period of the sweep of Jobs whose runs have ended. */
export const SWEEP_MS = 5 * 60_000;

export interface KubernetesExecutorOptions {
  /** The cluster (kubeConfigFor). */
  kubeConfig: KubeConfig;
  /** The argv that starts `svc` from the runner bundle at RUNNER_MOUNT: `(await ensureRunnerBundle()).argv()`. */
  runnerArgv: string[];
  /** Image of the init container holding the bundle at RUNNER_MOUNT: SVC_RUNNER_IMAGE, else `svc-runner:<bundle hash>`. */
  runnerImage: string;
  /** Namespace of the Jobs. Default SVC_K8S_NAMESPACE. */
  namespace?: string;
  /** Period of the sweep of leftover Jobs; default SWEEP_MS; 0 sweeps only at the first run. */
  sweepMs?: number;
  /** The dispatcher's own service account names, refused to tasks. Default dispatcherServiceAccounts(config). */
  ownServiceAccounts?: string[];
}

/**
 * The cluster configuration of the kubernetes executor, or null when there
 * is none (the dispatcher then does not serve kubernetes):
 *   - SVC_K8S_API_URL (+ SVC_K8S_TOKEN as bearer token): from outside the
 *     cluster; an https server's certificate must verify against Node's CAs
 *     (NODE_EXTRA_CA_CERTS adds a private one); http (a proxy such as
 *     `kubectl proxy`, a test stand-in) is plain;
 *   - else, in a pod (KUBERNETES_SERVICE_HOST set): the pod's service account
 *     (token, CA and the API address that Kubernetes mounts and sets).
 * `serviceAccountDir`: a prefix for the service account files (tests).
 */
export function kubeConfigFor(config: Pick<Config, 'k8sApiUrl' | 'k8sToken' | 'k8sNamespace'>, env: NodeJS.ProcessEnv = process.env, serviceAccountDir = ''): KubeConfig | null {
  const kc = new KubeConfig();
  if (config.k8sApiUrl) {
    kc.loadFromOptions({
      // client-node refuses plain http unless told there is no certificate to verify.
      clusters: [{ name: 'svc', server: config.k8sApiUrl, skipTLSVerify: config.k8sApiUrl.startsWith('http:') }],
      users: [{ name: 'svc', ...(config.k8sToken ? { token: config.k8sToken } : {}) }],
      contexts: [{ name: 'svc', cluster: 'svc', user: 'svc', namespace: config.k8sNamespace }],
      currentContext: 'svc',
    });
    return kc;
  }
  if (env.KUBERNETES_SERVICE_HOST) {
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    // client-node reads the address from process.env.
    process.env.KUBERNETES_SERVICE_HOST = env.KUBERNETES_SERVICE_HOST;
    process.env.KUBERNETES_SERVICE_PORT = env.KUBERNETES_SERVICE_PORT ?? '443';
    try {
      kc.loadFromCluster(serviceAccountDir);
    } finally {
      for (const [k, v] of [
        ['KUBERNETES_SERVICE_HOST', saved.host],
        ['KUBERNETES_SERVICE_PORT', saved.port],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    return kc;
  }
  return null;
}

/** The message of a client-node ApiException (the Status body's), or of any error. */
export function apiMessage(err: unknown): string {
  const e = err as { code?: number; body?: unknown; message?: string };
  let body = e.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      // Not JSON: the text is the message.
    }
  }
  const m = (body as { message?: string } | undefined)?.message ?? (typeof body === 'string' && body ? body : undefined);
  if (e.code && m) return `${m} (HTTP ${e.code})`;
  // client-node drops the body of some answers (401, 403): the status says enough.
  if (typeof e.code === 'number' && STATUS_CODES[e.code]) return `${STATUS_CODES[e.code]} (HTTP ${e.code})`;
  return e.message?.split('\n')[0] ?? String(err);
}

const statusCode = (err: unknown) => (err as { code?: number }).code;

export function kubernetesExecutor(ctx: DispatcherContext, opts: KubernetesExecutorOptions): Executor {
  const namespace = opts.namespace ?? ctx.config.k8sNamespace;
  const batch = opts.kubeConfig.makeApiClient(BatchV1Api);
  const core = opts.kubeConfig.makeApiClient(CoreV1Api);
  const mine = `${LABELS.managedBy}=${MANAGED_BY},${LABELS.instance}=${labelValue(ctx.instanceId)}`;
  const watch = new ClusterWatch(opts.kubeConfig, namespace, mine, ctx.log);
  const graceSeconds = Math.ceil(ctx.killDelayMs / 1000);
  const runnerCommand = (injected: boolean) => (injected ? opts.runnerArgv : SVC_ON_PATH);
  const ownAccounts = opts.ownServiceAccounts ?? dispatcherServiceAccounts(ctx.config);
  const listedOwn = allAllowed(ctx.config.k8sServiceAccounts).filter((a) => ownAccounts.includes(a));
  if (listedOwn.length) {
    ctx.log.error("SVC_K8S_SERVICE_ACCOUNTS lists the dispatcher's own service account; tasks naming it are refused", { service_accounts: listedOwn });
  }
  let sweepTimer: NodeJS.Timeout | undefined;
  let swept: Promise<void> | undefined;

  /**
   * Deletes this deployment's Jobs (of any of its dispatchers) whose task runs
   * are no longer RUNNING (another deployment may share the namespace).
   */
  async function sweep(): Promise<void> {
    try {
      const jobs = await batch.listNamespacedJob({
        namespace,
        labelSelector: `${LABELS.managedBy}=${MANAGED_BY},${LABELS.deployment}=${await ctx.engine.dispatch.deploymentId()}`,
      });
      const byRun = new Map<string, string>();
      for (const j of jobs.items) {
        const id = j.metadata?.labels?.[LABELS.taskRun];
        if (id && j.metadata?.name) byRun.set(id, j.metadata.name);
      }
      if (!byRun.size) return;
      const running = new Set(await ctx.engine.dispatch.stillRunning([...byRun.keys()]));
      for (const [id, job] of byRun) {
        if (running.has(id)) continue;
        await deleteJob(job, 'Background').catch((err: unknown) => ctx.log.warn('cannot delete a leftover Kubernetes Job', { err, job, namespace }));
      }
    } catch (err) {
      ctx.log.warn('cannot sweep leftover Kubernetes Jobs', { err, namespace });
    }
  }

  function startSweeping(): Promise<void> {
    if (!swept) {
      swept = sweep();
      if ((opts.sweepMs ?? SWEEP_MS) > 0) {
        sweepTimer = setInterval(() => void sweep(), opts.sweepMs ?? SWEEP_MS);
        sweepTimer.unref();
      }
    }
    return swept;
  }

  async function deleteJob(name: string, propagationPolicy: 'Background' | 'Foreground', gracePeriodSeconds?: number): Promise<void> {
    try {
      await batch.deleteNamespacedJob({ name, namespace, propagationPolicy, gracePeriodSeconds });
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
  }

  /** Resolves with the first outcome the Job shows, or 'aborted' when `signal` aborts first. */
  function outcome(name: string, signal: AbortSignal): Promise<JobOutcome | 'aborted'> {
    return new Promise((resolve) => {
      let seenJob = false;
      const finish = (o: JobOutcome | 'aborted') => {
        unsubscribe();
        signal.removeEventListener('abort', onAbort);
        resolve(o);
      };
      const check = () => {
        const job = watch.job(name);
        const pod = watch.pod(name);
        if (job) seenJob = true;
        const o = (pod && podOutcome(pod)) ?? (job && jobOutcome(job));
        if (o) return finish(o);
        if (seenJob && !job) finish({ kind: 'gone', message: `Job ${name} was deleted before its task ended` });
      };
      const onAbort = () => finish('aborted');
      const unsubscribe = watch.subscribe(name, check);
      if (signal.aborted) return finish('aborted');
      signal.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }

  /**
   * Watches the runner's check-in (container-task.ts) from the moment the
   * pod's task container runs (its scheduling and image pull do not count).
   * Returns the function that ends the watch.
   */
  function checkInOnceRunning(name: string, run: ClaimedRun, image: string): (runnerReported: boolean) => void {
    let unwatch: ((runnerReported: boolean) => void) | undefined;
    const check = () => {
      if (unwatch) return;
      const running = watch.pod(name)?.status?.containerStatuses?.find((c) => c.name === TASK_CONTAINER)?.state?.running;
      if (!running) return;
      unwatch = watchRunnerCheckIn(ctx, run, `the pod of Job ${name} (image ${image})`, () => deleteJob(name, 'Background'));
      unsubscribe();
    };
    const unsubscribe = watch.subscribe(name, check);
    check();
    return (runnerReported) => {
      unsubscribe();
      unwatch?.(runnerReported);
    };
  }

  /** Resolves once the Job is gone (its pods first, in the foreground), or after `ms`. */
  function gone(name: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!watch.job(name) && !watch.pod(name)) done();
      };
      const t = setTimeout(done, ms);
      const unsubscribe = watch.subscribe(name, check);
      function done() {
        clearTimeout(t);
        unsubscribe();
        resolve();
      }
      check();
    });
  }

  /** The last lines the task container wrote (best effort: the pod may be gone). */
  async function logTail(podName: string | undefined): Promise<string> {
    if (!podName) return '';
    try {
      const text = await core.readNamespacedPodLog({ name: podName, namespace, container: TASK_CONTAINER, tailLines: LOG_TAIL_LINES });
      return typeof text === 'string' && text.trim() ? `; last lines of its log:\n${text.trimEnd()}` : '';
    } catch {
      return '';
    }
  }

  /** Ends the run by what its Job showed, when its runner did not report the end; whether it ended the run here. */
  async function endByOutcome(run: ClaimedRun, name: string, o: JobOutcome | 'aborted'): Promise<boolean> {
    if (o === 'aborted') {
      // Cancel or shutdown: SIGTERM now, SIGKILL after the grace period; the runner reports meanwhile.
      try {
        await deleteJob(name, 'Foreground', graceSeconds);
      } catch (err) {
        ctx.log.warn('cannot delete the Kubernetes Job of a stopped task run', { err, job: name, task_run_id: run.id });
      }
      await gone(name, graceSeconds * 1000 + DELETE_WAIT_EXTRA_MS);
      return endUnreported(ctx, run, 'executor_error', `the task run was stopped: its Kubernetes Job ${name} was deleted before its runner reported the end`);
    }
    try {
      switch (o.kind) {
        case 'image_pull_failed':
          return await endUnreported(ctx, run, 'image_pull_failed', o.message);
        case 'ended':
        case 'gone': {
          // A runner that delivered its completion exits 0: only other ends are worth a look at the log.
          const pod = watch.pod(name);
          const exitCode = pod?.status?.containerStatuses?.find((c) => c.name === TASK_CONTAINER)?.state?.terminated?.exitCode;
          const tail = exitCode === 0 ? '' : await logTail(pod?.metadata?.name);
          return await endDied(ctx, run, `the task's Kubernetes ${o.kind === 'gone' ? 'Job was deleted' : 'pod ended'} before its runner reported the end: ${o.message}${tail}`);
        }
        default:
          return assertNever(o);
      }
    } finally {
      await deleteJob(name, 'Background').catch((err: unknown) =>
        ctx.log.warn('cannot delete a finished Kubernetes Job; the sweep retries', { err, job: name, task_run_id: run.id }),
      );
    }
  }

  return {
    type: 'kubernetes',
    slots: ctx.config.k8sMaxJobs,
    close() {
      clearInterval(sweepTimer);
      watch.close();
    },
    ready() {
      // Leftovers of dispatchers that died are swept at start, then every SWEEP_MS.
      void startSweeping();
      return Promise.resolve();
    },
    async run(run: ClaimedRun, signal: AbortSignal) {
      void startSweeping();
      await watch.start();
      const task = await containerTaskOf(ctx, run, runnerCommand);
      if (!task) return;
      const refused =
        serviceAccountRefusal(task.kubernetes.service_account, task.prepared.execution.namespace, ctx.config.k8sServiceAccounts, ownAccounts) ??
        imagePullSecretsRefusal(task.kubernetes.image_pull_secrets, task.prepared.execution.namespace, ctx.config.k8sImagePullSecrets);
      if (refused) {
        await endUnreported(ctx, run, 'executor_error', `task ${run.task_key} cannot run on the kubernetes executor: ${refused}`);
        return;
      }
      const manifest = jobManifest(task, {
        namespace,
        taskServiceAccount: ctx.config.k8sTaskServiceAccount,
        runAsNonRoot: ctx.config.k8sRunAsNonRoot,
        runnerImage: opts.runnerImage,
        runnerArgv: opts.runnerArgv,
        runnerMount: RUNNER_MOUNT,
        terminationGraceSeconds: graceSeconds,
      });
      const name = task.name;
      // Subscribed before the Job exists: no event of it can be missed.
      const notCreated = new AbortController();
      const result = outcome(name, AbortSignal.any([signal, notCreated.signal]));
      let created: V1Job;
      try {
        created = await batch.createNamespacedJob({ namespace, body: manifest });
      } catch (err) {
        notCreated.abort();
        await result;
        await endUnreported(ctx, run, 'executor_error', `cannot create the Kubernetes Job ${name} in namespace ${namespace}: ${apiMessage(err)}`);
        return;
      }
      // The run token, in a Secret the Job owns (removed with it); its pod waits for it to mount (kubernetes-job.ts).
      try {
        await core.createNamespacedSecret({ namespace, body: tokenSecret(task, namespace, { name, uid: created.metadata?.uid ?? '' }) });
      } catch (err) {
        ctx.log.warn('cannot create the run token Secret of a Kubernetes Job', { err, job: name, task_run_id: run.id });
        await deleteJob(name, 'Background').catch(() => undefined);
        notCreated.abort();
        await result;
        await endUnreported(ctx, run, 'executor_error', `cannot create the run token Secret ${tokenSecretName(name)} in namespace ${namespace}: ${apiMessage(err)}`);
        return;
      }
      ctx.log.debug('kubernetes job created', { task_run_id: run.id, job: name, namespace });
      const unwatch = checkInOnceRunning(name, run, task.image);
      // Whether this dispatcher ended the run (else its runner reported the end: it reached the gateway).
      let endedHere = true;
      try {
        endedHere = await endByOutcome(run, name, await result);
      } finally {
        unwatch(!endedHere);
      }
    },
  };
}
