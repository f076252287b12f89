// The executors a test can run flows on, each with the stack environment it
// needs, or the reason it cannot run here: process always; docker on the
// test run's Docker engine (images built from this machine's files);
// kubernetes on the local stand-in of the Kubernetes API, whose kubelet runs
// pods on that same engine.
import { ensureTestImages, testDocker } from '@svc/container-testing';
import { startStandin } from '@svc/k8s-standin';

export interface ExecutorTarget {
  type: 'process' | 'docker' | 'kubernetes';
  /** Why it cannot run here; absent when it can. */
  skip?: string;
  /** Stack environment (dispatcher settings). */
  env: Record<string, string>;
  /** The image tasks run in (container executors). */
  image?: string;
  close?(): Promise<void>;
}

export async function executorTargets(): Promise<ExecutorTarget[]> {
  const targets: ExecutorTarget[] = [{ type: 'process', env: {} }];
  const d = testDocker();
  if ('skip' in d) {
    targets.push({ type: 'docker', skip: d.skip, env: {} }, { type: 'kubernetes', skip: d.skip, env: {} });
    return targets;
  }
  const images = await ensureTestImages(d.docker);
  // The test engine has no bridge network (--bridge=none), and none is created here: tasks on the host's.
  targets.push({ type: 'docker', env: { SVC_DOCKER_HOST: d.host, SVC_DOCKER_NETWORK: 'host', SVC_DOCKER_NETWORKS: 'host' }, image: images.debian });
  // The stand-in's kubelet runs the pods on the same engine: the runner image is there already.
  const standin = await startStandin({ docker: d.docker, namespaces: ['default'], backOffMs: 200 });
  targets.push({
    type: 'kubernetes',
    env: { SVC_K8S_API_URL: standin.url, SVC_K8S_TOKEN: standin.token, SVC_K8S_NAMESPACE: 'default', SVC_RUNNER_IMAGE: images.runner },
    image: images.debian,
    close: () => standin.close(),
  });
  return targets;
}
