// Image references as the kubelet reads them (distribution/reference's
// grammar) and the pull decisions it takes. The stand-in reaches no image
// registry: an image runs only when the local Docker engine already holds it.
import type Docker from 'dockerode';

const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const DOMAIN_PART = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_PART}(?:\\.${DOMAIN_PART})*|\\[[0-9a-fA-F:]+\\])(?::[0-9]+)?`;
const REFERENCE = new RegExp(
  `^(?:(${DOMAIN})/)?(${COMPONENT}(?:/${COMPONENT})*)(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$`,
);

/** The fully qualified reference (`docker.io/library/debian:latest`), or null for a malformed one. */
export function qualifiedImage(image: string): string | null {
  const m = REFERENCE.exec(image);
  if (!m) return null;
  let domain: string | undefined = m[1];
  let path = m[2];
  const [, , , tag, digest] = m;
  // As the Docker CLI splits it: a first component is a registry only with a dot, a port, or "localhost".
  if (domain && !/[.:]/.test(domain) && domain !== 'localhost' && domain.toLowerCase() === domain) {
    path = `${domain}/${path}`;
    domain = undefined;
  }
  if (!domain) {
    domain = 'docker.io';
    if (!path.includes('/')) path = `library/${path}`;
  }
  return `${domain}/${path}${digest ? `@${digest}` : `:${tag ?? 'latest'}`}`;
}

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/** A container's image outcome: ready to run, or the waiting reason and message the kubelet reports. */
export type ImageCheck = { ok: true; imageId: string } | { ok: false; reason: 'InvalidImageName' | 'ErrImageNeverPull' | 'ErrImagePull'; message: string };

export async function checkImage(docker: Docker, image: string, policy: PullPolicy, registryError: string): Promise<ImageCheck> {
  const fq = qualifiedImage(image);
  if (!fq)
    return { ok: false, reason: 'InvalidImageName', message: `Failed to apply default image tag "${image}": couldn't parse image name "${image}": invalid reference format` };
  let imageId: string | null = null;
  try {
    imageId = ((await docker.getImage(image).inspect()) as { Id: string }).Id;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw err;
  }
  if (policy === 'Never') {
    return imageId ? { ok: true, imageId } : { ok: false, reason: 'ErrImageNeverPull', message: `Container image "${image}" is not present with pull policy of Never` };
  }
  // IfNotPresent runs a present image; Always asks the registry first, and there is none.
  if (policy === 'IfNotPresent' && imageId) return { ok: true, imageId };
  return {
    ok: false,
    reason: 'ErrImagePull',
    message: `Failed to pull image "${image}": rpc error: code = Unknown desc = failed to pull and unpack image "${fq}": failed to resolve reference "${fq}": ${registryError}`,
  };
}
