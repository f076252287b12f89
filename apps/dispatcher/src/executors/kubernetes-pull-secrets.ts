// Which image pull secrets a task pod may use. A pull secret in the task
// namespace (SVC_K8S_NAMESPACE) lets a pod pull whatever its registry account
// can read: team-a's private images must not be pulled by a flow of team-b
// that names team-a's secret. So a flow's
// `executor.kubernetes.image_pull_secrets` are accepted only when the
// operator lists each in SVC_K8S_IMAGE_PULL_SECRETS for the flow's namespace
// (an entry whose prefix covers it, or the flat form: every namespace; see
// @svc/config namespace-allowlist.ts), the rule of SVC_K8S_SERVICE_ACCOUNTS
// and of the docker executor's SVC_DOCKER_REGISTRY_AUTH.
import { allowedIn, type NamespaceAllowlist } from '@svc/config';

/** Why a task of `namespace` may not use the pull secrets its flow names, or null when it may (or names none). */
export function imagePullSecretsRefusal(requested: readonly string[] | undefined, namespace: string, allowlist: NamespaceAllowlist): string | null {
  if (!requested?.length) return null;
  const allowed = allowedIn(allowlist, namespace);
  const refused = requested.filter((name) => !allowed.includes(name));
  if (!refused.length) return null;
  const listed = allowed.length ? `for namespace ${namespace} it lists ${allowed.join(', ')}` : `it lists none for namespace ${namespace}`;
  const which = refused.length === 1 ? `the image pull secret ${refused[0]} is` : `the image pull secrets ${refused.join(', ')} are`;
  return `${which} not allowed in namespace ${namespace}: an operator must list it in SVC_K8S_IMAGE_PULL_SECRETS for a prefix of ${namespace} (${listed})`;
}
