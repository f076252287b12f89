// The scheduler, dispatcher and CLI images of infra/Dockerfile and the runner
// image of infra/runner.Dockerfile, built and run in the test run's Docker
// engine (see ./infra-images.ts for the two build arguments the tests
// substitute); skipped, with the reason, without one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { startGitDaemon, TestRepo, tempRoot } from '@svc/git-sources/testing';
import {
  build,
  docker,
  freePort,
  healthy,
  image,
  imageFacts,
  importNodeBase,
  importPrebuilt,
  MASTER_KEYS,
  processTree,
  RUNNER,
  skip,
  startApp,
  status,
  until,
} from './infra-images.js';
import { startStack } from './stack.js';

const BASE = 'svc-test/node24-local:sdc';
const PREBUILT = 'svc-test/infra-prebuilt:sdc';
const APPS = ['scheduler', 'dispatcher', 'cli'];
const started: string[] = [];
let db: TestDatabase | undefined;

before(async () => {
  if (skip) return;
  await importNodeBase(BASE);
  await importPrebuilt(PREBUILT, [...APPS, 'runner']);
  const args = ['--build-arg', `NODE_IMAGE=${BASE}`, '--build-arg', `PREBUILT=${PREBUILT}`];
  await build('infra/runner.Dockerfile', RUNNER, args);
  for (const app of APPS) await build('infra/Dockerfile', image(app), [...args, '--build-arg', `APP=${app}`]);
  db = await createTestDatabase();
});

after(async () => {
  for (const id of started) await docker(['rm', '-f', id]).catch(() => {});
  await db?.drop();
});

test('the scheduler, dispatcher and CLI images run as node with a HEALTHCHECK and only their own production files', { skip }, async () => {
  for (const app of APPS)
    assert.deepEqual(
      await imageFacts(
        app,
        ['api-gateway', 'scheduler', 'dispatcher', 'maintenance', 'cli'].filter((a) => a !== app),
      ),
      [],
      app,
    );
});

test('the scheduler and dispatcher images start against a real database, turn healthy and serve /readyz and /metrics', { skip }, async () => {
  // Host networking: each its own SVC_HEALTH_PORT instead of the image's 9464.
  const ports = [await freePort(), await freePort()];
  const env = { SVC_DATABASE_URL: db!.url, SVC_MASTER_KEYS: MASTER_KEYS, SVC_HOST: '127.0.0.1' };
  const ids = [
    await startApp('scheduler', { ...env, SVC_HEALTH_PORT: String(ports[0]) }, started),
    await startApp('dispatcher', { ...env, SVC_HEALTH_PORT: String(ports[1]), SVC_RUNNER_URL: 'http://127.0.0.1:8080' }, started),
  ];
  for (const id of ids) await healthy(id);
  for (const port of ports) {
    await until('/readyz', async () => ((await status(`http://127.0.0.1:${port}/readyz`)) === 200 ? true : undefined));
    assert.match(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(), /^process_resident_memory_bytes \d+/m);
  }
  for (const id of ids) await docker(['exec', id, 'node', '/app/healthcheck.mjs', 'readyz']);
  for (const id of ids) assert.deepEqual(await processTree(id), { pid1: 'tini', nodeParent: '1' });
  for (const id of ids) assert.doesNotMatch(await docker(['logs', id]), /"level":"error"/);
});

test('the CLI image answers; `svc local` there needs SVC_DATABASE_URL, since the image has no embedded PostgreSQL', { skip }, async () => {
  assert.match(await docker(['run', '--rm', image('cli'), '--help']), /^Usage: svc \[options\] \[command\]/);
  await assert.rejects(docker(['run', '--rm', '--network', 'none', image('cli'), 'local']), /not part of this installation[^]*set SVC_DATABASE_URL/);
});

test("the runner image, FROM scratch, installs its bundle through the bundle's own loader", { skip }, async () => {
  const argv = ['/.svc-runner/lib/ld-linux-x86-64.so.2', '--inhibit-cache', '--library-path', '/.svc-runner/lib', '/.svc-runner/bin/node', '/.svc-runner/svc.cjs'];
  const id = (await docker(['create', '--network', 'none', RUNNER, ...argv, 'install-runner', '/installed'])).trim();
  started.push(id);
  await docker(['start', '-a', id]);
  const state = JSON.parse(await docker(['inspect', '--format', '{{json .State}}', id])) as { ExitCode: number };
  assert.equal(state.ExitCode, 0);
  const layers = JSON.parse(await docker(['inspect', '--format', '{{json .RootFS.Layers}}', RUNNER])) as string[];
  assert.equal(layers.length, 1, 'one layer: the bundle, nothing under it');
});

test('a git source syncs from a git daemon through the scheduler image (its git, on the host network)', { skip }, async () => {
  // The gateway of the workspace takes the API calls; the only scheduler, so the only git sync worker, is the image's.
  const stack = await startStack({ dispatchers: 0, maintenance: false });
  const gitRoot = tempRoot();
  const daemon = await startGitDaemon(gitRoot);
  try {
    const repo = new TestRepo(gitRoot, 'images');
    const sha = repo.commit({ 'flows/hello.flow.yaml': JSON.stringify({ id: 'hello', tasks: [{ id: 't', type: 'command', command: ['true'] }] }) }, 'first');
    const url = (stack.db as unknown as { options: { connectionString: string } }).options.connectionString;
    const id = await startApp(
      'scheduler',
      { SVC_DATABASE_URL: url, SVC_MASTER_KEYS: MASTER_KEYS, SVC_HOST: '127.0.0.1', SVC_HEALTH_PORT: String(await freePort()), SVC_GIT_SYNC_TICK_MS: '200' },
      started,
    );
    await healthy(id);
    const created = await stack.api('POST', '/api/v1/git-sources', {
      name: 'images',
      repo_url: `${daemon.url}/images.git`,
      poll_interval: 1,
      mappings: [{ namespace: 'images.git', repo_path: 'flows' }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const source = await until(
      'the image synced the commit',
      async () => {
        const s = (await stack.api('GET', `/api/v1/git-sources/${created.body.id}`)).body;
        if (s.last_sync_status === 'failed') throw new Error(`sync failed: ${s.last_error}`);
        return s.last_synced_sha === sha ? s : undefined;
      },
      90_000,
    );
    assert.equal(source.last_error, '');
    assert.equal((await stack.api('GET', '/api/v1/flows/images.git/hello')).status, 200);
    // Synced by the image's scheduler: the only scheduler instance is its container.
    const instances = (await stack.db.query(`SELECT hostname FROM instances WHERE kind = 'scheduler' AND stopped_at IS NULL`)).rows as { hostname: string }[];
    assert.equal(instances.length, 1);
  } finally {
    await daemon.close();
    await stack.stop();
    fs.rmSync(gitRoot, { recursive: true, force: true });
  }
});
