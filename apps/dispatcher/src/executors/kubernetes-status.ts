// What the kubernetes executor reads from its Job and pod: whether the task
// has ended, or can never start. Pure, over the objects as the API returns
// them (a watch event's or a list's).
import type { V1ContainerStatus, V1Job, V1Pod } from '@kubernetes/client-node';
import { RUNNER_CONTAINER, TASK_CONTAINER } from './kubernetes-job.js';

/** Waiting reasons of an image the kubelet cannot get: the run ends image_pull_failed. */
export const IMAGE_PULL_REASONS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);
/** Waiting reasons of a container that cannot be created as specified (a missing Secret, say): the run ends executor_error. */
export const CANNOT_START_REASONS = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

export type JobOutcome =
  /** The image (or the runner image) cannot be had. */
  | { kind: 'image_pull_failed'; message: string }
  /** The pod or the Job ended (or can never start): what happened, for a run its runner did not report. */
  | { kind: 'ended'; message: string }
  /** The Job or its pod was deleted (by someone else, or by the cluster) before it ended. */
  | { kind: 'gone'; message: string };

const which = (cs: V1ContainerStatus) => (cs.name === RUNNER_CONTAINER ? `the runner image ${cs.image}` : `image ${cs.image}`);

function terminatedText(name: string, t: { exitCode?: number; reason?: string; message?: string; signal?: number }): string {
  return `container ${name} exited with code ${t.exitCode ?? '?'}${t.reason ? ` (${t.reason})` : ''}${t.message ? `: ${t.message.trim()}` : ''}`;
}

/** The outcome the pod shows, or null while it runs or waits normally. */
export function podOutcome(pod: V1Pod): JobOutcome | null {
  const status = pod.status ?? {};
  const all = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])];
  for (const cs of all) {
    const w = cs.state?.waiting;
    if (!w?.reason) continue;
    if (IMAGE_PULL_REASONS.has(w.reason)) return { kind: 'image_pull_failed', message: `${which(cs)} cannot be pulled: ${w.reason}${w.message ? `: ${w.message}` : ''}` };
    if (CANNOT_START_REASONS.has(w.reason)) return { kind: 'ended', message: `container ${cs.name} cannot start: ${w.reason}${w.message ? `: ${w.message}` : ''}` };
  }
  const task = (status.containerStatuses ?? []).find((c) => c.name === TASK_CONTAINER);
  const failedInit = (status.initContainerStatuses ?? []).find((c) => c.state?.terminated && c.state.terminated.exitCode !== 0);
  if (status.phase === 'Succeeded' || status.phase === 'Failed' || task?.state?.terminated) {
    const parts: string[] = [];
    if (failedInit?.state?.terminated) parts.push(`init ${terminatedText(failedInit.name, failedInit.state.terminated)}`);
    if (task?.state?.terminated) parts.push(terminatedText(task.name, task.state.terminated));
    if (status.reason) parts.push(`pod ${status.reason}${status.message ? `: ${status.message}` : ''}`);
    const phase = status.phase === 'Succeeded' || status.phase === 'Failed' ? ` ${status.phase}` : '';
    return { kind: 'ended', message: `pod ${pod.metadata?.name} ended${phase}: ${parts.join('; ') || 'no container status'}` };
  }
  return null;
}

/** The outcome a Job's conditions show (Failed: deadline exceeded, back-off limit), or null. */
export function jobOutcome(job: V1Job): JobOutcome | null {
  const failed = (job.status?.conditions ?? []).find((c) => c.type === 'Failed' && c.status === 'True');
  if (failed) return { kind: 'ended', message: `Job ${job.metadata?.name} failed: ${failed.reason ?? ''}${failed.message ? `: ${failed.message}` : ''}` };
  const complete = (job.status?.conditions ?? []).find((c) => c.type === 'Complete' && c.status === 'True');
  if (complete) return { kind: 'ended', message: `Job ${job.metadata?.name} completed` };
  return null;
}
