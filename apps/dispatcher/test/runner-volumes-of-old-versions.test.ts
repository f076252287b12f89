// The runner volumes of other runner versions go, against the real Docker
// engine of the test run: a pass of RunnerVolumes.removeStale removes a
// labelled `svc-runner-v2-<hash>` of another version that no container mounts
// and an old unversioned `svc-runner-<hash>`; it keeps one mounted by a
// container that is only created (an older dispatcher between creating its
// task's container and starting it) until that container is gone, a volume
// with a runner volume's name but not svc's labels, a labelled volume of
// another name, and the current version's. A dispatcher whose volume was
// removed between its tasks finds it empty in its next container and fills it
// again. While a dispatcher of another build version is online, no pass runs.
// The docker executor of a dispatcher runs a pass once its runner volume is
// ready (its first task), logs and counts each removal, and fills its volume
// again when it was removed between its tasks.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import type Dockerode from 'dockerode';
import client from 'prom-client';
import tar from 'tar-stream';
import { ensureTestImages, testDocker, TEST_LABEL } from '@svc/container-testing';
import type { InstanceRow } from '@svc/db';
import { ensureRunnerBundle, RUNNER_MOUNT } from '@svc/runner-bundle';
import { LABELS, MANAGED_BY } from '../src/executors/container-task.js';
import { BUNDLE_LABEL, RunnerVolumes, runnerMount, runnerVolumeName, type RunnerBundleLike } from '../src/executors/docker-runner-volume.js';
import { dockerExecutor, keepOtherVersions } from '../src/executors/docker.js';
import { startDispatcher, until } from './support.js';

const d = testDocker();
const skip = 'skip' in d ? `SKIPPED, no Docker engine: ${d.skip}` : false;
if (skip) process.stderr.write(`\n!!! ${skip}\n\n`);
let docker: Dockerode;
let image: string;
let current: RunnerBundleLike;
/** Volumes and containers this file made, removed at the end. */
const volumes = new Set<string>();
const containers = new Set<string>();

const hex = () => crypto.randomBytes(32).toString('hex');
const svcLabels = (hash: string) => ({ [LABELS.managedBy]: MANAGED_BY, [BUNDLE_LABEL]: hash });

async function volume(name: string, labels: Record<string, string>): Promise<string> {
  await docker.createVolume({ Name: name, Labels: labels });
  volumes.add(name);
  return name;
}
const exists = (name: string) =>
  docker
    .getVolume(name)
    .inspect()
    .then(
      () => true,
      (err: { statusCode?: number }) => (err.statusCode === 404 ? false : Promise.reject(err as Error)),
    );

/** A container mounting `name` at RUNNER_MOUNT, created and never started. */
async function created(name: string, hash: string): Promise<Dockerode.Container> {
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['/bin/true'],
    Labels: { [TEST_LABEL]: '1' },
    HostConfig: { NetworkMode: 'none', Mounts: [runnerMount(name, RUNNER_MOUNT, hash)] },
  });
  containers.add(c.id);
  return c;
}

/** A bundle of one small file, of a version no dispatcher runs. */
function smallBundle(): RunnerBundleLike {
  return {
    hash: hex(),
    argv: (dir) => [`${dir}/svc`],
    tar() {
      const pack = tar.pack();
      pack.entry({ name: 'svc', mode: 0o755 }, '#!/bin/sh\n');
      pack.finalize();
      return pack as unknown as NodeJS.ReadableStream;
    },
  };
}

before(async () => {
  if (skip) return;
  docker = (d as { docker: Dockerode }).docker;
  image = (await ensureTestImages(docker)).busybox;
  // The real current version: other test files' dispatchers share this engine and keep this one.
  current = await ensureRunnerBundle();
});

after(async () => {
  if (skip) return;
  for (const id of containers)
    await docker
      .getContainer(id)
      .remove({ force: true })
      .catch(() => undefined);
  for (const name of volumes)
    await docker
      .getVolume(name)
      .remove()
      .catch(() => undefined);
});

