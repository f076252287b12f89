// The credential a docker task's image is pulled with (SVC_DOCKER_REGISTRY_AUTH,
// @svc/config registry-auth.ts): the platform secret of the entry that covers
// the image and serves the task's namespace, read when the pull happens (a
// rotated secret is used by the next pull), as the engine's authconfig. The
// value never leaves this module but in that authconfig: every message here
// names the secret, the registry and the image, never what the secret holds.
//
// The namespace boundary: Docker keeps one image store per engine, so an
// image a served namespace pulled would be present for any other. A task of
// a namespace that no covering entry serves therefore always pulls, and
// anonymously: the registry, not the local copy, decides (pull `never`
// cannot, and fails).
import { describeRegistryAuthEntry, imageLocation, registryAuthFor, type RegistryAuthEntry } from '@svc/config';

/** What reads platform secrets (@svc/secrets' PlatformSecretStore). */
export interface PlatformCredentials {
  /** @throws when there is no such secret or it cannot be opened. */
  read(name: string): Promise<string>;
}

/** The Docker Engine's X-Registry-Auth content, as dockerode's `authconfig`. */
export interface AuthConfig {
  username: string;
  password: string;
  serveraddress: string;
}

/** How to pull one image for one namespace. */
export interface PullPlan {
  /** The credential; absent: anonymous. */
  authconfig?: AuthConfig;
  /** The entry the credential comes from. */
  entry?: RegistryAuthEntry;
  /** Entries that cover the image but serve other namespaces: the pull is anonymous and must happen even if the image is present. */
  unserved: RegistryAuthEntry[];
  /** The image's registry host (docker.io for Docker Hub). */
  registry: string;
}

/** A credential that cannot be used: its message names the secret and the setting, never the value. */
export class RegistryCredentialError extends Error {
  override readonly name = 'RegistryCredentialError';
}

/** Where the engine sends Docker Hub credentials. */
const DOCKER_HUB_AUTH = 'https://index.docker.io/v1/';

/**
 * The pull of `image` for a task of `namespace`.
 * @throws RegistryCredentialError when the entry's platform secret is missing, cannot be opened or is not username:password.
 */
export async function pullPlan(entries: readonly RegistryAuthEntry[], credentials: PlatformCredentials | undefined, image: string, namespace: string): Promise<PullPlan> {
  const { registry } = imageLocation(image);
  const { entry, unserved } = registryAuthFor(entries, image, namespace);
  if (!entry) return { unserved, registry };
  const where = `the platform secret ${entry.secret} that SVC_DOCKER_REGISTRY_AUTH names for ${describeRegistryAuthEntry(entry)}`;
  if (!credentials) throw new RegistryCredentialError(`${where} cannot be read: this dispatcher has no platform secret store`);
  let value: string;
  try {
    value = await credentials.read(entry.secret);
  } catch (err) {
    // The store's errors name the secret or the key id only (PlatformSecretNotFoundError, MasterKeyMissingError, SecretDecryptError).
    const reason = (err as { reason?: string }).reason;
    const why =
      reason === 'platform_secret_not_found'
        ? `does not exist: set it (svc platform-secret set ${entry.secret}, or PUT /api/v1/platform-secrets/${entry.secret})`
        : `cannot be opened (${reason ?? (err as Error).name}): check SVC_MASTER_KEYS`;
    throw new RegistryCredentialError(`${where} ${why}`);
  }
  const colon = value.indexOf(':');
  if (colon <= 0) throw new RegistryCredentialError(`${where} does not hold username:password`);
  return {
    authconfig: { username: value.slice(0, colon), password: value.slice(colon + 1), serveraddress: entry.registry === 'docker.io' ? DOCKER_HUB_AUTH : entry.registry },
    entry,
    unserved: [],
    registry,
  };
}

/** What a failed pull's message adds about the credential it used, or did not (no value, only names). */
export function pullCredentialNote(plan: PullPlan, namespace: string): string {
  if (plan.entry) return `with the credential of platform secret ${plan.entry.secret} (SVC_DOCKER_REGISTRY_AUTH ${describeRegistryAuthEntry(plan.entry)})`;
  if (plan.unserved.length) {
    // Which namespaces are served is the operator's business, not this flow's: not listed.
    return `anonymously (SVC_DOCKER_REGISTRY_AUTH serves the credential of this image to other namespaces, not to namespace ${namespace})`;
  }
  return 'anonymously (SVC_DOCKER_REGISTRY_AUTH has no credential for this image)';
}
