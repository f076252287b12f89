// The api-gateway and maintenance images of infra/Dockerfile, built and run
// in the test run's Docker engine (see ./infra-images.ts for the two build
// arguments the tests substitute); skipped, with the reason, without one.
// Also the build context: .dockerignore keeps out installed modules, build
// output, local data and git.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { build, docker, freePort, healthy, image, imageFacts, importNodeBase, importPrebuilt, MASTER_KEYS, processTree, skip, startApp, status, until } from './infra-images.js';
import { root } from './stack.js';

const BASE = 'svc-test/node24-local:gm';
const PREBUILT = 'svc-test/infra-prebuilt:gm';
const APPS = ['api-gateway', 'maintenance'];
/** The release the images are built as (infra/Dockerfile's VERSION). */
const VERSION = '7.6.5-test';
const started: string[] = [];
let db: TestDatabase | undefined;

before(async () => {
  if (skip) return;
  await importNodeBase(BASE);
  await importPrebuilt(PREBUILT, APPS);
  for (const app of APPS)
    await build('infra/Dockerfile', image(app), [
      '--build-arg',
      `NODE_IMAGE=${BASE}`,
      '--build-arg',
      `PREBUILT=${PREBUILT}`,
      '--build-arg',
      `APP=${app}`,
      '--build-arg',
      `VERSION=${VERSION}`,
    ]);
  db = await createTestDatabase();
});

after(async () => {
  for (const id of started) await docker(['rm', '-f', id]).catch(() => {});
  await db?.drop();
});

test('the build context leaves out installed modules, build output, local data and git', { skip }, async () => {
  fs.mkdirSync(path.join(root, '.svc-data'), { recursive: true }); // as `npm start` leaves it, with its master key
  const probe = `FROM ${BASE}\nCOPY . /ctx\nRUN cd /ctx && find . -maxdepth 3 \\( -name node_modules -o -name dist -o -name .svc-data -o -name .test-data -o -name .git -o -name .tools -o -name .turbo \\) -print > /found\n`;
  const id = (await docker(['build', '-q', '-f', '-', '.'], { input: probe, timeoutMs: 120_000 })).trim();
  assert.equal((await docker(['run', '--rm', '--entrypoint', 'cat', id, '/found'])).trim(), '', 'in the build context');
  const present = await docker([
    'run',
    '--rm',
    '--entrypoint',
    'sh',
    id,
    '-c',
    'ls -d /ctx/pnpm-lock.yaml /ctx/apps/api-gateway/src /ctx/infra/Dockerfile /ctx/e2e/package.json /ctx/scripts/bootstrap.mjs',
  ]);
  assert.equal(present.trim().split('\n').length, 5);
});

test('the gateway and maintenance images run as node with a HEALTHCHECK and only their own production files', { skip }, async () => {
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

test('the gateway image migrates, then answers /healthz and /readyz against a real database and turns healthy', { skip }, async () => {
  const migrated = await docker(['run', '--rm', '--network', 'host', '-e', `SVC_DATABASE_URL=${db!.url}`, '--entrypoint', 'node', image('api-gateway'), '/app/migrate.mjs']);
  assert.match(migrated, /"message":"migrations".*"pending":\[\]/);
  const port = await freePort();
  const id = await startApp('api-gateway', { SVC_DATABASE_URL: db!.url, SVC_MASTER_KEYS: MASTER_KEYS, SVC_PORT: String(port), SVC_HOST: '127.0.0.1' }, started);
  await until('/healthz', async () => ((await status(`http://127.0.0.1:${port}/healthz`)) === 200 ? true : undefined));
  await until('/readyz', async () => ((await status(`http://127.0.0.1:${port}/readyz`)) === 200 ? true : undefined));
  await healthy(id);

  // `/` serves the web UI built into the image, and its assets.
  const home = await fetch(`http://127.0.0.1:${port}/`);
  assert.equal(home.status, 200);
  const html = await home.text();
  assert.doesNotMatch(html, /web UI was not built/);
  assert.match(html, /<div id="root"><\/div>/);
  const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  assert.ok(asset, html.slice(0, 500));
  const js = await fetch(`http://127.0.0.1:${port}${asset}`);
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /javascript/);

  // tini is PID 1 and the gateway runs under it; `docker stop` (SIGTERM to
  // PID 1) reaches node, which exits by itself well before the kill.
  assert.deepEqual(await processTree(id), { pid1: 'tini', nodeParent: '1' });
  const t = Date.now();
  await docker(['stop', '-t', '30', id], { timeoutMs: 60_000 });
  const stopped = JSON.parse(await docker(['inspect', '--format', '{{json .State}}', id])) as { ExitCode: number };
  assert.ok(Date.now() - t < 25_000, `stopped in ${Date.now() - t} ms`);
  assert.notEqual(stopped.ExitCode, 137, 'killed, not stopped by its SIGTERM');
});

test('the maintenance image turns healthy and serves /readyz and its metrics on SVC_HEALTH_PORT', { skip }, async () => {
  const port = await freePort();
  const id = await startApp('maintenance', { SVC_DATABASE_URL: db!.url, SVC_MASTER_KEYS: MASTER_KEYS, SVC_HEALTH_PORT: String(port), SVC_HOST: '127.0.0.1' }, started);
  await healthy(id);
  await until('/readyz', async () => ((await status(`http://127.0.0.1:${port}/readyz`)) === 200 ? true : undefined));
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  assert.match(metrics, /^# HELP svc_maintenance_lease_held /m);
  // The release the image was built as (VERSION), reported by the instance and on the image's labels.
  assert.match(metrics, new RegExp(`^svc_build_info\\{app="maintenance",version="${VERSION.replace(/\./g, '\\.')}",node="v\\d+[.\\d]*"\\} 1$`, 'm'));
  const labels = JSON.parse(await docker(['inspect', '--format', '{{json .Config.Labels}}', image('maintenance')])) as Record<string, string>;
  assert.equal(labels['org.opencontainers.image.version'], VERSION);
  assert.equal(labels['org.opencontainers.image.title'], 'svc-maintenance');
  const pool = new pg.Pool({ connectionString: db!.url, max: 1 });
  try {
    const versions = (await pool.query<{ version: string }>(`SELECT version FROM instances WHERE kind = 'maintenance' AND stopped_at IS NULL`)).rows.map((r) => r.version);
    assert.deepEqual(versions, [VERSION]);
  } finally {
    await pool.end();
  }
  // What the Compose healthcheck runs.
  await docker(['exec', id, 'node', '/app/healthcheck.mjs', 'readyz']);
});
