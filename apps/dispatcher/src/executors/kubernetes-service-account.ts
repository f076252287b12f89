// Which service account a task pod may run as. The dispatcher's own account
// can create Jobs and read pods (and with them every other task's run token
// in its environment): a task running as it could take over the platform.
// So a flow's `executor.kubernetes.service_account` is accepted only when the
// operator lists it in SVC_K8S_SERVICE_ACCOUNTS for the flow's namespace (an
// entry whose prefix covers it, or the flat form: every namespace; see
// @svc/config namespace-allowlist.ts), and never when it is one of
// the dispatcher's own accounts, even if listed (config parse refuses a listed
// SVC_K8S_DISPATCHER_SERVICE_ACCOUNT; the names read from tokens here are
// known only at run time). Names are compared without their namespace: the
// same name in the task namespace is refused too, which costs nothing.
import fs from 'node:fs';
import path from 'node:path';
import { allowedIn, type Config, type NamespaceAllowlist } from '@svc/config';

/** Where Kubernetes mounts a pod's service account files. */
export const IN_CLUSTER_SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The service account name a Kubernetes service account token (a JWT) is for:
 * its `sub` claim, `system:serviceaccount:<namespace>:<name>`. Undefined for
 * anything else (an OIDC user's token, not a JWT).
 */
export function serviceAccountOfToken(token: string): string | undefined {
  const payload = token.trim().split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown };
    const m = typeof claims.sub === 'string' ? /^system:serviceaccount:[^:]+:([^:]+)$/.exec(claims.sub) : null;
    return m?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Every name of the dispatcher's own service account: the configured one
 * (SVC_K8S_DISPATCHER_SERVICE_ACCOUNT), the account of SVC_K8S_TOKEN, and in
 * a pod the account of its mounted token. `saDir`: where to look for the
 * mounted token (tests).
 */
export function dispatcherServiceAccounts(config: Pick<Config, 'k8sDispatcherServiceAccount' | 'k8sToken'>, saDir = IN_CLUSTER_SA_DIR): string[] {
  const names = new Set([config.k8sDispatcherServiceAccount]);
  const fromToken = config.k8sToken && serviceAccountOfToken(config.k8sToken);
  if (fromToken) names.add(fromToken);
  try {
    const mounted = serviceAccountOfToken(fs.readFileSync(path.join(saDir, 'token'), 'utf8'));
    if (mounted) names.add(mounted);
  } catch {
    // Not in a pod, or no token mounted.
  }
  return [...names];
}

/**
 * Why a task of `namespace` may not run as the service account its flow
 * names, or null when it may. Null too when the flow names none (the task
 * service account, whose token is not mounted).
 */
export function serviceAccountRefusal(requested: string | undefined, namespace: string, allowlist: NamespaceAllowlist, own: readonly string[]): string | null {
  if (requested === undefined) return null;
  if (own.includes(requested)) {
    return `the service account ${requested} is the dispatcher's own (SVC_K8S_DISPATCHER_SERVICE_ACCOUNT, or the account of its token): no task may run as it, whatever SVC_K8S_SERVICE_ACCOUNTS lists`;
  }
  const allowed = allowedIn(allowlist, namespace);
  if (!allowed.includes(requested)) {
    const listed = allowed.length ? `for namespace ${namespace} it lists ${allowed.join(', ')}` : `it lists none for namespace ${namespace}`;
    return `the service account ${requested} is not allowed in namespace ${namespace}: an operator must list it in SVC_K8S_SERVICE_ACCOUNTS for a prefix of ${namespace} (${listed})`;
  }
  return null;
}