test("a pass removes other versions' unused runner volumes and keeps the current one, mounted ones and volumes svc did not label", { skip }, async () => {
  const stale = await volume(runnerVolumeName({ hash: hex() }), svcLabels('0'.repeat(64)));
  const oldHash = hex();
  const unversioned = await volume(`svc-runner-${oldHash.slice(0, 32)}`, svcLabels(oldHash));
  const heldHash = hex();
  const held = await volume(runnerVolumeName({ hash: heldHash }), svcLabels(heldHash));
  const holder = await created(held, heldHash);
  const unlabelled = await volume(runnerVolumeName({ hash: hex() }), { owner: 'someone-else' });
  const onlyManagedBy = await volume(runnerVolumeName({ hash: hex() }), { [LABELS.managedBy]: MANAGED_BY });
  const otherName = await volume(`svc-runner-cache-${hex().slice(0, 8)}`, svcLabels(hex()));
  const currentName = runnerVolumeName(current);
  const currentExisted = await exists(currentName);
  if (!currentExisted) await volume(currentName, svcLabels(current.hash));

  const vols = new RunnerVolumes(docker, RUNNER_MOUNT);
  const logged: string[] = [];
  const pass = await vols.removeStale(current, (v) => logged.push(v.name));

  // Another test file's dispatcher may have removed one of them first (it counts them, not this pass): what is gone is what matters.
  assert.equal(await exists(stale), false, 'the unused volume of another version is removed');
  assert.equal(await exists(unversioned), false, 'the unversioned volume of before v2 is removed');
  for (const name of logged) assert.ok([stale, unversioned].includes(name), `only stale volumes are reported removed: ${name}`);
  assert.deepEqual(
    pass.removed.map((r) => r.name),
    logged,
    'each removed volume is reported',
  );
  assert.ok(pass.inUse.includes(held), 'the volume a created container mounts is reported in use');
  for (const [name, why] of [
    [held, 'mounted by a created, never started container'],
    [unlabelled, 'not labelled by svc'],
    [onlyManagedBy, 'no bundle label'],
    [otherName, 'not a runner volume name'],
    [currentName, 'the current version'],
  ])
    assert.equal(await exists(name), true, `kept: ${why}`);

  await holder.remove({ force: true });
  containers.delete(holder.id);
  const again = await vols.removeStale(current);
  assert.equal(await exists(held), false, 'removed once no container mounts it');
  assert.ok(!again.inUse.includes(held));
  for (const name of [unlabelled, onlyManagedBy, otherName, currentName]) assert.equal(await exists(name), true, `${name} still kept`);
});

test('a dispatcher whose volume was removed between its tasks finds it empty in its next container and fills it again', { skip }, async () => {
  const bundle = smallBundle();
  const vols = new RunnerVolumes(docker, RUNNER_MOUNT);
  const name = await vols.volumeFor(bundle);
  volumes.add(name);
  const first = await created(name, bundle.hash);
  assert.equal(await vols.holdsRunner(first), true, 'a filled volume holds the runner');
  await first.remove({ force: true });
  containers.delete(first.id);

  // A newer dispatcher's pass: this version is not its current one.
  await vols.removeStale(current);
  assert.equal(await exists(name), false);
  assert.equal(await vols.volumeFor(bundle), name, 'the volume is still remembered as filled');

  const next = await created(name, bundle.hash);
  assert.equal(await vols.holdsRunner(next), false, 'Docker made an empty volume for the mount');
  const made = await docker.getVolume(name).inspect();
  assert.deepEqual(made.Labels, svcLabels(bundle.hash), "it carries svc's labels, so a later pass can remove it");
  await next.remove({ force: true });
  containers.delete(next.id);

  vols.forget(bundle);
  await vols.volumeFor(bundle);
  const retried = await created(name, bundle.hash);
  assert.equal(await vols.holdsRunner(retried), true, 'filled again');
  const files = await new Promise<string[]>((resolve, reject) => {
    void retried.getArchive({ path: `${RUNNER_MOUNT}/svc` }).then((stream) => {
      const names: string[] = [];
      const extract = tar.extract();
      extract.on('entry', (h, s, next) => {
        names.push(h.name);
        s.on('end', next);
        s.resume();
      });
      extract.on('finish', () => resolve(names));
      extract.on('error', reject);
      stream.pipe(extract);
    }, reject);
  });
  assert.deepEqual(files, ['svc'], "the bundle's files are back");
});

test('no pass while an online dispatcher runs another build version, or its own row is missing', () => {
  const row = (id: string, version: string, over: Partial<InstanceRow> = {}): InstanceRow => ({
    id,
    kind: 'dispatcher',
    hostname: 'h',
    version,
    pools: [],
    executors: ['docker'],
    startedAt: new Date(),
    lastHeartbeatAt: new Date(),
    stoppedAt: null,
    online: true,
    ...over,
  });
  assert.equal(keepOtherVersions([row('me', '2.0'), row('b', '2.0')], 'me'), undefined, 'same version: the pass runs');
  assert.equal(keepOtherVersions([row('me', '2.0'), row('old', '1.9')], 'me'), 'dispatcher old of version 1.9 is online (this one is 2.0)');
  assert.equal(keepOtherVersions([row('me', '2.0'), row('old', '1.9', { online: false })], 'me'), undefined, 'an offline one does not count');
  assert.equal(keepOtherVersions([row('me', '2.0'), row('gw', '1.9', { kind: 'api-gateway' })], 'me'), undefined, 'only dispatchers count');
  assert.match(keepOtherVersions([row('old', '1.9')], 'me') ?? '', /no online instance row/, 'without its own row it cannot tell: kept');
});

