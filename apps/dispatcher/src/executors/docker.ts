// The docker executor: one container per task run, through the Docker Engine
// API (dockerode). The container runs `svc exec`, which reports to the
// gateway like any runner (container-task.ts); this executor pulls the image
// per its pull policy, creates and starts the container, waits for it, stops
// it on cancel (SIGTERM, SIGKILL after the kill delay), ends the run itself
// when the container could not start or died unreported, and removes the
// container and its volumes.
//
// Runner injection: the runner bundle (node, its loader and libraries, the
// runner code: @svc/runner-bundle) is copied once per bundle version into a
// named volume `svc-runner-v2-<hash>` that every task container mounts
// read-only at /.svc-runner, so a task needs nothing from its image but the
// runtime tool it names; it is filled through an image the dispatcher makes,
// never a task's (docker-runner-volume.ts). The run's own files live in an
// anonymous volume mounted at /.svc-work, removed with the container.
// Once its runner volume is ready, and then every STALE_VOLUMES_MS, the
// executor removes the runner volumes of other runner versions that no
// container mounts (counted in svc_dispatcher_runner_volumes_removed_total);
// not while a dispatcher of another build version is online (a rolling
// upgrade: an older dispatcher between tasks would find its volume gone;
// one of this version or later then fills it again, an older one cannot).
//
// Isolation (docker-task-network.ts): a task runs on SVC_DOCKER_NETWORK
// (default the svc-tasks bridge network, created when missing) or on a
// network its flow names that SVC_DOCKER_NETWORKS lists for its namespace, else it fails
// executor_error before any container exists; every container runs with
// no-new-privileges, without DROPPED_CAPABILITIES (NET_RAW...), and at most
// SVC_DOCKER_PIDS_LIMIT processes.
//
// The run token reaches the runner as a file, /.svc-token/token, mode 0400
// and owned by the container's user, written before the container starts
// and removed by the runner once read (docker-run-token.ts): never in the
// container's environment.
//
// Containers carry labels naming the instance, execution, task run,
// namespace and flow. At start, the executor removes the containers of
// dispatchers that are gone whose task run has ended, and adopts those whose
// run is still RUNNING (their runner keeps reporting): it waits for them and
// removes them after, as it does its own.
import type { Readable } from 'node:stream';
import Docker from 'dockerode';
import client from 'prom-client';
import { listInstances, type InstanceRow } from '@svc/db';
import type { ClaimedRun } from '@svc/engine';
import type { DispatcherContext } from '../context.js';
import { containerTaskOf, endDied, endUnreported, LABELS, MANAGED_BY, memoryBytes, nanoCpus, SVC_ON_PATH, type ContainerTask, watchRunnerCheckIn } from './container-task.js';
import { RunnerVolumes, runnerMount, runnerVolumeName, type RunnerBundleLike } from './docker-runner-volume.js';
import { engineUnavailableReason } from './docker-engine-client.js';
import { putRunToken, TOKEN_FILE } from './docker-run-token.js';
import { pullCredentialNote, pullPlan, RegistryCredentialError, type PlatformCredentials, type PullPlan } from './docker-registry-auth.js';
import { DEFAULT_TASK_NETWORK, DROPPED_CAPABILITIES, ensureTaskNetwork, isLoopbackUrl, taskNetwork } from './docker-task-network.js';
import type { Executor } from './types.js';

export type { RunnerBundleLike };

/** Where the run's working directories live inside the container (an anonymous volume). */
export const WORK_MOUNT = '/.svc-work';
/** How often the engine's health is checked (a dispatcher advertises docker only while it answers). */
export const PING_MS = 5_000;
/** How often containers left by dead dispatchers are looked for (and once at start). */
export const SWEEP_MS = 10_000;
/** An exited container whose run ended is a leftover after this long (its dispatcher removes it within milliseconds). */
const LEFTOVER_AFTER_MS = 10_000;
/** How often the runner volumes of other runner versions are removed (and once when this dispatcher's own is ready). */
export const STALE_VOLUMES_MS = 60 * 60_000;

