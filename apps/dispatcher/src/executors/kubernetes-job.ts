// The one object the kubernetes executor creates per task run: a batch/v1
// Job, built here by a pure function from the ContainerTask (so it can be
// read and tested field by field). Its pod:
//   - init container `svc-runner` (when inject_runner, the default): the
//     runner image (SVC_RUNNER_IMAGE) runs `svc install-runner` into an
//     emptyDir volume, which the task container mounts read-only at
//     RUNNER_MOUNT; without inject_runner there is neither, and the command
//     is `svc exec` from the image's PATH;
//   - container `task`: the task's image and pull policy, `svc exec` with the
//     runner's environment (SVC_SERVER, SVC_TASK_RUN_ID, SVC_RUN_TOKEN_FILE,
//     SVC_IMAGE), the executor's resources (requests and limits);
//   - the run token: never in the environment, but in the Secret
//     `<job>-token` (tokenSecret), which the executor creates owned by the
//     Job (removed with it), mounted read-only at TOKEN_DIR with mode 0400;
//     the pod's fsGroup (TOKEN_FS_GROUP) makes it group-readable by the
//     task's processes whatever their user (the kubelet adds the group's
//     read bit, 0440), and the runner reads it through SVC_RUN_TOKEN_FILE;
//   - the executor's `kubernetes` settings: service account, node selector,
//     tolerations, image pull secrets, labels and annotations (on the Job and
//     its pod; svc's own labels win over a user label of the same key);
//   - the service account: the flow's (already checked against the operator's
//     allowlist by the executor), whose token is mounted; else the task
//     service account (SVC_K8S_TASK_SERVICE_ACCOUNT), whose token is not: a
//     task has no business with the Kubernetes API unless an operator allowed
//     an account for it;
//   - every container (the init container too) runs without privilege
//     escalation, with every capability dropped and the runtime's default
//     seccomp profile (containerSecurityContext); SVC_K8S_RUN_AS_NON_ROOT adds
//     runAsNonRoot at the pod level;
//   - restartPolicy Never and backoffLimit 0 (a retry is the engine's, by the
//     task's retry policy, as a new task run with a new Job);
//   - terminationGracePeriodSeconds: the kill delay (the spec's 10 s) between
//     SIGTERM and SIGKILL when the Job is deleted on cancel;
//   - activeDeadlineSeconds: the task's timeout plus a margin, so that the
//     cluster ends a pod whose runner hangs even if no dispatcher is left to;
//   - ttlSecondsAfterFinished: the cluster removes a finished Job that no
//     dispatcher deleted (its dispatcher died).
import type { V1Container, V1Job, V1Secret, V1SecurityContext, V1Toleration, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { assertNever } from '@svc/assert';
import type { ContainerTask, PullPolicy, ResourceList } from './container-task.js';

/** Name of the task's container in the pod. */
export const TASK_CONTAINER = 'task';
/** Name of the init container that installs the runner, and of the volume it fills. */
export const RUNNER_CONTAINER = 'svc-runner';
export const RUNNER_VOLUME = 'svc-runner';
/** Where the init container mounts the volume it installs the runner into (its own image holds the bundle at RUNNER_MOUNT). */
export const INSTALL_DIR = '/svc-runner-install';
/** Seconds a Job may run past its task's timeout (the engine ends the run 60 s after it; then the executor deletes the Job). */
export const DEADLINE_MARGIN_S = 300;
/** Seconds a finished Job stays when no dispatcher deletes it. */
export const FINISHED_JOB_TTL_S = 3600;
/** The volume of the run token Secret, where the task container mounts it, and the file the runner reads. */
export const TOKEN_VOLUME = 'svc-run-token';
export const TOKEN_DIR = '/.svc-token';
export const TOKEN_FILE = `${TOKEN_DIR}/token`;
/** The pod's fsGroup: the group that may read the token file, given to every container's processes. */
export const TOKEN_FS_GROUP = 64000;

/** The name of the Secret holding a Job's run token. */
export function tokenSecretName(jobName: string): string {
  return `${jobName}-token`;
}

/** The Secret holding the run token, owned by its Job (`uid`: the created Job's): the cluster removes it with the Job. */
export function tokenSecret(task: ContainerTask, namespace: string, job: { name: string; uid: string }): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: tokenSecretName(job.name),
      namespace,
      labels: { ...task.labels },
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: job.name, uid: job.uid }],
    },
    data: { token: Buffer.from(task.token).toString('base64') },
  };
}

export interface JobManifestOptions {
  /** Namespace of the Job (SVC_K8S_NAMESPACE). */
  namespace: string;
  /** Service account of pods whose flow names none; its token is not mounted (SVC_K8S_TASK_SERVICE_ACCOUNT). */
  taskServiceAccount: string;
  /** Pod-level runAsNonRoot: true (SVC_K8S_RUN_AS_NON_ROOT). Default false. */
  runAsNonRoot?: boolean;
  /** Image of the init container: the runner bundle at RUNNER_MOUNT (SVC_RUNNER_IMAGE). */
  runnerImage: string;
  /** The argv that starts `svc` from the bundle at RUNNER_MOUNT (RunnerBundle.argv()). */
  runnerArgv: string[];
  /** Where the task container sees the installed runner (RUNNER_MOUNT). */
  runnerMount: string;
  /** Seconds between SIGTERM and SIGKILL when the pod is deleted (ceil of SVC_KILL_DELAY_MS; the spec's 10 s). */
  terminationGraceSeconds: number;
}

