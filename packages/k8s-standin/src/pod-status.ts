// What the kubelet derives for a pod's status, and Docker's log framing.
import { timestamp, type Pod } from './meta.js';

/** Docker's multiplexed log frames (8-byte headers) to plain bytes. */
export function demux(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i + 8 <= buf.length;) {
    const size = buf.readUInt32BE(i + 4);
    out.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(out);
}

/** The pod conditions the kubelet derives from the container statuses. */
export function conditions(pod: Pod): void {
  const s = pod.status;
  const now = timestamp();
  const inits = s.initContainerStatuses ?? [];
  const apps = s.containerStatuses ?? [];
  // The kubelet gives every container status a state.
  const pendingInits = inits.filter((c) => !(c.state!.terminated && c.state!.terminated.exitCode === 0)).map((c) => c.name);
  const unready = apps.filter((c) => !c.ready).map((c) => c.name);
  const completed = s.phase === 'Succeeded' || s.phase === 'Failed';
  const want: [string, boolean, string?, string?][] = [
    ['PodReadyToStartContainers', true],
    [
      'Initialized',
      pendingInits.length === 0,
      pendingInits.length ? 'ContainersNotInitialized' : undefined,
      pendingInits.length ? `containers with incomplete status: [${pendingInits.join(' ')}]` : undefined,
    ],
    [
      'Ready',
      unready.length === 0,
      unready.length ? (completed ? 'PodCompleted' : 'ContainersNotReady') : undefined,
      unready.length && !completed ? `containers with unready status: [${unready.join(' ')}]` : undefined,
    ],
    [
      'ContainersReady',
      unready.length === 0,
      unready.length ? (completed ? 'PodCompleted' : 'ContainersNotReady') : undefined,
      unready.length && !completed ? `containers with unready status: [${unready.join(' ')}]` : undefined,
    ],
    ['PodScheduled', true],
  ];
  const old = s.conditions ?? [];
  s.conditions = want.map(([type, ok, reason, message]) => {
    const prev = old.find((c) => c.type === type);
    const status = ok ? 'True' : 'False';
    return {
      type,
      status,
      lastProbeTime: null,
      lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : now,
      ...(reason ? { reason } : {}),
      ...(message ? { message } : {}),
    };
  });
}
