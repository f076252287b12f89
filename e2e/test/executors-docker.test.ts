// The docker executor end to end: real gateway, dispatcher and maintenance
// processes, and a real Docker engine (npm test starts one; images are built
// from this machine's files, no registry is reachable). The runner is
// injected into images that have nothing for it (a busybox image without any
// libc), or found on the PATH with inject_runner false; limits and labels
// reach the container; pull never with a missing image ends
// image_pull_failed; a missing runtime ends runtime_not_found naming the tool
// and the image; cancel stops the container; nothing is left behind, not even
// after a kill -9 of the dispatcher. Isolation: a task image cannot write the
// shared runner volume (it is filled without ever creating a container of a
// task image); containers run with no-new-privileges, without NET_RAW and
// the other dropped capabilities, under SVC_DOCKER_PIDS_LIMIT; a network a
// flow names must be SVC_DOCKER_NETWORK or listed in SVC_DOCKER_NETWORKS
// (host and container:<id> too), else the run fails executor_error. A file
// input reaches a task in a container (its runner fetches the upload).
//
// The stack's tasks run on the host network (SVC_DOCKER_NETWORK=host): this
// engine runs with --bridge=none and no test creates a bridge network. The
// network policy is tried on dispatchers of their own pools whose default is
// `none` (a refused task never gets a container).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import type Dockerode from 'dockerode';
import { ensureTestImages, testDocker, type TestImages } from '@svc/container-testing';
import { until } from './engine-support.js';
import { startStack, type Stack } from './stack.js';

const d = testDocker();
const skip = 'skip' in d ? `SKIPPED, no Docker engine: ${d.skip}` : false;
if (skip) process.stderr.write(`\n!!! ${skip}\n\n`);
let docker: Dockerode;
let images: TestImages;
let s: Stack;

const flow = (def: Record<string, unknown>) => JSON.stringify(def);
const NS = 'dock';
/** A task image that carries a runner of its own at the mount point, marked complete: it must reach no other task. */
const POISONED = 'svc-test/poisoned-runner:1';
let started: number;

/** POISONED: busybox plus /.svc-runner/{.svc-complete,svc.cjs}, as an attacker would push it. */
async function buildPoisonedImage(): Promise<void> {
  const script = 'mkdir -p /.svc-runner && touch /.svc-runner/.svc-complete && echo \'console.log("POISONED runner")\' > /.svc-runner/svc.cjs';
  const c = await docker.createContainer({ Image: images.busybox, Entrypoint: ['sh', '-c', script], HostConfig: { NetworkMode: 'none' } });
  try {
    await c.start();
    assert.equal(((await c.wait()) as { StatusCode: number }).StatusCode, 0);
    await c.commit({ repo: POISONED.split(':')[0], tag: POISONED.split(':')[1] });
  } finally {
    await c.remove({ force: true });
  }
}

