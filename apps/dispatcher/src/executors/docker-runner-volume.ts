// The named volume that holds the injected runner (node, its loader and
// libraries, the runner code) for every docker task of one runner version,
// mounted read-only at RUNNER_MOUNT.
//
// Every task's run token passes through that runner, so nothing a task
// controls may ever write it. Filling it through a container of a task's own
// image (as this code once did) let that image decide the volume's contents:
// Docker copies an image's files at the mount point into an empty volume when
// a container mounting it is created, so an image carrying its own
// /.svc-runner (complete mark included) became every later task's runner.
// Now:
//   - the volume is filled through a container of an image the dispatcher
//     makes itself, from an empty tarball (`docker import`), referred to by
//     its content-addressed id, never by a tag a pull could replace; the
//     container is created, never started;
//   - every mount of the volume, the filler's and each task's, sets NoCopy,
//     so no image's files are ever copied into it;
//   - volumes are named `svc-runner-v2-<hash>`: one named without `v2` may
//     have been filled the old way and is never mounted.
// The filler container's fixed name is a lock across dispatchers sharing the
// engine: the one that creates it fills the volume while the others wait for
// it to go. Writing the files again under a running task's node (another
// dispatcher filling at the same time) would crash that task (SIGBUS).
//
// Old versions' volumes (removeStale): once its own volume is ready, a
// dispatcher removes the runner volumes of other bundle versions, the
// unversioned `svc-runner-<hash>` ones included, selected by the labels fill()
// sets and by name, never its own version's. It never asks whether a volume is
// used: Docker refuses (409) to remove a volume that any container mounts,
// created-but-not-started and exited ones included, so a task of an older
// dispatcher keeps its runner from the moment its container is created; such
// a volume is left for the next pass. A dispatcher whose volume was removed
// between its tasks notices it (holdsRunner: Docker made an empty volume for
// the new container's mount, with the labels runnerMount gives it) and fills
// it again.
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import tar from 'tar-stream';
import { LABELS, MANAGED_BY } from './container-task.js';

/** The volume label naming the runner bundle version it holds. */
export const BUNDLE_LABEL = 'svc.dev/runner-bundle';
/** How long a dispatcher waits for another one filling the runner volume, and when a filler counts as left by a dead one. */
const FILLER_WAIT_MS = 5 * 60_000;
const FILLER_STALE_MS = 2 * 60_000;
/** A file written last into a bundle volume: the copy is complete. */
const COMPLETE_MARK = '.svc-complete';
/** Repository of the empty image the filler containers are made of. */
const FILLER_REPO = 'svc-runner-filler';

/** What the volume needs of the runner bundle (@svc/runner-bundle's RunnerBundle). */
export interface RunnerBundleLike {
  hash: string;
  /** argv starting `svc` from a bundle placed at mountDir. */
  argv(mountDir: string): string[];
  /** A tar stream of the bundle's contents. */
  tar(): NodeJS.ReadableStream;
}

export const runnerVolumeName = (bundle: Pick<RunnerBundleLike, 'hash'>) => `svc-runner-v2-${bundle.hash.slice(0, 32)}`;
/** Names runner volumes have had: `svc-runner-v2-<hash>`, and `svc-runner-<hash>` before v2. */
const RUNNER_VOLUME_NAME = /^svc-runner-(?:v2-)?[0-9a-f]+$/;

/** The labels of a runner volume: made by svc, holding bundle `hash`. */
const volumeLabels = (hash: string) => ({ [LABELS.managedBy]: MANAGED_BY, [BUNDLE_LABEL]: hash });

/**
 * The mount of the runner volume in a task container: read-only, and never
 * filled from the task's image. Should the volume be gone (removed as another
 * version's by a newer dispatcher), Docker creates it empty with these labels.
 */
export function runnerMount(volume: string, target: string, hash: string): Docker.MountSettings {
  return { Type: 'volume', Source: volume, Target: target, ReadOnly: true, VolumeOptions: volumeOptions(hash) };
}

/** NoCopy, so that no image's files are copied into the volume; labels for a volume Docker makes for the mount. */
function volumeOptions(hash: string): Docker.MountSettings['VolumeOptions'] {
  // The type wants a DriverConfig: none is sent (the engine's default driver).
  const options: Omit<VolumeOptions, 'DriverConfig'> = { NoCopy: true, Labels: volumeLabels(hash) };
  return options as VolumeOptions;
}
type VolumeOptions = NonNullable<Docker.MountSettings['VolumeOptions']>;

/** What a pass of removeStale did. */
export interface StaleVolumesPass {
  /** Volumes removed. */
  removed: { name: string; bundle: string }[];
  /** Volumes of other versions a container still mounts (Docker answered 409), left for the next pass. */
  inUse: string[];
}

const statusOf = (err: unknown) => (err as { statusCode?: number })?.statusCode;

export class RunnerVolumes {
  private readonly filled = new Map<string, Promise<string>>();

  constructor(
    private readonly docker: Docker,
    /** Where the bundle is mounted (RUNNER_MOUNT). */
    private readonly mountDir: string,
  ) {}

  /** The volume holding `bundle`, filled once per bundle version (a volume without the complete mark is filled again). */
  volumeFor(bundle: RunnerBundleLike): Promise<string> {
    let v = this.filled.get(bundle.hash);
    if (!v) {
      v = this.fill(bundle);
      v.catch(() => this.filled.delete(bundle.hash));
      this.filled.set(bundle.hash, v);
    }
    return v;
  }

  /** Whether the runner volume mounted by `container` (created, not started) is complete: false when it was removed since it was filled and Docker made an empty one for this mount. */
  async holdsRunner(container: Docker.Container): Promise<boolean> {
    return container.getArchive({ path: `${this.mountDir}/${COMPLETE_MARK}` }).then(
      (s) => (s.resume(), true),
      (err) => {
        if (statusOf(err) === 404) return false;
        throw err;
      },
    );
  }

