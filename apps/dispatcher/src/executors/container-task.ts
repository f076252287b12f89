// What the docker and kubernetes executors share: a claimed task run turned
// into a container to start. The container runs `svc exec`, which speaks the
// runner protocol to the gateway over HTTP with a run token (bundle, spec,
// logs, outputs, artifacts, heartbeats, completion), exactly as the runner of
// the process executor does in-process. The executor only starts the
// container, waits for it, stops it on cancel, and ends the run itself when
// the container could not start or ended without reporting.
import type { ClaimedRun, PreparedTask } from '@svc/engine';
import { parseQuantity, quantityScaled, type Quantity } from '@svc/vocabulary';
import type { DispatcherContext } from '../context.js';

/** Where the image carries `svc` when `inject_runner` is false. */
export const SVC_ON_PATH = ['svc'];

/** Seconds a run token outlives its task's timeout (the runner's last reports come after the kill). */
const TOKEN_GRACE_MS = 15 * 60_000;

export type PullPolicy = 'always' | 'if_not_present' | 'never';

export interface ResourceList {
  cpu?: string;
  memory?: string;
}

export interface KubernetesPodSettings {
  service_account?: string;
  node_selector?: Record<string, string>;
  tolerations?: { key?: string; operator?: 'Exists' | 'Equal'; value?: string; effect?: string; toleration_seconds?: number }[];
  image_pull_secrets?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface ContainerTask {
  run: ClaimedRun;
  prepared: PreparedTask;
  image: string;
  injectRunner: boolean;
  pull: PullPolicy;
  network: string | undefined;
  resources: { requests?: ResourceList; limits?: ResourceList };
  kubernetes: KubernetesPodSettings;
  /** The container's command: `svc exec` (from the injected bundle, or `svc` on the image's PATH). */
  command: string[];
  /** The runner's environment: where to report. The task's own env comes from the spec. Never the token. */
  env: Record<string, string>;
  /**
   * The run token: it reports this run and fetches its spec (the secret
   * values the task resolved). Delivered as a file the runner reads through
   * SVC_RUN_TOKEN_FILE (docker-run-token.ts, the kubernetes Secret), never in
   * an environment.
   */
  token: string;
  /** Labels naming the run (container labels, Kubernetes labels): found again after a dispatcher crash. */
  labels: Record<string, string>;
  /** A name unique per task run, valid for Docker and as a Kubernetes object name (lower case, at most 63). */
  name: string;
}

/** Label keys of every container and Job an executor creates. */
export const LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  /** The deployment (Engine.deploymentId): deployments sharing an engine or a namespace leave each other's containers alone. */
  deployment: 'svc.dev/deployment',
  instance: 'svc.dev/instance-id',
  execution: 'svc.dev/execution-id',
  taskRun: 'svc.dev/task-run-id',
  namespace: 'svc.dev/namespace',
  flow: 'svc.dev/flow-id',
  task: 'svc.dev/task-id',
} as const;
export const MANAGED_BY = 'svc';

/** A label value as Kubernetes accepts it (at most 63 of [A-Za-z0-9._-], alphanumeric at both ends). */
export function labelValue(v: string): string {
  return v
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}

/**
 * Prepares a claimed run for a container executor. Null when the run was
 * ended instead (a template or secret error; no image to run it in).
 * `runnerCommand`: the argv that starts `svc` from the injected bundle.
 */
export async function containerTaskOf(ctx: DispatcherContext, run: ClaimedRun, runnerCommand: (injected: boolean) => string[]): Promise<ContainerTask | null> {
  const prepared = await ctx.engine.dispatch.prepare(run);
  if (!prepared) return null;
  const settings = await ctx.engine.dispatch.executorSettings(prepared);
  const image = settings.image ?? ctx.config.defaultImage;
  if (!image) {
    await ctx.engine.runner.complete(run.id, {
      state: 'FAILED',
      reason: 'executor_error',
      error: `task ${run.task_key} runs on the ${run.executor_type} executor but names no image (executor.image of the task, the flow or namespace.yaml) and SVC_DEFAULT_IMAGE is not set`,
      exitCode: null,
    });
    return null;
  }
  const injectRunner = settings.inject_runner ?? true;
  const timeoutMs = prepared.spec.timeout_seconds > 0 ? prepared.spec.timeout_seconds * 1000 : 24 * 3600_000;
  const token = await ctx.engine.runner.signToken(run.id, new Date(ctx.clock.now().getTime() + timeoutMs + TOKEN_GRACE_MS));
  const ex = prepared.execution;
  return {
    run,
    prepared,
    image,
    injectRunner,
    pull: settings.pull ?? 'if_not_present',
    network: settings.network,
    resources: settings.resources ?? {},
    kubernetes: settings.kubernetes ?? {},
    command: [...runnerCommand(injectRunner), 'exec'],
    token,
    env: {
      SVC_SERVER: ctx.config.runnerUrl,
      SVC_TASK_RUN_ID: run.id,
      // Named in the runner's messages (a missing runtime names the image).
      SVC_IMAGE: image,
    },
    labels: {
      [LABELS.managedBy]: MANAGED_BY,
      [LABELS.deployment]: await ctx.engine.dispatch.deploymentId(),
      [LABELS.instance]: labelValue(ctx.instanceId),
      [LABELS.execution]: labelValue(ex.id),
      [LABELS.taskRun]: labelValue(run.id),
      [LABELS.namespace]: labelValue(ex.namespace),
      [LABELS.flow]: labelValue(ex.flow_id ?? ''),
      [LABELS.task]: labelValue(run.task_key),
    },
    name: `svc-${run.id.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`.slice(0, 63).replace(/-+$/, ''),
  };
}