export interface DockerExecutorOptions {
  docker: Docker;
  /** The runner bundle, made on first use (building it takes seconds; only docker tasks with inject_runner need it). */
  bundle: () => Promise<RunnerBundleLike>;
  /** Where the bundle is mounted in task containers. */
  runnerMount: string;
  /** Health checks period; default PING_MS. */
  pingMs?: number;
  /** Period of the removal of other runner versions' volumes; default STALE_VOLUMES_MS. */
  staleVolumesMs?: number;
  /** The process's Prometheus registry (served at /metrics): the executor's counters are added to it. */
  metrics?: client.Registry;
  /** Platform secrets, read for the credentials SVC_DOCKER_REGISTRY_AUTH names (docker-registry-auth.ts); absent: a pull that needs one fails. */
  credentials?: PlatformCredentials;
}

/** The message of a Docker Engine error (its JSON body's `message`), else the error's. */
function engineMessage(err: unknown): string {
  const e = err as { json?: { message?: string }; reason?: string; message?: string };
  return e?.json?.message ?? e?.message ?? String(err);
}

function statusOf(err: unknown): number | undefined {
  return (err as { statusCode?: number })?.statusCode;
}

export class ImagePullError extends Error {
  override readonly name = 'ImagePullError';
}

/**
 * Why other runner versions' volumes must stay for now, if they must: an
 * online dispatcher of another build version than `self` (its runner volume
 * must be there for its next task), or no row of `self` to tell its version.
 */
export function keepOtherVersions(instances: InstanceRow[], self: string): string | undefined {
  const dispatchers = instances.filter((i) => i.kind === 'dispatcher' && i.online);
  const own = dispatchers.find((i) => i.id === self);
  if (!own) return 'this dispatcher has no online instance row to tell its version by';
  const other = dispatchers.find((i) => i.version !== own.version);
  return other && `dispatcher ${other.id} of version ${other.version} is online (this one is ${own.version})`;
}