test("the docker executor removes other versions' volumes once its own is ready, logs and counts each, and fills its own again when it went", { skip }, async () => {
  const staleHash = hex();
  const stale = await volume(runnerVolumeName({ hash: staleHash }), svcLabels(staleHash));
  const bundle = smallBundle();
  volumes.add(runnerVolumeName(bundle));
  const registry = new client.Registry();
  let exec: ReturnType<typeof dockerExecutor> | undefined;
  const env = await startDispatcher(
    { 'boxed.flow.yaml': JSON.stringify({ id: 'boxed', tasks: [{ id: 'b', type: 'command', executor: { type: 'docker', image, pull: 'never' }, command: ['true'] }] }) },
    {
      extraExecutors: (ctx) => [
        // No bridge network on the test engine: tasks run without a network (the fake runner needs none).
        (exec = dockerExecutor(
          { ...ctx, config: { ...ctx.config, dockerNetwork: 'none' } },
          { docker, bundle: () => Promise.resolve(bundle), runnerMount: RUNNER_MOUNT, metrics: registry },
        )),
      ],
    },
  );
  const removedCount = async () => (await registry.getSingleMetric('svc_dispatcher_runner_volumes_removed_total')!.get()).values[0]?.value ?? 0;
  const removedLogs = () => env.logs().filter((l) => l.message === 'removed the runner volume of another runner version');
  try {
    await exec!.ready();
    assert.equal(await exists(stale), true, 'no pass before the runner volume is ready');
    // The fake runner exits 0 without reporting: the run fails, after its container ran the runner from the volume.
    const first = await env.ended(await env.trigger('boxed'));
    assert.match(first.runs[0].error, /exited with code 0 before its runner reported an end/);
    await until('the pass after the first task', () => removedLogs().length > 0);
    assert.equal(await exists(stale), false, 'the unused volume of another version is removed');
    // Its own is never removed by its pass (other test files' dispatchers, of the real version, may remove it: it is not theirs).
    assert.ok(!removedLogs().some((l) => l.volume === runnerVolumeName(bundle)), 'its own is kept');
    // The engine may hold other versions' volumes of earlier runs: this pass removes them too.
    assert.deepEqual(
      removedLogs()
        .filter((l) => l.volume === stale)
        .map((l) => [l.level, l.runner_bundle]),
      [['info', staleHash]],
    );
    const removed = removedLogs().length;
    assert.equal(await removedCount(), removed, 'each removal is counted');
    assert.match(await registry.metrics(), new RegExp(`^svc_dispatcher_runner_volumes_removed_total ${removed}$`, 'm'));

    // A newer dispatcher removed this one's volume while it had no task: its next task fills it again.
    // Once the first task's container is gone (its dispatcher removes it just after the run ended).
    await until(
      'its own volume removed',
      () =>
        docker
          .getVolume(runnerVolumeName(bundle))
          .remove()
          .then(
            () => true,
            (err: { statusCode?: number }) => (err.statusCode === 404 ? true : err.statusCode === 409 ? false : Promise.reject(err as Error)),
          ),
      10_000,
    );
    const second = await env.ended(await env.trigger('boxed'));
    assert.match(second.runs[0].error, /exited with code 0 before its runner reported an end/, 'the runner was there: the container started it');
    assert.ok(env.logs().some((l) => l.message === 'the runner volume was removed since it was filled: filling it again' && l.volume === runnerVolumeName(bundle)));

    // While a dispatcher of another version is online, a pass removes nothing (its idle dispatchers need their volume).
    await volume(runnerVolumeName({ hash: hex() }), svcLabels(hex()));
    await env.pool.query(
      `INSERT INTO instances (id, kind, hostname, version, pools, executors, started_at, last_heartbeat_at, metadata) VALUES ('older', 'dispatcher', 'h', 'older', '{}', '{docker}', now(), now(), '{}')`,
    );
    await exec!.removeStaleVolumes();
    assert.ok(env.logs().some((l) => l.message === 'runner volumes of other versions are kept for now' && /dispatcher older of version older is online/.test(String(l.reason))));
    assert.equal(await removedCount(), removed, 'nothing more removed');
  } finally {
    exec?.close?.();
    await env.close();
  }
});