/**
 * Watches that the runner of a started container (or pod) calls the gateway
 * within SVC_RUNNER_CHECKIN_TIMEOUT: a runner given an address it cannot
 * reach (a loopback SVC_RUNNER_URL on a bridge network, a wrong host name)
 * would otherwise leave its run RUNNING for as long as it retries. When the
 * time passes with no call (no runner event, no heartbeat since the claim),
 * the run ends FAILED `executor_error` with an error naming the address,
 * `stop` removes the container, and /readyz's `runner_url` detail says what
 * happened until a later runner of this instance calls in. Returns the
 * function that ends the watch (call it when the container exits, with
 * whether the runner itself reported the run's end: a runner that did
 * reached the gateway, which clears the detail too).
 */
export function watchRunnerCheckIn(ctx: DispatcherContext, run: ClaimedRun, where: string, stop: () => Promise<unknown>): (runnerReported: boolean) => void {
  const limitMs = ctx.config.runnerCheckinTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  let fired = false;
  const check = async () => {
    timer = undefined;
    if (done) return;
    const calledIn = await ctx.engine.dispatch.runnerCalledIn(run.id).catch(() => true);
    if (done || calledIn === undefined) return;
    if (calledIn) {
      ctx.readinessDetail?.('runner_url', '');
      return;
    }
    const url = ctx.config.runnerUrl;
    const error =
      `the runner in ${where} did not call the API gateway within ${Math.round(limitMs / 1000)} s (SVC_RUNNER_CHECKIN_TIMEOUT) ` +
      `at ${url} (SVC_RUNNER_URL): that address must be reachable from inside task containers (a loopback address works only on SVC_DOCKER_NETWORK=host)`;
    ctx.log.warn('a task runner did not call in: check SVC_RUNNER_URL', { task_run_id: run.id, runner_url: url });
    ctx.readinessDetail?.('runner_url', `the runner of task run ${run.id} did not call in within ${Math.round(limitMs / 1000)} s at ${url} (SVC_RUNNER_URL)`);
    fired = true;
    if (await endUnreported(ctx, run, 'executor_error', error)) await stop().catch(() => undefined);
  };
  timer = setTimeout(() => void check(), limitMs);
  timer.unref();
  return (runnerReported) => {
    done = true;
    if (timer) clearTimeout(timer);
    if (runnerReported && !fired) ctx.readinessDetail?.('runner_url', '');
  };
}

/**
 * Ends a run the container did not report (it could not start, or died
 * before its runner delivered the completion). A no-op when the runner
 * already ended it.
 */
export async function endUnreported(ctx: DispatcherContext, run: ClaimedRun, reason: 'image_pull_failed' | 'executor_error' | 'lost', error: string): Promise<boolean> {
  return ctx.engine.runner.complete(run.id, { state: 'FAILED', reason, error, exitCode: null }, { fromTask: true });
}

/**
 * Ends a run whose container (or pod) ended before its runner reported: `lost`
 * when the runner had started the task (the spec's reason for lost work), else
 * `executor_error` (the task never started: the runner could not run, or
 * could not prepare it).
 */
export async function endDied(ctx: DispatcherContext, run: ClaimedRun, error: string): Promise<boolean> {
  return endUnreported(ctx, run, (await ctx.engine.dispatch.taskStarted(run.id)) ? 'lost' : 'executor_error', error);
}

/**
 * A memory quantity in bytes, as Kubernetes reads it (@svc/vocabulary's
 * parser: `1k` is 1000, `1Ki` 1024, a fraction of a byte rounds up), for
 * Docker's `Memory`. Throws on a text the flow schema would have refused.
 */
export function memoryBytes(q: string): number {
  return Number(quantityScaled(quantityOf(q, 'memory'), 0));
}

/** A cpu quantity (`1.5`, `500m`, `1e-3`) in nano CPUs (Docker's NanoCpus), as Kubernetes reads it. */
export function nanoCpus(q: string): number {
  return Number(quantityScaled(quantityOf(q, 'cpu'), 9));
}

function quantityOf(q: string, what: 'cpu' | 'memory'): Quantity {
  const parsed = parseQuantity(q);
  if (!parsed || parsed.nanos < 0n) throw new Error(`not a ${what} quantity: ${q}`);
  return parsed;
}
