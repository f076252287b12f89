// Which network a docker task runs on, and what else its container may do.
//
// A task's network decides what it can reach: `host` gives it every port of
// the host's loopback (the gateway's, PostgreSQL's, the Docker socket's if
// exposed over TCP), `container:<id>` another container's network namespace
// (another task's, a database's). So a flow's `executor.network` is accepted
// only when it is the operator's default (SVC_DOCKER_NETWORK) or listed in
// SVC_DOCKER_NETWORKS for the flow's namespace (an entry whose prefix covers
// it, or the flat form: every namespace; @svc/config namespace-allowlist.ts),
// literally (`container:*` allows every container:); anything else fails the
// run executor_error, naming the namespace, before a container exists.
//
// The default, `svc-tasks`, is a bridge network the dispatcher creates when
// it is missing (labelled as svc's). Not internal by default: tasks reach the
// outside world and the gateway at SVC_RUNNER_URL wherever the gateway runs
// (on the host, in another compose project, behind a load balancer), which
// an internal network cannot promise, since its containers reach only the
// containers attached to it. SVC_DOCKER_NETWORK_INTERNAL=true creates it
// internal: tasks reach nothing but the containers on svc-tasks, so the
// operator attaches the gateway to it (`docker network connect svc-tasks
// <gateway container>`) and sets SVC_RUNNER_URL to the gateway's name there.
// An existing svc-tasks that is not internal then fails every task on it
// executor_error (removing it is the operator's call: tasks may be on it).
// Only that name is created: any other default is the operator's to make.
import type Docker from 'dockerode';
import { allowedIn, type Config } from '@svc/config';
import { LABELS, MANAGED_BY } from './container-task.js';

/** The default of SVC_DOCKER_NETWORK: the network the dispatcher creates when it is missing. */
export const DEFAULT_TASK_NETWORK = 'svc-tasks';

/**
 * Capabilities taken from Docker's default set (which keeps 14): raw sockets
 * (NET_RAW: ARP and DNS spoofing on a shared network, ping floods), device
 * nodes (MKNOD), the kernel audit log (AUDIT_WRITE), file capabilities and
 * capability hand-over (SETFCAP, SETPCAP: useless under no-new-privileges),
 * chroot (SYS_CHROOT). Kept, because ordinary tasks need them as root:
 * CHOWN, DAC_OVERRIDE, FOWNER, FSETID (unpacking archives, installing
 * packages), SETUID, SETGID (package managers and tools that drop to another
 * user), KILL (signalling their own children as another user),
 * NET_BIND_SERVICE (a test server on port 80 in its own network).
 */
export const DROPPED_CAPABILITIES = ['NET_RAW', 'MKNOD', 'AUDIT_WRITE', 'SETFCAP', 'SETPCAP', 'SYS_CHROOT'];

export type NetworkChoice = { network: string } | { refused: string };

/** The network a task of `namespace` runs on, or why it may not run on the one its flow names. */
export function taskNetwork(requested: string | undefined, namespace: string, config: Pick<Config, 'dockerNetwork' | 'dockerNetworks'>): NetworkChoice {
  if (requested === undefined || requested === config.dockerNetwork) return { network: config.dockerNetwork };
  const allowed = allowedIn(config.dockerNetworks, namespace);
  if (allowed.includes(requested) || (requested.startsWith('container:') && allowed.includes('container:*'))) return { network: requested };
  const listed = allowed.length ? `for namespace ${namespace} it lists ${allowed.join(', ')}` : `it lists none for namespace ${namespace}`;
  return {
    refused: `the network ${requested} is not allowed in namespace ${namespace}: an operator must list it in SVC_DOCKER_NETWORKS for a prefix of ${namespace} (${listed}); the default network is ${config.dockerNetwork} (SVC_DOCKER_NETWORK)`,
  };
}

/**
 * Creates DEFAULT_TASK_NETWORK when it is missing (idempotent; another
 * dispatcher may create it at the same time), internal when `internal`
 * (SVC_DOCKER_NETWORK_INTERNAL). Throws when `internal` and an existing one
 * is not.
 */
export async function ensureTaskNetwork(docker: Docker, internal = false): Promise<void> {
  try {
    const found = (await docker.getNetwork(DEFAULT_TASK_NETWORK).inspect()) as { Internal?: boolean };
    if (internal && !found.Internal) {
      throw new Error(
        `the network ${DEFAULT_TASK_NETWORK} exists and is not internal, while SVC_DOCKER_NETWORK_INTERNAL is true: remove it (docker network rm ${DEFAULT_TASK_NETWORK}, once no container uses it) and the next task creates it internal`,
      );
    }
    return;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw err;
  }
  try {
    await docker.createNetwork({
      Name: DEFAULT_TASK_NETWORK,
      Driver: 'bridge',
      Internal: internal,
      CheckDuplicate: true,
      Labels: { [LABELS.managedBy]: MANAGED_BY, 'svc.dev/purpose': 'task-network' },
    });
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 409) throw err;
  }
}

/** True when `url`'s host is a loopback address: unreachable from a container that is not on the host's network. */
export function isLoopbackUrl(url: string): boolean {
  const h = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\./.test(h);
}
