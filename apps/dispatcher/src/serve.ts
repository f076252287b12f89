// The dispatcher process: claims queued task runs of its pools (SVC_POOLS)
// for its executors (SVC_EXECUTORS plus the always-on inline executor).
// process and inline are advertised from the start; docker once its engine
// answers (and withdrawn while it does not), kubernetes with a cluster
// configuration (SVC_K8S_API_URL, or in-cluster). With SVC_HEALTH_PORT it
// serves /healthz, /readyz and /metrics (@svc/service).
import os from 'node:os';
import path from 'node:path';
import { describeRegistryAuthEntry } from '@svc/config';
import { Engine } from '@svc/engine';
import { PlatformSecretStore } from '@svc/secrets';
import { ensureRunnerBundle, RUNNER_MOUNT } from '@svc/runner-bundle';
import { registerTaskRunDuration, runService } from '@svc/service';
import { createObjectStore } from '@svc/storage';
import type { DispatcherContext } from './context.js';
import { Dispatcher } from './dispatcher.js';
import { dockerExecutor } from './executors/docker.js';
import { dockerEngineClient } from './executors/docker-engine-client.js';
import { inlineExecutor } from './executors/inline.js';
import { kubeConfigFor, kubernetesExecutor } from './executors/kubernetes.js';
import { processExecutor } from './executors/process.js';
import type { Executor } from './executors/types.js';

await runService({
  kind: 'dispatcher',
  health: true,
  pools: (config) => config.pools,
  // Container executors are advertised by the dispatcher once they can run tasks.
  executors: (config) => ['inline', ...config.executors.filter((e) => e === 'process')],
  async start(svc) {
    const storage = await createObjectStore(svc.config.storage);
    const ctx: DispatcherContext = {
      ...svc,
      storage,
      engine: new Engine({ pool: svc.db.pool, storage, clock: svc.clock, config: svc.config, log: svc.log }),
      heartbeatMs: 10_000,
      // Spec: SIGKILL 10 s after SIGTERM (SVC_KILL_DELAY_MS shortens it for tests).
      killDelayMs: svc.config.killDelayMs,
    };
    // The task runs of the process and inline executors end here (a container's runner reports to the gateway).
    registerTaskRunDuration(svc.metrics, ctx.engine);
    const workRoot = svc.config.workDir || path.join(os.tmpdir(), 'svc-work');
    // The runner injected into containers: built (or found) once, on the first container task that needs it.
    let bundle: ReturnType<typeof ensureRunnerBundle> | undefined;
    const runnerBundle = () =>
      (bundle ??= ensureRunnerBundle({ cacheDir: path.join(workRoot, '.runner-bundles') }).catch((err: unknown) => {
        bundle = undefined;
        throw err;
      }));
    const executors: Executor[] = [inlineExecutor(ctx)];
    if (svc.config.executors.includes('process')) executors.push(processExecutor(ctx));
    if (svc.config.executors.includes('docker')) {
      // Platform secrets: the registry credentials of SVC_DOCKER_REGISTRY_AUTH (docker-registry-auth.ts).
      const credentials = new PlatformSecretStore({ db: ctx.db.pool, keys: svc.config.masterKeys });
      // A secret may be set after the dispatcher starts: said now, refused (image_pull_failed) only when a pull needs it.
      for (const entry of svc.config.dockerRegistryAuth) {
        const problem = await credentials.settingProblem(entry.secret);
        if (problem) svc.log.warn('SVC_DOCKER_REGISTRY_AUTH names a platform secret that cannot be used yet', { entry: describeRegistryAuthEntry(entry), problem });
      }
      executors.push(
        dockerExecutor(ctx, { docker: dockerEngineClient(svc.config.dockerEngine), bundle: runnerBundle, runnerMount: RUNNER_MOUNT, metrics: svc.metrics, credentials }),
      );
    }
    if (svc.config.executors.includes('kubernetes')) {
      const kubeConfig = kubeConfigFor(svc.config);
      if (!kubeConfig) {
        svc.log.warn("kubernetes is in SVC_EXECUTORS but there is no cluster configuration (SVC_K8S_API_URL, or a pod's service account): it is not served");
      } else {
        const b = await runnerBundle();
        executors.push(kubernetesExecutor(ctx, { kubeConfig, runnerArgv: b.argv(RUNNER_MOUNT), runnerImage: svc.config.runnerImage ?? `svc-runner:${b.hash}` }));
      }
    }
    const dispatcher = new Dispatcher(ctx, executors, { metrics: svc.metrics });
    await dispatcher.start();
    return {
      async stop() {
        await dispatcher.stop();
        await storage.close?.();
      },
    };
  },
});
