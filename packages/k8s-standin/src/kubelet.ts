// The stand-in's one node: a kubelet that runs each pod bound to it through
// the local Docker engine, as dockershim did. Per pod, one worker:
//   Pending  emptyDir volumes become Docker volumes; each init container runs
//            to its end in order (a failing one fails the pod under
//            restartPolicy Never); images are checked against the engine
//            (no registry: a missing image waits in ErrImagePull and
//            ImagePullBackOff, Never gives ErrImageNeverPull, a malformed
//            reference InvalidImageName);
//   Running  every container started (command → Entrypoint, args → Cmd, env,
//            workingDir, limits → NanoCpus/Memory, requests.cpu → CpuShares,
//            volume mounts, the host's network; the securityContext, the
//            container's over the pod's: capabilities → CapAdd/CapDrop,
//            allowPrivilegeEscalation false → no-new-privileges,
//            seccompProfile → the engine's default profile for
//            RuntimeDefault, none for Unconfined or unset (Kubernetes'
//            default), runAsUser/runAsGroup → User; runAsNonRoot with a user
//            that is root, or not numeric, waits in
//            CreateContainerConfigError with the kubelet's message);
//   Succeeded/Failed  all containers terminated (exit 0 each, or not);
//   deletion SIGTERM, then SIGKILL after the grace period (docker stop -t),
//            containers and volumes removed, then the object.
// Every container is labelled like dockershim's (io.kubernetes.*) plus the
// stand-in's own label, by which close() finds leftovers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import type Docker from 'dockerode';
import { checkImage, type PullPolicy } from './images.js';
import { cpuCores, memoryBytes } from './job-validation.js';
import { badRequest, timestamp, type Container, type ContainerStateTerminated, type ContainerStatus, type Pod, type PodSpec, type PodStatus } from './meta.js';
import { conditions, demux } from './pod-status.js';
import type { Secrets } from './secrets.js';
import type { Store } from './store.js';

export interface KubeletOptions {
  docker: Docker;
  /** The node's name (spec.nodeName of its pods). */
  nodeName: string;
  /** The node's address: every pod runs on the host's network, so it is each pod's IP too. */
  hostIP: string;
  /** First delay before a failed image pull or a failed container is retried, doubling up to 8×. The kubelet's is 10 s. */
  backOffMs: number;
  /** Why pulls fail (there is no registry), in the ErrImagePull message. */
  registryError: string;
  /** A label put on every Docker container and volume of this kubelet: [key, value]. */
  ownerLabel: [string, string];
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** The cluster's Secrets, for `secret` volumes. */
  secrets?: Secrets;
}

/** How long a pod waits for the Secret of a `secret` volume to exist (the kubelet retries its mount). */
const SECRET_WAIT_MS = 60_000;

type ContainerKind = 'init' | 'app';

interface ContainerResult {
  exitCode: number;
  stopped: boolean;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

class PodWorker {
  private readonly stop = new AbortController();
  private graceSeconds = 30;
  /** The Docker container currently holding each container name (its latest restart). */
  readonly containers = new Map<string, Docker.Container>();
  private readonly volumes: string[] = [];
  /** Host directories behind `secret` volumes, removed with the pod. */
  private readonly secretDirs: string[] = [];
  readonly done: Promise<void>;
  private ended!: () => void;
  private readonly endedP = new Promise<void>((r) => (this.ended = r));

  constructor(
    private readonly k: Kubelet,
    private readonly ns: string,
    private readonly name: string,
    private readonly uid: string,
    private readonly spec: PodSpec,
  ) {
    this.done = this.lifecycle();
  }

  /** Deletion: stop the containers (SIGTERM, SIGKILL after `grace` s), then remove everything and the object. */
  terminate(grace: number): void {
    if (!this.stop.signal.aborted) {
      this.graceSeconds = grace;
      this.stop.abort();
      this.ended();
      return;
    }
    // A second deletion with a shorter grace period shortens the first.
    if (grace < this.graceSeconds) {
      this.graceSeconds = grace;
      for (const c of this.containers.values()) void c.kill().catch(() => undefined);
    }
  }

