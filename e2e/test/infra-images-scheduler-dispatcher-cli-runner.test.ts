// The scheduler, dispatcher and CLI images of infra/Dockerfile and the runner
// image of infra/runner.Dockerfile, built and run in the test run's Docker
// engine (see ./infra-images.ts for the two build arguments the tests
// substitute); skipped, with the reason, without one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { build, docker, freePort, healthy, image, imageFacts, importNodeBase, importPrebuilt, MASTER_KEYS, RUNNER, skip, startApp, status, until } from './infra-images.js';

const BASE = 'svc-test/node20-local:sdc';
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
  for (const app of APPS) assert.deepEqual(await imageFacts(app, ['api-gateway', 'scheduler', 'dispatcher', 'maintenance', 'cli'].filter((a) => a !== app)), [], app);
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
  for (const id of ids) assert.doesNotMatch(await docker(['logs', id]), /"level":"error"/);
});

test('the CLI image answers; `svc local` there needs SVC_DATABASE_URL, since the image has no embedded PostgreSQL', { skip }, async () => {
  assert.match(await docker(['run', '--rm', image('cli'), '--help']), /^Usage: svc \[options\] \[command\]/);
  await assert.rejects(docker(['run', '--rm', '--network', 'none', image('cli'), 'local']), /not part of this installation[^]*set SVC_DATABASE_URL/);
});

test('the runner image, FROM scratch, installs its bundle through the bundle\'s own loader', { skip }, async () => {
  const argv = ['/.svc-runner/lib/ld-linux-x86-64.so.2', '--inhibit-cache', '--library-path', '/.svc-runner/lib', '/.svc-runner/bin/node', '/.svc-runner/svc.cjs'];
  const id = (await docker(['create', '--network', 'none', RUNNER, ...argv, 'install-runner', '/installed'])).trim();
  started.push(id);
  await docker(['start', '-a', id]);
  const state = JSON.parse(await docker(['inspect', '--format', '{{json .State}}', id])) as { ExitCode: number };
  assert.equal(state.ExitCode, 0);
  const layers = JSON.parse(await docker(['inspect', '--format', '{{json .RootFS.Layers}}', RUNNER])) as string[];
  assert.equal(layers.length, 1, 'one layer: the bundle, nothing under it');
});