export function imagePullPolicy(pull: PullPolicy): 'Always' | 'IfNotPresent' | 'Never' {
  switch (pull) {
    case 'always':
      return 'Always';
    case 'if_not_present':
      return 'IfNotPresent';
    case 'never':
      return 'Never';
    default:
      return assertNever(pull);
  }
}

/**
 * The securityContext of every container of a task pod (a fresh object each):
 * no setuid gain, no capability (not even the runtime's defaults such as
 * NET_RAW or CHOWN), and the runtime's default seccomp profile (Kubernetes'
 * own default is Unconfined).
 */
export function containerSecurityContext(): V1SecurityContext {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } };
}

function resourceList(r: ResourceList | undefined): Record<string, string> | undefined {
  if (!r) return undefined;
  const out: Record<string, string> = {};
  if (r.cpu !== undefined) out.cpu = r.cpu;
  if (r.memory !== undefined) out.memory = r.memory;
  return Object.keys(out).length ? out : undefined;
}

/** Drops undefined fields, so the manifest holds only what is set (and compares cleanly). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function jobManifest(task: ContainerTask, opts: JobManifestOptions): V1Job {
  const k = task.kubernetes;
  const labels = { ...k.labels, ...task.labels };
  const annotations = k.annotations && Object.keys(k.annotations).length ? { ...k.annotations } : undefined;
  const tolerations: V1Toleration[] | undefined = k.tolerations?.map((t) =>
    defined({ key: t.key, operator: t.operator, value: t.value, effect: t.effect, tolerationSeconds: t.toleration_seconds }),
  );
  const requests = resourceList(task.resources.requests);
  const limits = resourceList(task.resources.limits);
  const container: V1Container = defined({
    name: TASK_CONTAINER,
    image: task.image,
    imagePullPolicy: imagePullPolicy(task.pull),
    command: task.command,
    env: Object.entries({ ...task.env, SVC_RUN_TOKEN_FILE: TOKEN_FILE }).map(([name, value]) => ({ name, value })),
    resources: requests || limits ? defined({ requests, limits }) : undefined,
    volumeMounts: [
      ...(task.injectRunner ? [{ name: RUNNER_VOLUME, mountPath: opts.runnerMount, readOnly: true }] : []),
      { name: TOKEN_VOLUME, mountPath: TOKEN_DIR, readOnly: true },
    ] satisfies V1VolumeMount[],
    securityContext: containerSecurityContext(),
  });
  const timeoutS = task.prepared.spec.timeout_seconds > 0 ? task.prepared.spec.timeout_seconds : 24 * 3600;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: defined({ name: task.name, namespace: opts.namespace, labels, annotations }),
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: timeoutS + DEADLINE_MARGIN_S,
      ttlSecondsAfterFinished: FINISHED_JOB_TTL_S,
      template: {
        metadata: defined({ labels, annotations }),
        spec: defined({
          restartPolicy: 'Never',
          serviceAccountName: k.service_account ?? opts.taskServiceAccount,
          // A task has no business with the Kubernetes API unless an allowed service account was chosen for it.
          automountServiceAccountToken: k.service_account ? undefined : false,
          securityContext: { ...(opts.runAsNonRoot ? { runAsNonRoot: true } : {}), fsGroup: TOKEN_FS_GROUP },
          nodeSelector: k.node_selector && Object.keys(k.node_selector).length ? { ...k.node_selector } : undefined,
          tolerations: tolerations?.length ? tolerations : undefined,
          imagePullSecrets: k.image_pull_secrets?.length ? k.image_pull_secrets.map((name) => ({ name })) : undefined,
          terminationGracePeriodSeconds: opts.terminationGraceSeconds,
          volumes: [
            ...(task.injectRunner ? [{ name: RUNNER_VOLUME, emptyDir: {} }] : []),
            { name: TOKEN_VOLUME, secret: { secretName: tokenSecretName(task.name), defaultMode: 0o400, items: [{ key: 'token', path: 'token' }] } },
          ] satisfies V1Volume[],
          initContainers: task.injectRunner
            ? [
                {
                  name: RUNNER_CONTAINER,
                  image: opts.runnerImage,
                  // The runner image's tag names its bundle's content hash: a present image is the right one.
                  imagePullPolicy: 'IfNotPresent',
                  command: [...opts.runnerArgv, 'install-runner', INSTALL_DIR],
                  volumeMounts: [{ name: RUNNER_VOLUME, mountPath: INSTALL_DIR }],
                  securityContext: containerSecurityContext(),
                },
              ]
            : undefined,
          containers: [container],
        }),
      },
    },
  };
}
