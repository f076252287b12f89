// The address guard of http tasks. An http task is sent by the dispatcher
// itself, from inside the deployment's network: in infra/compose.yaml beside
// PostgreSQL and the object store, in a cluster beside the metadata address.
// So, unless SVC_HTTP_TASK_ALLOW_PRIVATE_TARGETS, every connection of an http
// task goes through one agent whose lookup (@svc/net-guard guardedLookup)
// resolves the host once, refuses it when any address is not public and not
// listed in SVC_HTTP_TASK_ALLOWED_HOSTS, and connects to the checked address;
// a literal address is checked before each hop (redirects.ts). A refusal
// fails the task run http_error naming the host, the address and why.
import type { Config } from '@svc/config';
import { guardedLookup, type Resolve, systemResolve, type TargetPolicy } from '@svc/net-guard';
import { Agent } from 'undici';

/** What a refusal names: the settings that would allow the target. */
export const HTTP_TASK_SETTINGS =
  'http tasks reach public addresses only, unless SVC_HTTP_TASK_ALLOW_PRIVATE_TARGETS is true or SVC_HTTP_TASK_ALLOWED_HOSTS lists the host or its range';

export interface HttpTaskGuard {
  policy: TargetPolicy;
  /** The agent every http task connects through. */
  agent: Agent;
}

/** The guard of `config` (its `resolve` replaceable in tests). */
export function httpTaskGuard(config: Pick<Config, 'httpTaskAllowPrivateTargets' | 'httpTaskAllowedHosts'>, resolve: Resolve = systemResolve): HttpTaskGuard {
  const policy: TargetPolicy = { allowPrivate: config.httpTaskAllowPrivateTargets, allowed: config.httpTaskAllowedHosts, setting: HTTP_TASK_SETTINGS };
  return { policy, agent: new Agent({ connect: { lookup: guardedLookup(policy, resolve) } }) };
}