  /** Forgets that `bundle`'s volume was filled: the next volumeFor checks it again (and fills it when it is not complete). */
  forget(bundle: Pick<RunnerBundleLike, 'hash'>): void {
    this.filled.delete(bundle.hash);
  }

  /**
   * Removes the runner volumes svc made (the managed-by and bundle labels,
   * a runner volume's name) except `current`'s: those of other bundle
   * versions, and the unversioned ones of before v2, which are never mounted
   * again. A volume a container mounts (running, created or exited) is in
   * use (Docker answers 409): it stays until a later pass.
   */
  async removeStale(current: Pick<RunnerBundleLike, 'hash'>, onRemoved: (v: { name: string; bundle: string }) => void = () => undefined): Promise<StaleVolumesPass> {
    const keep = runnerVolumeName(current);
    const list = await this.docker.listVolumes({ filters: { label: [`${LABELS.managedBy}=${MANAGED_BY}`, BUNDLE_LABEL] } });
    const pass: StaleVolumesPass = { removed: [], inUse: [] };
    for (const v of list.Volumes ?? []) {
      const bundle = v.Labels?.[BUNDLE_LABEL];
      // The filter is the engine's: check again what decides a removal.
      if (!bundle || v.Labels?.[LABELS.managedBy] !== MANAGED_BY || !RUNNER_VOLUME_NAME.test(v.Name) || v.Name === keep) continue;
      try {
        await this.docker.getVolume(v.Name).remove();
      } catch (err) {
        if (statusOf(err) === 409) pass.inUse.push(v.Name);
        else if (statusOf(err) !== 404) throw err; // 404: another dispatcher's pass removed it first
        continue;
      }
      pass.removed.push({ name: v.Name, bundle });
      onRemoved({ name: v.Name, bundle });
    }
    return pass;
  }

  private async fill(bundle: RunnerBundleLike): Promise<string> {
    const name = runnerVolumeName(bundle);
    await this.docker.createVolume({ Name: name, Labels: volumeLabels(bundle.hash) });
    const image = await this.emptyImage();
    try {
      const filler = await this.createFiller(image, name, bundle.hash);
      try {
        const complete = await filler.getArchive({ path: `${this.mountDir}/${COMPLETE_MARK}` }).then(
          (s) => (s.resume(), true),
          (err) => {
            if (statusOf(err) === 404) return false;
            throw err;
          },
        );
        if (!complete) {
          await filler.putArchive(bundle.tar(), { path: this.mountDir });
          await filler.putArchive(markTar(), { path: this.mountDir });
        }
      } finally {
        await filler.remove({ force: true, v: false }).catch(() => undefined);
      }
    } finally {
      // Another dispatcher's filler may use the same id (imported in the same second): it stays then.
      await this.docker
        .getImage(image)
        .remove()
        .catch(() => undefined);
    }
    return name;
  }

  /** Imports an image from an empty tarball; returns its id (sha256:...), which no pull or tag can point elsewhere. */
  private async emptyImage(): Promise<string> {
    const pack = tar.pack();
    pack.finalize();
    const stream = (await this.docker.importImage(pack as unknown as NodeJS.ReadableStream, { repo: FILLER_REPO, tag: 'empty' })) as Readable;
    const events = await new Promise<{ status?: string; error?: string }[]>((resolve, reject) =>
      this.docker.modem.followProgress(stream, (err: Error | null, out: { status?: string; error?: string }[]) => (err ? reject(err) : resolve(out))),
    );
    const failed = events.find((e) => e.error);
    if (failed) throw new Error(`cannot make the runner volume's filler image: ${failed.error}`);
    const id = events.map((e) => e.status ?? '').find((s) => /^sha256:[0-9a-f]{64}$/.test(s));
    if (!id) throw new Error(`cannot make the runner volume's filler image: the engine answered ${JSON.stringify(events)}`);
    return id;
  }

  /** Creates the (never started) filler of volume `name`, waiting while another dispatcher holds it; a filler older than FILLER_STALE_MS was left by a dead dispatcher and is removed. */
  private async createFiller(image: string, name: string, hash: string): Promise<Docker.Container> {
    const fillerName = `${name}-filler`;
    const deadline = Date.now() + FILLER_WAIT_MS;
    for (;;) {
      try {
        return await this.docker.createContainer({
          name: fillerName,
          Image: image,
          Entrypoint: ['/.none'],
          Labels: { [LABELS.managedBy]: MANAGED_BY },
          HostConfig: {
            Mounts: [{ Type: 'volume', Source: name, Target: this.mountDir, VolumeOptions: volumeOptions(hash) }],
            NetworkMode: 'none',
          },
        });
      } catch (err) {
        if (statusOf(err) !== 409) throw err;
        const held = await this.docker
          .getContainer(fillerName)
          .inspect()
          .catch(() => null);
        if (held && Date.now() - Date.parse(held.Created) > FILLER_STALE_MS)
          await this.docker
            .getContainer(fillerName)
            .remove({ force: true })
            .catch(() => undefined);
        if (Date.now() > deadline) throw new Error(`the runner volume ${name} is being filled by another dispatcher for too long`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
}

/** A tar stream holding one empty file, COMPLETE_MARK. */
function markTar(): NodeJS.ReadableStream {
  const pack = tar.pack();
  pack.entry({ name: COMPLETE_MARK, mode: 0o644 }, '');
  pack.finalize();
  // A streamx stream: dockerode pipes it like a Node stream.
  return pack as unknown as NodeJS.ReadableStream;
}