  private async lifecycle(): Promise<void> {
    const running = this.runPod().catch((err) => {
      this.k.opts.log('pod worker failed', { pod: `${this.ns}/${this.name}`, err: String(err) });
      this.update((s) => {
        s.phase = 'Failed';
        s.reason = 'StandinError';
        s.message = String(err);
      });
    });
    // A finished pod keeps its containers (for its logs) until it is deleted.
    await this.endedP;
    await this.stopContainers();
    await running;
    for (const c of this.containers.values()) await c.remove({ force: true, v: true }).catch(() => undefined);
    for (const v of this.volumes)
      await this.k.opts.docker
        .getVolume(v)
        .remove()
        .catch(() => undefined);
    for (const d of this.secretDirs) fs.rmSync(d, { recursive: true, force: true });
    this.k.store.remove('pods', this.ns, this.name);
  }

  private async stopContainers(): Promise<void> {
    await Promise.all(
      [...this.containers.values()].map(async (c) => {
        try {
          await c.stop({ t: this.graceSeconds });
        } catch {
          // Not running (any more).
        }
      }),
    );
  }

  private update(change: (status: PodStatus, pod: Pod) => void): void {
    this.k.store.update('pods', this.ns, this.name, (o) => {
      change((o.status ??= {}), o);
      conditions(o);
    });
  }

  private setState(kind: ContainerKind, name: string, change: (cs: ContainerStatus) => void): void {
    this.update((s) => {
      const list = kind === 'init' ? (s.initContainerStatuses ??= []) : (s.containerStatuses ??= []);
      const cs = list.find((c) => c.name === name);
      if (cs) change(cs);
    });
  }

  private async runPod(): Promise<void> {
    const { spec } = this;
    const inits = spec.initContainers ?? [];
    const apps = spec.containers ?? [];
    const waiting = (reason: string) => ({ waiting: { reason } });
    const status = (c: Container, reason: string): ContainerStatus => ({
      name: c.name,
      state: waiting(reason),
      lastState: {},
      ready: false,
      restartCount: 0,
      image: c.image!,
      imageID: '',
      started: false,
    });
    this.update((s) => {
      s.phase = 'Pending';
      s.hostIP = this.k.opts.hostIP;
      s.hostIPs = [{ ip: this.k.opts.hostIP }];
      s.podIP = this.k.opts.hostIP;
      s.podIPs = [{ ip: this.k.opts.hostIP }];
      s.startTime = timestamp();
      if (inits.length) s.initContainerStatuses = inits.map((c) => status(c, 'PodInitializing'));
      s.containerStatuses = apps.map((c) => status(c, inits.length ? 'PodInitializing' : 'ContainerCreating'));
    });
    for (const v of spec.volumes ?? []) {
      const name = `k8s-standin_${this.uid}_${v.name}`;
      const labels = { [this.k.opts.ownerLabel[0]]: this.k.opts.ownerLabel[1], 'io.kubernetes.pod.uid': this.uid };
      if (v.secret) {
        const dir = await this.secretDir(v.secret);
        if (!dir) return;
        // A local volume bound to the directory: the engine runs on this host.
        await this.k.opts.docker.createVolume({ Name: name, Labels: labels, DriverOpts: { type: 'none', o: 'bind', device: dir } });
      } else await this.k.opts.docker.createVolume({ Name: name, Labels: labels });
      this.volumes.push(name);
    }
    for (const c of inits) {
      const r = await this.runContainer(c, 'init');
      if (r.stopped) return;
      if (r.exitCode !== 0) {
        this.update((s) => (s.phase = 'Failed'));
        return;
      }
    }
    if (inits.length) this.setAppsWaiting('ContainerCreating');
    const results = await Promise.all(apps.map((c) => this.runContainer(c, 'app')));
    this.update((s) => {
      s.phase = results.every((r) => r.exitCode === 0 && !r.stopped) ? 'Succeeded' : 'Failed';
    });
  }

