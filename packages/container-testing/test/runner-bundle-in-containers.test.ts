// The runner bundle runs `svc exec` to its end inside containers of every
// kind of image, against the in-memory runner server on the host's loopback
// (the containers use the host network): a glibc image, a musl image and a
// busybox image with no libc at all, the bundle mounted or copied in; an image
// that carries svc on its PATH; and the Kubernetes way, `svc install-runner`
// from the runner image into a shared directory, then run from there.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { makeSpec, RunnerServer, tempRoot } from '@svc/runner/testing';
import { ensureRunnerBundle, RUNNER_MOUNT, type RunnerBundle } from '@svc/runner-bundle';
import { ensureTestImages, runContainer, testDocker, type TestImages } from '../src/index.js';

const d = testDocker();
const skip = 'skip' in d ? d.skip : false;
const TOKEN = 'container-token';
const TASK = ['sh', '-c', 'echo hello; echo oops >&2; exit 3'];

let bundle: RunnerBundle;
let images: TestImages;
const cleanups: (() => Promise<unknown>)[] = [];
before(async () => {
  if (skip || 'skip' in d) return;
  bundle = await ensureRunnerBundle();
  images = await ensureTestImages(d.docker, { bundle });
});
after(() => Promise.all(cleanups.map((c) => c())));

async function server(command = TASK, extra: Partial<Parameters<typeof makeSpec>[0]> = {}) {
  const spec = makeSpec({ command, ...extra });
  const s = await new RunnerServer({ token: TOKEN, spec }).start();
  cleanups.push(() => s.stop());
  return { s, spec };
}

function execArgs(s: RunnerServer, taskRunId: string) {
  return ['exec', '--server', s.url, '--task-run', taskRunId];
}

/** What the server received of the standard task: its two lines and its end. */
function assertStandardTask(s: RunnerServer) {
  assert.deepEqual(
    s.lines.map((l) => [l.n, l.stream, l.text]),
    [
      [1, 'stdout', 'hello'],
      [2, 'stderr', 'oops'],
    ],
  );
  assert.equal(s.completions.length, 1);
  assert.equal(s.completions[0]!.state, 'FAILED');
  assert.equal(s.completions[0]!.exit_code, 3);
}

for (const kind of ['debian', 'musl'] as const) {
  test(`svc exec from the bundle mounted read-only runs a task to its end in the ${kind} image`, { skip }, async () => {
    if ('skip' in d) return;
    const { s, spec } = await server();
    const r = await runContainer(d.docker, {
      Image: images[kind],
      Cmd: [...bundle.argv(), ...execArgs(s, spec.task_run_id)],
      Env: [`SVC_RUN_TOKEN=${TOKEN}`],
      HostConfig: { Binds: [`${bundle.dir}:${RUNNER_MOUNT}:ro`] },
    });
    assert.equal(r.exitCode, 0, r.stderr);
    assertStandardTask(s);
  });
}

test('svc exec from the bundle copied in (putArchive) runs a task to its end in the busybox image with no libc', { skip }, async () => {
  if ('skip' in d) return;
  const { s, spec } = await server();
  const r = await runContainer(
    d.docker,
    { Image: images.busybox, Cmd: [...bundle.argv(), ...execArgs(s, spec.task_run_id)], Env: [`SVC_RUN_TOKEN=${TOKEN}`] },
    { beforeStart: (c) => c.putArchive(bundle.tar(RUNNER_MOUNT.slice(1)), { path: '/' }).then(() => undefined) },
  );
  assert.equal(r.exitCode, 0, r.stderr);
  assertStandardTask(s);
  // No glibc in the image itself: the bundle brought its own.
  const probe = await runContainer(d.docker, { Image: images.busybox, Cmd: ['sh', '-c', 'ls /lib /lib64 /usr/lib 2>&1; true'] });
  assert.doesNotMatch(probe.stdout, /libc\.so|ld-linux/);
});

test('a runtime the busybox image lacks ends runtime_not_found', { skip }, async () => {
  if ('skip' in d) return;
  const { s, spec } = await server(['-c', 'print(1)'], { runtime: 'python' });
  const r = await runContainer(d.docker, {
    Image: images.busybox,
    Cmd: [...bundle.argv(), ...execArgs(s, spec.task_run_id)],
    Env: [`SVC_RUN_TOKEN=${TOKEN}`],
    HostConfig: { Binds: [`${bundle.dir}:${RUNNER_MOUNT}:ro`] },
  });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(s.completions[0]?.state, 'FAILED');
  assert.equal(s.completions[0]?.reason, 'runtime_not_found');
  assert.match(s.completions[0]?.error ?? '', /python3 or python not found/);
});

test('svc exec found on the PATH of the withSvc image (inject_runner: false) runs a task to its end', { skip }, async () => {
  if ('skip' in d) return;
  const { s, spec } = await server();
  const r = await runContainer(d.docker, { Image: images.withSvc, Cmd: ['svc', ...execArgs(s, spec.task_run_id)], Env: [`SVC_RUN_TOKEN=${TOKEN}`] });
  assert.equal(r.exitCode, 0, r.stderr);
  assertStandardTask(s);
});

test('svc install-runner from the runner image fills a shared directory that another image then runs svc exec from', { skip }, async () => {
  if ('skip' in d) return;
  const shared = await tempRoot('svc-install-runner-');
  cleanups.push(() => fs.rm(shared, { recursive: true, force: true }));
  // The init container: only the bundle in its image.
  const init = await runContainer(d.docker, {
    Image: images.runner,
    Cmd: [...bundle.argv(), 'install-runner', '/shared/svc'],
    HostConfig: { Binds: [`${shared}:/shared`], NetworkMode: 'none' },
  });
  assert.equal(init.exitCode, 0, init.stderr);
  assert.match(init.stderr, /installed the runner bundle/);
  assert.deepEqual((await fs.readdir(path.join(shared, 'svc'))).sort(), (await fs.readdir(bundle.dir)).sort());
  // The task's container: any image, the shared volume mounted where the init container put the bundle.
  const { s, spec } = await server();
  const r = await runContainer(d.docker, {
    Image: images.busybox,
    Cmd: [...bundle.argv('/shared/svc'), ...execArgs(s, spec.task_run_id)],
    Env: [`SVC_RUN_TOKEN=${TOKEN}`],
    HostConfig: { Binds: [`${shared}:/shared:ro`] },
  });
  assert.equal(r.exitCode, 0, r.stderr);
  assertStandardTask(s);
});