before(async () => {
  if (skip) return;
  docker = (d as { docker: Dockerode }).docker;
  images = await ensureTestImages(docker);
  await buildPoisonedImage();
  // Best effort: runner volumes left by earlier runs go, so that this stack's first docker task is the one that fills its volume.
  for (const v of (await docker.listVolumes({ filters: JSON.stringify({ label: ['svc.dev/runner-bundle'] }) })).Volumes ?? [])
    await docker
      .getVolume(v.Name)
      .remove()
      .catch(() => undefined);
  started = Math.floor(Date.now() / 1000);
  const host = (d as { host: string }).host;
  s = await startStack({
    env: {
      SVC_EXECUTORS: 'process,docker',
      SVC_DOCKER_HOST: host,
      SVC_KILL_DELAY_MS: '2000',
      SVC_DEFAULT_EXECUTOR: 'docker',
      SVC_DEFAULT_IMAGE: images.musl,
      SVC_DOCKER_NETWORK: 'host',
      SVC_DOCKER_NETWORKS: 'host',
      SVC_DOCKER_PIDS_LIMIT: '300',
    },
  });
  // The network policy's dispatchers: default network none; one allows nothing more, one allows host.
  const strict = { SVC_EXECUTORS: 'docker', SVC_DOCKER_HOST: host, SVC_DOCKER_NETWORK: 'none' };
  // An empty variable counts as unset: no network but the default is allowed (the stack's own allows host).
  s.startApp('dispatcher', { ...strict, SVC_POOLS: 'netdefault', SVC_DOCKER_NETWORKS: '' });
  s.startApp('dispatcher', { ...strict, SVC_POOLS: 'nethost', SVC_DOCKER_NETWORKS: 'host' });
  const onNet = (id: string, pool: string, network: string) =>
    flow({ id, tasks: [{ id: 't', type: 'command', executor: { type: 'docker', image: images.busybox, pool, network }, command: ['sh', '-c', 'echo on the network'] }] });
  await s.saveFlow(NS, {
    'hello.sh': 'echo "hello from $(cat /etc/os-release 2>/dev/null | head -c0)bash $BASH_VERSION"\necho "to stderr" >&2\necho \'{"outputs": {"n": 42}}\' >> "$SVC_OUTPUTS"\n',
    'busy.flow.yaml': flow({
      id: 'busy',
      executor: { type: 'docker', image: images.busybox },
      tasks: [{ id: 'b', type: 'command', command: ['sh', '-c', 'echo busybox says hi; ls /lib 2>&1 | head -3; grep -E "^(CapEff|NoNewPrivs):" /proc/self/status; exit 0'] }],
    }),
    'slim.flow.yaml': flow({ id: 'slim', executor: { type: 'docker', image: images.debian }, tasks: [{ id: 's', type: 'script', file: 'hello.sh' }] }),
    'onpath.flow.yaml': flow({
      id: 'onpath',
      tasks: [
        {
          id: 'p',
          type: 'command',
          executor: { type: 'docker', image: images.withSvc, inject_runner: false },
          command: ['sh', '-c', 'echo runner from the image; command -v svc'],
        },
      ],
    }),
    'limited.flow.yaml': flow({
      id: 'limited',
      executor: { type: 'docker', image: images.busybox, resources: { limits: { cpu: '500m', memory: '64Mi' } } },
      tasks: [{ id: 'slow', type: 'command', command: ['sh', '-c', 'echo started; sleep 60'] }],
    }),
    'unpullable.flow.yaml': flow({
      id: 'unpullable',
      tasks: [{ id: 'u', type: 'command', executor: { type: 'docker', image: '127.0.0.1:1/nothing:1', pull: 'always' }, command: ['true'] }],
    }),
    'missing.flow.yaml': flow({ id: 'missing', tasks: [{ id: 'm', type: 'command', executor: { type: 'docker', image: 'local/not-here:1', pull: 'never' }, command: ['true'] }] }),
    'noruntime.py': 'print("never")\n',
    'noruntime.flow.yaml': flow({ id: 'noruntime', executor: { type: 'docker', image: images.busybox }, tasks: [{ id: 'py', type: 'script', file: 'noruntime.py' }] }),
    'poisoned.flow.yaml': flow({
      id: 'poisoned',
      executor: { type: 'docker', image: POISONED },
      tasks: [{ id: 'p', type: 'command', command: ['sh', '-c', 'echo poisoned image ran its task'] }],
    }),
    'clean.flow.yaml': flow({
      id: 'clean',
      executor: { type: 'docker', image: images.debian },
      tasks: [{ id: 'c', type: 'command', command: ['sh', '-c', 'echo clean image ran its task'] }],
    }),
    'hostnet-default.flow.yaml': onNet('hostnet-default', 'netdefault', 'host'),
    'container-net.flow.yaml': onNet('container-net', 'nethost', 'container:svc-some-container'),
    'other-net.flow.yaml': onNet('other-net', 'nethost', 'etl-net'),
    'hostnet-listed.flow.yaml': onNet('hostnet-listed', 'nethost', 'host'),
    'withfile.flow.yaml': flow({
      id: 'withfile',
      inputs: [{ id: 'report', type: 'file', required: true }],
      executor: { type: 'docker', image: images.busybox },
      tasks: [
        {
          id: 'read',
          type: 'command',
          env: { F: '{{ inputs.report }}' },
          command: ['sh', '-c', 'printf \'{"outputs":{"path":"%s","sha":"%s","first":"%s"}}\\n\' "$F" "$(sha256sum "$F" | cut -c1-64)" "$(head -n1 "$F")" >> "$SVC_OUTPUTS"'],
        },
      ],
    }),
    'survive.flow.yaml': flow({
      id: 'survive',
      executor: { type: 'docker', image: images.busybox },
      tasks: [{ id: 'long', type: 'command', command: ['sh', '-c', 'sleep 4; echo still here'] }],
    }),
  });
  // No executor anywhere: SVC_DEFAULT_EXECUTOR (docker here) and SVC_DEFAULT_IMAGE.
  await s.saveFlow('dockdefault', {
    'noimage.flow.yaml': flow({ id: 'noimage', tasks: [{ id: 'n', type: 'command', command: ['sh', '-c', 'ls /lib/ld-musl-x86_64.so.1'] }] }),
  });
});
after(async () => {
  if (skip) return;
  await s?.stop();
});