  /**
   * A host directory holding a Secret's keys as files, as the kubelet
   * writes a `secret` volume: each item's mode, else defaultMode, else 0644;
   * with the pod's fsGroup, owned by that group with its read bit added
   * (0400 becomes 0440). Waits for the Secret; undefined when the pod ended
   * meanwhile or it never came (the pod then fails).
   */
  private async secretDir(v: { secretName?: string; defaultMode?: number; items?: { key: string; path: string; mode?: number }[] }): Promise<string | undefined> {
    let secret = this.k.opts.secrets?.get(this.ns, v.secretName ?? '');
    for (const until = Date.now() + SECRET_WAIT_MS; !secret && Date.now() < until && !this.stop.signal.aborted;) {
      await sleep(100, this.stop.signal);
      secret = this.k.opts.secrets?.get(this.ns, v.secretName ?? '');
    }
    if (!secret) {
      if (!this.stop.signal.aborted) {
        this.update((s) => {
          s.phase = 'Failed';
          s.reason = 'CreateContainerConfigError';
          s.message = `secret "${v.secretName}" not found`;
        });
      }
      return undefined;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-standin-secret-'));
    this.secretDirs.push(dir);
    const fsGroup = this.spec.securityContext?.fsGroup;
    const data = secret.data ?? {};
    const items: { key: string; path: string; mode?: number }[] = v.items ?? Object.keys(data).map((key) => ({ key, path: key }));
    for (const item of items) {
      const file = path.join(dir, item.path);
      fs.writeFileSync(file, Buffer.from(data[item.key] ?? '', 'base64'));
      let mode = item.mode ?? v.defaultMode ?? 0o644;
      if (fsGroup !== undefined) {
        fs.chownSync(file, 0, fsGroup);
        mode |= 0o440;
      }
      fs.chmodSync(file, mode);
    }
    fs.chmodSync(dir, 0o755);
    return dir;
  }

  private setAppsWaiting(reason: string): void {
    this.update((s) => {
      for (const cs of s.containerStatuses ?? []) if (cs.state!.waiting) cs.state = { waiting: { reason } };
    });
  }

  /** Waits until the image is there (or the pod is deleted): false when deleted first. */
  private async awaitImage(c: Container, kind: ContainerKind): Promise<string | null> {
    const { docker, registryError, backOffMs } = this.k.opts;
    for (let delay = backOffMs; ; delay = Math.min(delay * 2, backOffMs * 8)) {
      if (this.stop.signal.aborted) return null;
      const r = await checkImage(docker, c.image!, c.imagePullPolicy as PullPolicy, registryError);
      if (r.ok) return r.imageId;
      this.setState(kind, c.name, (cs) => (cs.state = { waiting: { reason: r.reason, message: r.message } }));
      if (r.reason === 'ErrImagePull') {
        // The failed pull shows for a moment, then the back-off until the next attempt.
        await sleep(Math.min(delay, backOffMs), this.stop.signal);
        if (this.stop.signal.aborted) return null;
        this.setState(kind, c.name, (cs) => (cs.state = { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${c.image}"` } }));
      }
      await sleep(delay, this.stop.signal);
    }
  }

  private async runContainer(c: Container, kind: ContainerKind): Promise<ContainerResult> {
    const { docker } = this.k.opts;
    const policy = this.spec.restartPolicy ?? 'Always';
    for (let restarts = 0, delay = this.k.opts.backOffMs; ; restarts++, delay = Math.min(delay * 2, this.k.opts.backOffMs * 8)) {
      const imageId = await this.awaitImage(c, kind);
      if (!imageId || this.stop.signal.aborted) return { exitCode: 0, stopped: true };
      const configError = await this.nonRootError(c, imageId);
      if (configError) {
        // As the kubelet does: the container waits, retried with back-off, until the pod is deleted.
        this.setState(kind, c.name, (cs) => (cs.state = { waiting: { reason: 'CreateContainerConfigError', message: configError } }));
        await sleep(delay, this.stop.signal);
        if (this.stop.signal.aborted) return { exitCode: 0, stopped: true };
        restarts--;
        continue;
      }
      const container = await docker.createContainer(this.dockerConfig(c, restarts));
      this.containers.set(c.name, container);
      if (this.stop.signal.aborted) return { exitCode: 0, stopped: true };
      const containerID = `docker://${container.id}`;
      let terminated: ContainerStateTerminated;
      try {
        await container.start();
        // Deleted while it started: stopContainers may have run before this container existed.
        if (this.stop.signal.aborted) void container.stop({ t: this.graceSeconds }).catch(() => undefined);
        const started = timestamp();
        this.setState(kind, c.name, (cs) => {
          Object.assign(cs, { state: { running: { startedAt: started } }, imageID: `docker://${imageId}`, containerID, started: true, ready: kind === 'app' });
        });
        if (kind === 'app') this.update((s) => (s.phase = (s.containerStatuses ?? []).every((x) => x.state!.running || x.state!.terminated) ? 'Running' : s.phase));
        await container.wait();
        const info = await container.inspect();
        const exitCode = info.State.ExitCode;
        terminated = {
          exitCode,
          reason: info.State.OOMKilled ? 'OOMKilled' : exitCode === 0 ? 'Completed' : 'Error',
          startedAt: timestamp(new Date(info.State.StartedAt)),
          finishedAt: timestamp(new Date(info.State.FinishedAt)),
          containerID,
        };
      } catch (err) {
        // As containerd reports an exec that cannot start (no such binary, say).
        const message = (err as { json?: { message?: string } }).json?.message ?? String(err);
        terminated = { exitCode: 128, reason: 'StartError', message, startedAt: '1970-01-01T00:00:00Z', finishedAt: timestamp(), containerID };
      }
      const again = !this.stop.signal.aborted && (policy === 'Always' || (policy === 'OnFailure' && terminated.exitCode !== 0));
      if (!again) {
        this.setState(kind, c.name, (cs) => Object.assign(cs, { state: { terminated }, ready: false, started: false }));
        return { exitCode: terminated.exitCode, stopped: this.stop.signal.aborted };
      }
      this.setState(kind, c.name, (cs) => {
        Object.assign(cs, { lastState: { terminated }, restartCount: restarts + 1, ready: false, started: false });
        cs.state = {
          waiting: { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${c.name} pod=${this.name}_${this.ns}(${this.uid})` },
        };
      });
      await sleep(delay, this.stop.signal);
    }
  }

  /** The container's securityContext fields over the pod's (the fields both levels have). */
  private security(c: Container): {
    runAsUser?: number;
    runAsGroup?: number;
    runAsNonRoot?: boolean;
    seccompProfile?: { type?: string };
    capabilities?: { add?: string[]; drop?: string[] };
    allowPrivilegeEscalation?: boolean;
  } {
    const pod = this.spec.securityContext ?? {};
    const own = c.securityContext ?? {};
    return {
      runAsUser: own.runAsUser ?? pod.runAsUser,
      runAsGroup: own.runAsGroup ?? pod.runAsGroup,
      runAsNonRoot: own.runAsNonRoot ?? pod.runAsNonRoot,
      seccompProfile: own.seccompProfile ?? pod.seccompProfile,
      capabilities: own.capabilities,
      allowPrivilegeEscalation: own.allowPrivilegeEscalation,
    };
  }

  /** The kubelet's refusal of a runAsNonRoot container whose user is root or cannot be verified, else null. */
  private async nonRootError(c: Container, imageId: string): Promise<string | null> {
    const sec = this.security(c);
    if (!sec.runAsNonRoot) return null;
    if (sec.runAsUser !== undefined) return sec.runAsUser === 0 ? "container's runAsUser breaks non-root policy" : null;
    const info = (await this.k.opts.docker.getImage(imageId).inspect()) as { Config?: { User?: string } };
    const user = (info.Config?.User ?? '').split(':')[0];
    if (user === '' || user === '0' || user === 'root')
      return `container has runAsNonRoot and image will run as root (pod: "${this.name}_${this.ns}(${this.uid})", container: ${c.name})`;
    if (!/^\d+$/.test(user))
      return `container has runAsNonRoot and image has non-numeric user (${user}), cannot verify user is non-root (pod: "${this.name}_${this.ns}(${this.uid})", container: ${c.name})`;
    return null;
  }

  private dockerConfig(c: Container, restarts: number): Docker.ContainerCreateOptions {
    const sec = this.security(c);
    const securityOpt: string[] = [];
    if (sec.allowPrivilegeEscalation === false) securityOpt.push('no-new-privileges');
    // Kubernetes runs containers Unconfined unless a profile is asked for; RuntimeDefault is the engine's own.
    if (sec.seccompProfile?.type !== 'RuntimeDefault') securityOpt.push('seccomp=unconfined');
    const user = sec.runAsUser !== undefined ? `${sec.runAsUser}${sec.runAsGroup !== undefined ? `:${sec.runAsGroup}` : ''}` : undefined;
    const limits = c.resources?.limits ?? {};
    const requests = c.resources?.requests ?? {};
    const env: string[] = [];
    for (const e of c.env ?? []) {
      if (e.value !== undefined) env.push(`${e.name}=${e.value}`);
      else if (e.valueFrom?.fieldRef) env.push(`${e.name}=${this.field(e.valueFrom.fieldRef.fieldPath)}`);
      else env.push(`${e.name}=`);
    }
    const cpu = limits.cpu !== undefined ? cpuCores(limits.cpu) : null;
    const mem = limits.memory !== undefined ? memoryBytes(limits.memory) : null;
    const cpuReq = requests.cpu !== undefined ? cpuCores(requests.cpu) : null;
    return {
      name: `k8s_${c.name}_${this.name}_${this.ns}_${this.uid}_${restarts}`,
      Image: c.image,
      // Kubernetes' command replaces the image's ENTRYPOINT and args its CMD; a command alone drops the CMD.
      ...(c.command ? { Entrypoint: c.command, Cmd: c.args ?? [] } : c.args ? { Cmd: c.args } : {}),
      Env: env,
      WorkingDir: c.workingDir,
      ...(user ? { User: user } : {}),
      Labels: {
        [this.k.opts.ownerLabel[0]]: this.k.opts.ownerLabel[1],
        'io.kubernetes.pod.name': this.name,
        'io.kubernetes.pod.namespace': this.ns,
        'io.kubernetes.pod.uid': this.uid,
        'io.kubernetes.container.name': c.name,
      },
      HostConfig: {
        NetworkMode: 'host',
        SecurityOpt: securityOpt,
        ...(sec.capabilities?.add?.length ? { CapAdd: sec.capabilities.add } : {}),
        ...(sec.capabilities?.drop?.length ? { CapDrop: sec.capabilities.drop } : {}),
        // fsGroup: a supplementary group of every container's processes.
        ...(this.spec.securityContext?.fsGroup !== undefined ? { GroupAdd: [String(this.spec.securityContext.fsGroup)] } : {}),
        Mounts: (c.volumeMounts ?? []).map((m) => ({ Type: 'volume' as const, Source: `k8s-standin_${this.uid}_${m.name}`, Target: m.mountPath, ReadOnly: !!m.readOnly })),
        ...(cpu !== null ? { NanoCpus: Math.round(cpu * 1e9) } : {}),
        ...(mem !== null ? { Memory: mem } : {}),
        ...(cpuReq !== null ? { CpuShares: Math.max(2, Math.round(cpuReq * 1024)) } : {}),
      },
    };
  }

  /** The downward API fields a fieldRef env var may name. */
  private field(path: string): string {
    const pod = this.k.store.get('pods', this.ns, this.name);
    switch (path) {
      case 'metadata.name':
        return this.name;
      case 'metadata.namespace':
        return this.ns;
      case 'metadata.uid':
        return this.uid;
      case 'spec.nodeName':
        return this.k.opts.nodeName;
      case 'spec.serviceAccountName':
        return pod?.spec?.serviceAccountName ?? '';
      case 'status.hostIP':
      case 'status.podIP':
        return this.k.opts.hostIP;
      default: {
        const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
        return m ? (pod?.metadata[m[1] as 'labels' | 'annotations']?.[m[2]] ?? '') : '';
      }
    }
  }
}

export class Kubelet {
  private readonly workers = new Map<string, PodWorker>();
  private unsubscribe?: () => void;

  constructor(
    readonly store: Store,
    readonly opts: KubeletOptions,
  ) {}

  start(): void {
    this.unsubscribe = this.store.subscribe((e) => {
      if (e.resource !== 'pods') return;
      const pod = e.object;
      const uid = pod.metadata.uid!;
      if (e.type === 'ADDED' && !pod.spec?.nodeName) {
        // The scheduler's part: one node takes every pod.
        queueMicrotask(() => this.bind(pod));
        return;
      }
      const w = this.workers.get(uid);
      if (e.type === 'DELETED') {
        // Removed without a graceful deletion (gracePeriodSeconds 0): kill at once.
        w?.terminate(0);
        return;
      }
      if (pod.metadata.deletionTimestamp && w) w.terminate(pod.metadata.deletionGracePeriodSeconds ?? 30);
    });
  }

  private bind(pod: Pod): void {
    const ns = pod.metadata.namespace!;
    const name = pod.metadata.name!;
    const bound = this.store.update('pods', ns, name, (o) => {
      o.spec.nodeName = this.opts.nodeName;
      o.status = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: timestamp() }], qosClass: o.status?.qosClass };
    });
    if (!bound || bound.metadata.deletionTimestamp) return;
    const w = new PodWorker(this, ns, name, bound.metadata.uid!, bound.spec);
    this.workers.set(bound.metadata.uid!, w);
    void w.done.finally(() => this.workers.delete(bound.metadata.uid!));
  }

  /** Whether a worker runs this pod (else a deletion removes the object at once). */
  runs(uid: string): boolean {
    return this.workers.has(uid);
  }

  /** The log of one container (its latest run), as `kubectl logs` reads it. */
  async logs(pod: Pod, container: string, opts: { follow: boolean; tailLines?: number; timestamps: boolean }): Promise<Readable> {
    const w = this.workers.get(pod.metadata.uid!);
    const c = w?.containers.get(container);
    if (!c) {
      const all = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
      const reason = all.find((x) => x.name === container)?.state?.waiting?.reason ?? 'ContainerCreating';
      const why = ['ErrImagePull', 'ImagePullBackOff'].includes(reason) ? 'trying and failing to pull image' : reason === 'InvalidImageName' ? 'InvalidImageName' : reason;
      throw badRequest(`container "${container}" in pod "${pod.metadata.name}" is waiting to start: ${why}`);
    }
    const base = { stdout: true, stderr: true, timestamps: opts.timestamps, ...(opts.tailLines !== undefined ? { tail: opts.tailLines } : {}) };
    const out = new PassThrough();
    if (opts.follow) {
      const stream = await c.logs({ ...base, follow: true });
      this.opts.docker.modem.demuxStream(stream, out, out);
      stream.on('end', () => out.end());
      stream.on('error', (err: Error) => out.destroy(err));
      out.on('close', () => (stream as unknown as { destroy?: () => void }).destroy?.());
    } else {
      out.end(demux(await c.logs({ ...base, follow: false })));
    }
    return out;
  }

  /** Stops every pod at once and removes what is left of this kubelet in Docker. */
  async close(): Promise<void> {
    this.unsubscribe?.();
    for (const w of this.workers.values()) w.terminate(0);
    await Promise.all([...this.workers.values()].map((w) => w.done.catch(() => undefined)));
    const { docker, ownerLabel } = this.opts;
    const filters = JSON.stringify({ label: [`${ownerLabel[0]}=${ownerLabel[1]}`] });
    for (const c of await docker.listContainers({ all: true, filters }))
      await docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined);
    const { Volumes } = await docker.listVolumes({ filters });
    for (const v of Volumes ?? [])
      await docker
        .getVolume(v.Name)
        .remove()
        .catch(() => undefined);
  }
}