export function dockerExecutor(ctx: DispatcherContext, opts: DockerExecutorOptions): Executor & { ready(): Promise<void>; removeStaleVolumes(): Promise<void> } {
  const { docker } = opts;
  let healthy = false;
  let closed = false;
  const adopted = new Set<string>();
  const runnerVolumes = new RunnerVolumes(docker, opts.runnerMount);
  const volumesRemoved = opts.metrics
    ? new client.Counter({
        name: 'svc_dispatcher_runner_volumes_removed_total',
        help: 'Runner volumes of other runner versions removed from the Docker engine',
        registers: [opts.metrics],
      })
    : undefined;
  /** This dispatcher's runner bundle, once its volume is ready: other versions' volumes are removed from then on. */
  let currentBundle: RunnerBundleLike | undefined;
  let removingStale: Promise<void> | undefined;
  // Made once, on the first task that runs on it; a failure is tried again by the next task.
  let taskNetworkReady: Promise<void> | undefined;
  const ensureNetwork = () =>
    (taskNetworkReady ??= ensureTaskNetwork(docker, ctx.config.dockerNetworkInternal).catch((err: unknown) => {
      taskNetworkReady = undefined;
      throw err;
    }));
  if (ctx.config.dockerNetwork !== 'host' && isLoopbackUrl(ctx.config.runnerUrl)) {
    ctx.log.warn('SVC_RUNNER_URL is a loopback address, which docker tasks on a network other than host cannot reach: set it to an address of the gateway their network reaches', {
      runner_url: ctx.config.runnerUrl,
      network: ctx.config.dockerNetwork,
    });
  }

  /**
   * Why the engine did not answer the last ping (a TLS refusal, a refused
   * connection): logged when it changes, and shown under /readyz's
   * details.docker_executor until the engine answers.
   */
  let unavailable: string | undefined;
  async function ping(): Promise<boolean> {
    try {
      await docker.ping();
      if (unavailable !== undefined) ctx.readinessDetail?.('docker_executor', '');
      unavailable = undefined;
      return true;
    } catch (err) {
      const reason = engineUnavailableReason(err);
      if (reason !== unavailable) {
        if (healthy === false) ctx.log.warn('the Docker engine does not answer; docker is not advertised until it does', { reason });
        ctx.readinessDetail?.('docker_executor', `not advertised, the Docker engine does not answer: ${reason}`);
      }
      unavailable = reason;
      return false;
    }
  }
  const pingTimer = setInterval(() => {
    void ping().then((ok) => {
      if (ok !== healthy)
        ctx.log[ok ? 'info' : 'warn'](
          ok ? 'the Docker engine answers again' : 'the Docker engine does not answer; docker is not advertised until it does',
          ok ? {} : { reason: unavailable },
        );
      healthy = ok;
    });
  }, opts.pingMs ?? PING_MS);
  pingTimer.unref();

  /**
   * Pulls `image` per the policy, with the credential SVC_DOCKER_REGISTRY_AUTH
   * gives `namespace` for it (docker-registry-auth.ts). An image whose
   * credential serves only other namespaces is always pulled, anonymously.
   * Throws ImagePullError with the engine's message, never a credential.
   */
  async function ensureImage(image: string, pull: ContainerTask['pull'], namespace: string): Promise<void> {
    let plan: PullPlan;
    try {
      plan = await pullPlan(ctx.config.dockerRegistryAuth, opts.credentials, image, namespace);
    } catch (err) {
      if (err instanceof RegistryCredentialError) throw new ImagePullError(`pulling image ${image} failed: ${err.message}`);
      throw err;
    }
    const guarded = plan.unserved.length > 0;
    if (guarded && pull === 'never') {
      throw new ImagePullError(
        `image ${image} cannot be used with pull policy never: this namespace must pull it from ${plan.registry} whether or not the engine has it, ${pullCredentialNote(plan, namespace)}`,
      );
    }
    let present = true;
    if (pull !== 'always' && !guarded) {
      try {
        await docker.getImage(image).inspect();
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
        present = false;
      }
      if (present) return;
      if (pull === 'never') throw new ImagePullError(`image ${image} is not present on the Docker engine and its pull policy is never`);
    }
    try {
      const stream = (await docker.pull(image, plan.authconfig ? { authconfig: plan.authconfig } : {})) as Readable;
      await new Promise<void>((resolve, reject) =>
        docker.modem.followProgress(stream, (err: Error | null, events: { error?: string; errorDetail?: { message?: string } }[]) => {
          const failed = events?.find((e) => e.error || e.errorDetail);
          if (err || failed) reject(new Error(err ? engineMessage(err) : (failed!.errorDetail?.message ?? failed!.error)));
          else resolve();
        }),
      );
    } catch (err) {
      // Registries do not echo a password, but the message reaches flows: take it out should one ever do.
      const secret = plan.authconfig?.password;
      const said = secret ? engineMessage(err).split(secret).join('[redacted]') : engineMessage(err);
      throw new ImagePullError(`pulling image ${image} from ${plan.registry} ${pullCredentialNote(plan, namespace)} failed: ${said}`);
    }
  }

  /** Waits for a container to exit; stops it (grace: the kill delay) when `signal` aborts. Returns its exit code. */
  async function waitFor(container: Docker.Container, signal: AbortSignal | null): Promise<number> {
    const onAbort = () => void container.stop({ t: Math.ceil(ctx.killDelayMs / 1000) }).catch(() => undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal?.aborted) onAbort();
      const r = (await container.wait()) as { StatusCode: number };
      return r.StatusCode;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The last lines the container printed (the runner's own messages), for an unreported end. */
  async function tail(container: Docker.Container): Promise<string> {
    try {
      const buf = await container.logs({ stdout: true, stderr: true, tail: 5, follow: false });
      return demux(buf).trim().split('\n').slice(-5).join(' | ');
    } catch {
      return '';
    }
  }

  /** After the container exited: ends the run if its runner did not, then removes the container and its anonymous volumes. Whether it ended the run. */
  async function finish(container: Docker.Container, run: ClaimedRun, exitCode: number, image: string): Promise<boolean> {
    try {
      const last = await tail(container);
      return await endDied(ctx, run, `the container of image ${image} exited with code ${exitCode} before its runner reported an end${last ? `: ${last}` : ''}`);
    } finally {
      await container.remove({ force: true, v: true }).catch((err: unknown) => ctx.log.warn('cannot remove a task container', { err, task_run_id: run.id }));
    }
  }

  /**
   * Removes what no dispatcher will: a container that exited more than
   * LEFTOVER_AFTER_MS ago whose run has ended (its dispatcher died before
   * removing it), and a container of an offline dispatcher whose run has
   * ended. A running container of an offline dispatcher whose run is still
   * RUNNING is adopted: its runner keeps reporting; we wait for it and remove
   * it after, as we do our own.
   */
  async function sweepLeftovers(): Promise<void> {
    // Only this deployment's: another one may share the engine.
    const label = [`${LABELS.managedBy}=${MANAGED_BY}`, `${LABELS.deployment}=${await ctx.engine.dispatch.deploymentId()}`, LABELS.taskRun];
    const containers = await docker.listContainers({ all: true, filters: { label } });
    if (!containers.length) return;
    const online = new Set((await listInstances(ctx.db.pool)).filter((i) => i.online).map((i) => i.id));
    online.add(ctx.instanceId);
    const running = new Set(await ctx.engine.dispatch.stillRunning(containers.map((c) => c.Labels[LABELS.taskRun])));
    for (const c of containers) {
      const runId = c.Labels[LABELS.taskRun];
      const ended = !running.has(runId);
      const ownerOnline = online.has(c.Labels[LABELS.instance] ?? '');
      const container = docker.getContainer(c.Id);
      let remove = false;
      if (c.State !== 'running') {
        if (!ended && ownerOnline) continue;
        const finishedAt = Date.parse((await container.inspect().catch(() => null))?.State?.FinishedAt ?? '') || 0;
        remove = !ownerOnline || Date.now() - finishedAt > LEFTOVER_AFTER_MS;
      } else if (!ownerOnline) {
        remove = ended;
        if (!remove && !adopted.has(c.Id)) adopt(container, c, runId);
      }
      if (!remove) continue;
      ctx.log.info('removing a task container left by a dispatcher', { container: c.Id, task_run_id: runId });
      await container.remove({ force: true, v: true }).catch((err: unknown) => ctx.log.warn('cannot remove a leftover container', { err, container: c.Id }));
    }
  }

  function adopt(container: Docker.Container, c: Docker.ContainerInfo, runId: string): void {
    adopted.add(c.Id);
    ctx.log.info('adopting the running container of a stopped dispatcher', { container: c.Id, task_run_id: runId });
    const run = { id: runId, execution_id: c.Labels[LABELS.execution] ?? '', task_key: c.Labels[LABELS.task] ?? '', task_type: '', executor_type: 'docker', pool: '', attempt: 0 };
    void waitFor(container, null)
      .then((code) => finish(container, run, code, c.Image))
      .catch((err: unknown) => ctx.log.warn('an adopted container failed', { err, container: c.Id }))
      .finally(() => adopted.delete(c.Id));
  }
  const sweepTimer = setInterval(() => {
    if (healthy) void sweepLeftovers().catch((err: unknown) => ctx.log.warn('cannot sweep leftover containers', { err }));
  }, SWEEP_MS);
  sweepTimer.unref();

  /** Removes the runner volumes of other versions that no container mounts, once this dispatcher's is ready (one pass at a time, off the tasks' path; a call during a pass waits for it). */
  function removeStaleVolumes(): Promise<void> {
    const bundle = currentBundle;
    if (!bundle || closed) return Promise.resolve();
    return (removingStale ??= (async () => {
      const keep = keepOtherVersions(await listInstances(ctx.db.pool), ctx.instanceId);
      if (keep) {
        ctx.log.info('runner volumes of other versions are kept for now', { reason: keep });
        return;
      }
      const pass = await runnerVolumes.removeStale(bundle, ({ name, bundle: hash }) => {
        ctx.log.info('removed the runner volume of another runner version', { volume: name, runner_bundle: hash });
        volumesRemoved?.inc();
      });
      if (pass.inUse.length) ctx.log.info('runner volumes of other versions are still mounted by containers: kept until a later pass', { volumes: pass.inUse });
    })()
      .catch((err: unknown) => {
        ctx.log.warn('cannot remove the runner volumes of other versions', { err });
      })
      .finally(() => (removingStale = undefined)));
  }
  const staleTimer = setInterval(() => {
    if (healthy) void removeStaleVolumes();
  }, opts.staleVolumesMs ?? STALE_VOLUMES_MS);
  staleTimer.unref();

  return {
    type: 'docker',
    available: () => healthy && !closed,
    async ready() {
      healthy = await ping();
      if (healthy) await sweepLeftovers().catch((err: unknown) => ctx.log.warn('cannot sweep leftover containers', { err }));
    },
    close() {
      closed = true;
      clearInterval(pingTimer);
      clearInterval(sweepTimer);
      clearInterval(staleTimer);
    },
    removeStaleVolumes,
    async run(run: ClaimedRun, signal: AbortSignal) {
      const task = await containerTaskOf(ctx, run, (inject) => (inject ? [] : SVC_ON_PATH));
      if (!task) return;
      const net = taskNetwork(task.network, task.prepared.execution.namespace, ctx.config);
      if ('refused' in net) {
        await endUnreported(ctx, run, 'executor_error', `task ${run.task_key} cannot run on the docker executor: ${net.refused}`);
        return;
      }
      if (net.network === DEFAULT_TASK_NETWORK && ctx.config.dockerNetwork === DEFAULT_TASK_NETWORK) {
        try {
          await ensureNetwork();
        } catch (err) {
          await endUnreported(ctx, run, 'executor_error', `cannot use the task network ${DEFAULT_TASK_NETWORK} (SVC_DOCKER_NETWORK): ${engineMessage(err)}`);
          return;
        }
      }
      try {
        await ensureImage(task.image, task.pull, task.prepared.execution.namespace);
      } catch (err) {
        if (!(err instanceof ImagePullError)) throw err;
        await endUnreported(ctx, run, 'image_pull_failed', err.message);
        return;
      }
      const mounts: Docker.MountSettings[] = [{ Type: 'volume', Target: WORK_MOUNT } as Docker.MountSettings];
      let command = task.command;
      let bundle: RunnerBundleLike | undefined;
      if (task.injectRunner) {
        bundle = await opts.bundle();
        mounts.push(runnerMount(await runnerVolumes.volumeFor(bundle), opts.runnerMount, bundle.hash));
        command = [...bundle.argv(opts.runnerMount), ...task.command];
        if (!currentBundle) {
          currentBundle = bundle;
          void removeStaleVolumes();
        }
      }
      const limits = task.resources.limits ?? {};
      const create = () =>
        docker.createContainer({
          name: task.name,
          Image: task.image,
          Entrypoint: command,
          Cmd: [],
          Env: Object.entries({ ...task.env, SVC_RUN_TOKEN_FILE: TOKEN_FILE, SVC_WORK_ROOT: WORK_MOUNT }).map(([k, v]) => `${k}=${v}`),
          WorkingDir: WORK_MOUNT,
          Labels: task.labels,
          HostConfig: {
            // The runner reaches the gateway at SVC_RUNNER_URL; only on the host network does a loopback URL work.
            NetworkMode: net.network,
            SecurityOpt: ['no-new-privileges'],
            CapDrop: DROPPED_CAPABILITIES,
            PidsLimit: ctx.config.dockerPidsLimit,
            Mounts: mounts,
            ...(limits.memory ? { Memory: memoryBytes(limits.memory) } : {}),
            ...(limits.cpu ? { NanoCpus: nanoCpus(limits.cpu) } : {}),
          },
        });
      let container: Docker.Container | undefined;
      try {
        container = await create();
        // Once created, the container holds the runner volume: no removal can take it now. But it may have
        // gone before (removed as another version's by a newer dispatcher while we had no task), and Docker
        // then made an empty one for this mount: fill it again.
        if (bundle && !(await runnerVolumes.holdsRunner(container))) {
          ctx.log.warn('the runner volume was removed since it was filled: filling it again', { volume: runnerVolumeName(bundle), task_run_id: run.id });
          await container.remove({ force: true, v: true });
          container = undefined;
          runnerVolumes.forget(bundle);
          await runnerVolumes.volumeFor(bundle);
          container = await create();
          if (!(await runnerVolumes.holdsRunner(container))) throw new Error(`the runner volume ${runnerVolumeName(bundle)} is empty after it was filled`);
        }
        // The token as a file of the container's user, never in its environment (docker-run-token.ts).
        await putRunToken(container, task.token);
      } catch (err) {
        await container?.remove({ force: true, v: true }).catch(() => undefined);
        await endUnreported(ctx, run, 'executor_error', `creating the container of image ${task.image} failed: ${engineMessage(err)}`);
        return;
      }
      try {
        await container.start();
      } catch (err) {
        await container.remove({ force: true, v: true }).catch(() => undefined);
        await endUnreported(ctx, run, 'executor_error', `starting the container of image ${task.image} failed: ${engineMessage(err)}`);
        return;
      }
      // A runner that cannot reach the gateway ends here, not after its retries (container-task.ts).
      const unwatch = watchRunnerCheckIn(ctx, run, `the container of image ${task.image}`, () => container.kill());
      let ended = true;
      try {
        const code = await waitFor(container, signal);
        ended = await finish(container, run, code, task.image);
      } finally {
        unwatch(!ended);
      }
    },
  };
}

/** Docker's multiplexed log frames (8-byte header: stream, 0, 0, 0, size) to text. */
function demux(buf: Buffer): string {
  const out: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    out.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return i === 0 ? buf.toString('utf8') : Buffer.concat(out).toString('utf8');
}