/** Containers the engine created since the stack started from `image`: [name, image]. */
async function containersCreatedFrom(image: string): Promise<string[]> {
  const stream = (await docker.getEvents({
    since: started,
    until: Math.ceil(Date.now() / 1000),
    filters: JSON.stringify({ type: ['container'], event: ['create'] }),
  })) as unknown as NodeJS.ReadableStream;
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { Actor: { Attributes: { name: string; image: string } } })
    .filter((e) => e.Actor.Attributes.image === image)
    .map((e) => e.Actor.Attributes.name);
}

const logsOf = async (id: string) =>
  (await s.db.query(`SELECT task_key, stream, text FROM log_lines WHERE execution_id = $1 ORDER BY task_key, n`, [id])).rows as {
    task_key: string;
    stream: string;
    text: string;
  }[];
const containersOf = (executionId: string) => docker.listContainers({ all: true, filters: { label: [`svc.dev/execution-id=${executionId}`] } });

// First: the stack's first docker task fills the runner volume, and its image carries a runner of its own.
test("a task image cannot write the runner volume: no container of it but its task's is created, and the next task gets the real runner", { skip }, async () => {
  const e = await s.trigger(NS, 'poisoned');
  const done = await s.waitEnded(e.id, 120_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.ok(
    (await logsOf(e.id)).some((l) => l.text === 'poisoned image ran its task'),
    'its own runner is hidden under the real one',
  );
  const clean = await s.waitEnded((await s.trigger(NS, 'clean')).id, 120_000);
  assert.equal(clean.state, 'SUCCESS', JSON.stringify(clean));
  assert.ok((await logsOf(clean.id)).some((l) => l.text === 'clean image ran its task'));
  const created = await containersCreatedFrom(POISONED);
  assert.deepEqual(created, [`svc-${done.task_runs[0].id.toLowerCase()}`], 'the only container of the task image is its task container');
});

test('a command task runs in a busybox image with no libc: the injected runner needs nothing from it', { skip }, async () => {
  const e = await s.trigger(NS, 'busy');
  const done = await s.waitEnded(e.id, 120_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(done.task_runs[0].executor_type, 'docker');
  const lines = await logsOf(e.id);
  assert.ok(
    lines.some((l) => l.text === 'busybox says hi'),
    JSON.stringify(lines),
  );
  // As the task's process sees it: no setuid gain, and no NET_RAW (capability bit 13).
  assert.ok(
    lines.some((l) => /^NoNewPrivs:\s+1$/.test(l.text)),
    JSON.stringify(lines),
  );
  const capEff = BigInt(`0x${/^CapEff:\s+([0-9a-f]+)$/.exec(lines.find((l) => l.text.startsWith('CapEff:'))!.text)![1]}`);
  assert.equal(capEff & (1n << 13n), 0n, `NET_RAW dropped: CapEff ${capEff.toString(16)}`);
  // The runner reports the end before its process exits: the container goes a moment later.
  for (let i = 0; i < 100 && (await containersOf(e.id)).length; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(await containersOf(e.id), [], 'the container is removed after the run');
});

test('a bash script runs in a slim glibc image: logs of both streams and outputs come back', { skip }, async () => {
  const e = await s.trigger(NS, 'slim');
  const done = await s.waitEnded(e.id, 120_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  const lines = await logsOf(e.id);
  assert.ok(
    lines.some((l) => l.stream === 'stdout' && /^hello from bash \d/.test(l.text)),
    JSON.stringify(lines),
  );
  assert.ok(lines.some((l) => l.stream === 'stderr' && l.text === 'to stderr'));
  assert.deepEqual(done.task_runs[0].outputs, { n: 42 });
  assert.equal(done.task_runs[0].exit_code, 0);
  // The runner reported its start: the task run's progress.
  assert.equal(done.task_runs[0].progress?.type, 'started');
  assert.match(done.task_runs[0].progress?.message ?? '', /started in image/);
});

test('a file input reaches a task in a container: its runner fetches the upload, and the task reads it at the path it was given', { skip }, async () => {
  const body = Buffer.from(`first line of the report\n${'x'.repeat(300_000)}\n`);
  const r = await fetch(`${s.url}/api/v1/namespaces/${NS}/uploads?name=report.txt`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/octet-stream' },
    body,
  });
  assert.equal(r.status, 201, await r.clone().text());
  const upload = (await r.json()) as { id: string };
  const e = await s.trigger(NS, 'withfile', { inputs: { report: upload.id } });
  const done = await s.waitEnded(e.id, 120_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(done.task_runs[0].executor_type, 'docker');
  const out = done.task_runs[0].outputs as { path: string; sha: string; first: string };
  assert.equal(out.sha, crypto.createHash('sha256').update(body).digest('hex'), 'the bytes the task read are the upload');
  assert.equal(out.first, 'first line of the report');
  assert.match(out.path, /report\.txt$/);
});

test('a task that names no executor runs on SVC_DEFAULT_EXECUTOR in SVC_DEFAULT_IMAGE (here docker and the musl image, with no glibc)', { skip }, async () => {
  const e = await s.trigger('dockdefault', 'noimage');
  const done = await s.waitEnded(e.id, 120_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.ok((await logsOf(e.id)).some((l) => l.text === '/lib/ld-musl-x86_64.so.1'));
});

test('inject_runner false runs the svc found on the image PATH', { skip }, async () => {
  const e = await s.trigger(NS, 'onpath');
  const done = await s.waitEnded(e.id, 120_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  const lines = await logsOf(e.id);
  assert.ok(lines.some((l) => l.text === 'runner from the image'));
  assert.ok(
    lines.some((l) => /\/svc$/.test(l.text)),
    'svc is on the PATH of the image',
  );
});

test('limits and labels reach the container; cancel stops it within the grace and it is removed', { skip }, async () => {
  const e = await s.trigger(NS, 'limited');
  const running = await s.waitFor(e.id, (x) => x.task_runs[0]?.state === 'RUNNING', 60_000);
  const taskRunId = running.task_runs[0].id as string;
  let listed: Dockerode.ContainerInfo[] = [];
  for (let i = 0; i < 600 && !listed.length; i++) {
    listed = (await containersOf(e.id)).filter((c) => c.State === 'running');
    if (!listed.length) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(listed.length, 1, 'one running container');
  const info = await docker.getContainer(listed[0]!.Id).inspect();
  assert.equal(info.HostConfig.NanoCpus, 500_000_000);
  assert.equal(info.HostConfig.Memory, 64 * 1024 * 1024);
  assert.equal(info.HostConfig.NetworkMode, 'host', 'SVC_DOCKER_NETWORK');
  assert.deepEqual(info.HostConfig.SecurityOpt, ['no-new-privileges']);
  assert.ok(info.HostConfig.CapDrop?.includes('NET_RAW'), JSON.stringify(info.HostConfig.CapDrop));
  assert.equal(info.HostConfig.PidsLimit, 300, 'SVC_DOCKER_PIDS_LIMIT');
  assert.equal(info.Config.Labels['svc.dev/task-run-id'], taskRunId);
  assert.equal(info.Config.Labels['svc.dev/namespace'], NS);
  assert.equal(info.Config.Labels['svc.dev/flow-id'], 'limited');
  assert.equal(info.Config.Labels['svc.dev/task-id'], 'slow');
  assert.ok(!info.Config.Env.some((v) => v.startsWith('SVC_MASTER_KEYS')), 'no service secret in the container');
  const workVolume = info.Mounts.find((m) => m.Destination === '/.svc-work')?.Name;
  assert.ok(workVolume, 'the run works in a volume of its own');
  assert.equal(info.Mounts.find((m) => m.Destination === '/.svc-runner')?.RW, false, 'the injected runner is mounted read-only');
  await until('the task to start', async () => (await logsOf(e.id)).some((l) => l.text === 'started'), 30_000).catch(() => undefined);

  const t0 = Date.now();
  assert.equal((await s.api('POST', `/api/v1/executions/${e.id}/cancel`)).status, 200);
  const done = await s.waitEnded(e.id, 60_000);
  assert.equal(done.state, 'CANCELLED', JSON.stringify(done));
  assert.equal(done.task_runs[0].state, 'CANCELLED');
  assert.ok(Date.now() - t0 < 15_000, `cancelled within the grace (${Date.now() - t0} ms)`);
  for (let i = 0; i < 100 && (await containersOf(e.id)).length; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(await containersOf(e.id), [], 'the container is removed');
  await assert.rejects(docker.getVolume(workVolume!).inspect(), "the run's volume is removed with it");
});

test("a container killed outright after its task started ends the run lost (the spec's reason for lost work)", { skip }, async () => {
  const e = await s.trigger(NS, 'limited');
  await until('the task to start', async () => (await logsOf(e.id)).some((l) => l.text === 'started'), 60_000);
  const [c] = (await containersOf(e.id)).filter((x) => x.State === 'running');
  assert.ok(c, 'its container runs');
  // SIGKILL to the container: its runner dies with the task, and reports nothing.
  await docker.getContainer(c.Id).kill({ signal: 'SIGKILL' });
  const done = await s.waitEnded(e.id, 60_000);
  assert.equal(done.state, 'FAILED');
  assert.equal(done.task_runs[0].reason, 'lost', JSON.stringify(done.task_runs[0]));
  assert.match(done.task_runs[0].error, /exited with code 137 before its runner reported an end/);
});

test(
  'a network the flow names: host refused by default, listed ones run, container: and others refused unless listed; the error names the network and the setting',
  { skip },
  async () => {
    const ended = async (flowId: string) => {
      const e = await s.trigger(NS, flowId);
      const done = await s.waitEnded(e.id, 120_000);
      return { e, done, run: done.task_runs[0] };
    };
    const refused = [
      ['hostnet-default', 'host', /it lists none for namespace dock/],
      ['container-net', 'container:svc-some-container', /it lists host/],
      ['other-net', 'etl-net', /it lists host/],
    ] as const;
    for (const [flowId, network, listed] of refused) {
      const { e, done, run } = await ended(flowId);
      assert.equal(done.state, 'FAILED', `${flowId}: ${JSON.stringify(done)}`);
      assert.equal(run.reason, 'executor_error', flowId);
      assert.ok(run.error.includes(`the network ${network} is not allowed`) && run.error.includes('SVC_DOCKER_NETWORKS'), run.error);
      assert.match(run.error, listed);
      assert.deepEqual(await containersOf(e.id), [], `${flowId}: no container`);
    }
    const { done } = await ended('hostnet-listed');
    assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  },
);

test('pull never with a missing image ends image_pull_failed with the reason', { skip }, async () => {
  const e = await s.trigger(NS, 'missing');
  const done = await s.waitEnded(e.id, 60_000);
  assert.equal(done.state, 'FAILED');
  assert.equal(done.task_runs[0].reason, 'image_pull_failed');
  assert.match(done.task_runs[0].error, /local\/not-here:1.*not present.*never/);
});

test("pull always from a registry that does not answer ends image_pull_failed with the engine's message", { skip }, async () => {
  const e = await s.trigger(NS, 'unpullable');
  const done = await s.waitEnded(e.id, 60_000);
  assert.equal(done.state, 'FAILED');
  assert.equal(done.task_runs[0].reason, 'image_pull_failed');
  assert.match(
    done.task_runs[0].error,
    /^pulling image 127\.0\.0\.1:1\/nothing:1 from 127\.0\.0\.1:1 anonymously \(SVC_DOCKER_REGISTRY_AUTH has no credential for this image\) failed: .*(refused|connect)/,
  );
});

test('a python script in an image without python ends runtime_not_found naming the tool and the image', { skip }, async () => {
  const e = await s.trigger(NS, 'noruntime');
  const done = await s.waitEnded(e.id, 120_000);
  assert.equal(done.state, 'FAILED');
  assert.equal(done.task_runs[0].reason, 'runtime_not_found');
  assert.match(done.task_runs[0].error, /python3 or python not found/);
  assert.ok(done.task_runs[0].error.includes(images.busybox), done.task_runs[0].error);
});

test('after a kill -9 of the dispatcher its container keeps reporting, and the next dispatcher removes what is left', { skip }, async () => {
  const e = await s.trigger(NS, 'survive');
  await s.waitFor(e.id, (x) => x.task_runs[0]?.state === 'RUNNING', 60_000);
  let ours: Dockerode.ContainerInfo[] = [];
  for (let i = 0; i < 600 && !ours.length; i++) {
    ours = (await containersOf(e.id)).filter((c) => c.State === 'running');
    if (!ours.length) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(ours.length, 1);
  const dispatcher = s.procs.find((p) => p.child.spawnargs.some((a) => a.includes('/dispatcher/')) && p.child.exitCode === null)!;
  dispatcher.child.kill('SIGKILL');
  await dispatcher.exited;
  // The runner in the container reports to the gateway by itself: the run ends as the task does.
  const done = await s.waitEnded(e.id, 60_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.ok((await logsOf(e.id)).some((l) => l.text === 'still here'));
  assert.equal((await containersOf(e.id)).length, 1, 'the exited container is left by the dead dispatcher');
  s.startApp('dispatcher');
  for (let i = 0; i < 300 && (await containersOf(e.id)).length; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(await containersOf(e.id), [], 'the next dispatcher removed it');
});
