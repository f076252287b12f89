// TEMPORARY shim until @svc/container-testing lands from h-bundle.
import Dockerode from 'dockerode';
export function testDocker(): { docker: Dockerode; host: string } | { skip: string } {
  const h = process.env.SVC_TEST_DOCKER_HOST ?? process.env.DOCKER_HOST;
  if (!h) return { skip: 'no docker' };
  return { docker: new Dockerode({ socketPath: h.replace('unix://', '') }), host: h };
}
export async function ensureTestImages(_d: Dockerode) {
  return { busybox: 'local/busybox:1', debian: 'local/busybox:1', musl: 'local/busybox:1', withSvc: 'x', runner: 'svc-dev/runner:623bcbf058bd5d22' };
}
