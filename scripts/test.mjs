#!/usr/bin/env node
// `npm test`: installs and builds what is missing, starts one real PostgreSQL
// for the whole run (each test file then gets its own database cloned from a
// migrated template), runs every test file of the repository with node:test,
// and ends with the line "N passed, N failed", after the 25 slowest test
// files (scripts/test-timing.mjs). When a selected test file's
// package depends on @svc/container-testing, it also starts one Docker engine
// for the run (scripts/docker-engine.mjs; installed with apt-get when missing),
// in parallel with PostgreSQL, and passes SVC_TEST_DOCKER_HOST, or
// SVC_TEST_DOCKER_SKIP with the reason it could not (those tests then skip);
// with the engine's TLS listener, SVC_TEST_DOCKER_TLS_HOST and its certificate
// directories (SVC_TEST_DOCKER_*_CERT_PATH), or SVC_TEST_DOCKER_TLS_SKIP.
// Likewise, when a selected test file's package depends on playwright-core
// (the web UI's browser tests), it starts one headless Chromium for the run
// (scripts/browser.mjs; Debian's chromium, installed with apt-get when missing)
// and passes its endpoint in SVC_TEST_BROWSER_WS, or SVC_TEST_BROWSER_SKIP with
// the reason (those tests then skip, loudly).
//
// Arguments narrow the run to files whose path contains any of them:
//   npm test -- packages/config e2e/
// SVC_TEST_CONCURRENCY sets how many test files run at once (default 3);
// SVC_TEST_RUN_DIR where the run keeps its data (default .test-data).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrap, root } from './bootstrap.mjs';
import { startDockerEngine, stopDockerLeftovers } from './docker-engine.mjs';
import { startBrowser } from './browser.mjs';
import { onProjectNode } from './node-runtime.mjs';

// On the images' Node (24): installed into .tools/ and run under it where this machine's is older.
await onProjectNode(fileURLToPath(import.meta.url));

const filters = process.argv.slice(2);

function findTests() {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.test.ts') || e.name.endsWith('.test.mjs')) out.push(path.relative(root, p));
    }
  };
  for (const top of ['apps', 'packages', 'e2e']) if (fs.existsSync(path.join(root, top))) walk(path.join(root, top));
  return out.sort().filter((f) => !filters.length || filters.some((x) => f.includes(x)));
}

/** Whether any of `files` belongs to a package for which `test(pkg, deps)` holds. */
function anyPackage(files, test) {
  const seen = new Map();
  return files.some((f) => {
    let dir = path.dirname(path.join(root, f));
    while (dir.startsWith(root) && !fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
    if (!seen.has(dir)) {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      seen.set(dir, test(pkg, { ...pkg.dependencies, ...pkg.devDependencies }));
    }
    return seen.get(dir);
  });
}

/** Whether any of `files` belongs to a package that uses the test Docker engine (depends on, or is, @svc/container-testing). */
const needsDocker = (files) => anyPackage(files, (pkg, deps) => pkg.name === '@svc/container-testing' || '@svc/container-testing' in deps);

/** Whether any of `files` belongs to a package with browser tests (depends on playwright-core). */
const needsBrowser = (files) => anyPackage(files, (_pkg, deps) => 'playwright-core' in deps);

/** The test engine's TLS listener for the tests (packages/container-testing's testDockerTls), or why there is none. */
function dockerTlsEnv(tls) {
  if (!tls || 'skip' in tls) return { SVC_TEST_DOCKER_TLS_SKIP: tls?.skip ?? 'the test engine has no TLS listener' };
  return {
    SVC_TEST_DOCKER_TLS_HOST: tls.host,
    SVC_TEST_DOCKER_CERT_PATH: tls.certPath,
    SVC_TEST_DOCKER_UNTRUSTED_CERT_PATH: tls.untrustedCertPath,
    SVC_TEST_DOCKER_WRONG_CA_CERT_PATH: tls.wrongCaCertPath,
  };
}

function loud(lines) {
  const bar = '!'.repeat(78);
  process.stderr.write(`\n${bar}\n${lines.map((l) => `!! ${l}`).join('\n')}\n${bar}\n\n`);
}

// SIGTERM (CI cancelling the job, a process manager; npm forwards it to this
// process, see package.json's `exec`) or Ctrl-C: the running tests are stopped,
// then PostgreSQL, Docker and Chromium as after a normal run, so none is left
// behind.
let stopping = null;
let testChild = null;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = sig;
    process.stderr.write(`\n[test] ${sig}: stopping the test run\n`);
    testChild?.kill(sig);
  });
}

async function main() {
  bootstrap();
  const files = findTests();
  if (!files.length) {
    console.log('no test files matched');
    console.log('0 passed, 1 failed');
    return 1;
  }

  // SVC_TEST_RUN_DIR: another directory for this run's data (PostgreSQL, Docker, Chromium), so two runs on one
  // checkout do not remove each other's (each run starts by emptying its own).
  const dataDir = process.env.SVC_TEST_RUN_DIR ? path.resolve(process.env.SVC_TEST_RUN_DIR) : path.join(root, '.test-data');
  const dockerDir = path.join(dataDir, 'docker');
  await stopDockerLeftovers(dockerDir); // a killed earlier run's engine may still hold mounts under dataDir
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  // Started now, awaited after PostgreSQL: off the critical path.
  const docker = needsDocker(files)
    ? startDockerEngine({ dir: dockerDir, log: (m) => process.stderr.write(`[test] docker: ${m}\n`) })
    : Promise.resolve({ ok: false, reason: 'not started: no test file of this run needs it', quiet: true });
  const browser = needsBrowser(files)
    ? startBrowser({ dir: path.join(dataDir, 'browser'), log: (m) => process.stderr.write(`[test] browser: ${m}\n`) })
    : Promise.resolve({ ok: false, reason: 'not started: no test file of this run needs it', quiet: true });
  try {
    return await runTests(files, dataDir, docker, browser);
  } finally {
    await Promise.all([(await docker).stop?.(), (await browser).stop?.()]);
  }
}

async function runTests(files, dataDir, dockerStarting, browserStarting) {
  const { startEmbeddedPostgres } = await import(path.join(root, 'packages/db/dist/embedded.js'));
  const { prepareTemplate } = await import(path.join(root, 'packages/db/dist/testing.js'));
  process.stderr.write('[test] starting PostgreSQL for the test run\n');
  const pg = await startEmbeddedPostgres({
    dir: path.join(dataDir, 'pg'),
    database: 'postgres',
    // Throwaway data: durability buys nothing here and costs seconds.
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '400' },
  });
  await prepareTemplate(pg.adminUrl);
  const docker = await dockerStarting;
  const dockerEnv = docker.ok ? { SVC_TEST_DOCKER_HOST: docker.host, ...dockerTlsEnv(docker.tls) } : { SVC_TEST_DOCKER_SKIP: docker.reason };
  if (!docker.ok && !docker.quiet) loud(['NO DOCKER ENGINE: the Docker tests of this run are SKIPPED.', docker.reason]);
  const browser = await browserStarting;
  const browserEnv = browser.ok ? { SVC_TEST_BROWSER_WS: browser.wsEndpoint } : { SVC_TEST_BROWSER_SKIP: browser.reason };
  if (!browser.ok && !browser.quiet) loud(['NO BROWSER: the browser tests of this run are SKIPPED.', browser.reason]);

  const summaryFile = path.join(dataDir, 'summary.json');
  const timingsFile = path.join(dataDir, 'timings.ndjson');
  const concurrency = process.env.SVC_TEST_CONCURRENCY ?? '3';
  const args = [
    '--import',
    'tsx',
    '--import',
    path.join(root, 'scripts/test-timing.mjs'),
    '--test',
    `--test-concurrency=${concurrency}`,
    // Per test file too: the Compose and image files build images, and the type-checked lint holds every package's
    // program at once (173 s alone, over 600 s beside the rest of the suite on a loaded 2-core machine).
    '--test-timeout=900000',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(root, 'scripts/summary-reporter.mjs')}`,
    `--test-reporter-destination=${summaryFile}`,
    ...files,
  ];
  const code = stopping
    ? 1
    : await new Promise((resolve) => {
        const child = (testChild = spawn(process.execPath, args, {
          cwd: root,
          stdio: 'inherit',
          env: {
            ...process.env,
            ...dockerEnv,
            ...browserEnv,
            SVC_TEST_PG_ADMIN_URL: pg.adminUrl,
            SVC_TEST_DATA_DIR: dataDir,
            SVC_TEST_TIMINGS: timingsFile,
            SVC_LOG_LEVEL: process.env.SVC_LOG_LEVEL ?? 'warn',
          },
        }));
        child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0)));
      });
  testChild = null;
  await pg.stop().catch((err) => process.stderr.write(`[test] stopping PostgreSQL: ${err.message}\n`));

  let summary = { passed: 0, failed: 0, skipped: 0, failures: [] };
  try {
    summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
  } catch {
    summary.failed = 1;
  }
  if (code !== 0 && summary.failed === 0) summary.failed = 1; // the runner itself failed
  if (stopping) console.log(`stopped by ${stopping} before the end: not every test ran`);
  printSlowest(timingsFile);
  for (const f of summary.failures) console.log(`failed: ${f.name}${f.file ? ` (${path.relative(root, f.file)})` : ''}`);
  if (summary.skipped) console.log(`${summary.skipped} skipped`);
  if (!docker.ok && !docker.quiet) console.log(`docker tests skipped: ${docker.reason}`);
  if (!browser.ok && !browser.quiet) console.log(`browser tests skipped: ${browser.reason}`);
  console.log(`${summary.passed} passed, ${summary.failed} failed`); // the last line, exactly this shape
  return summary.failed ? 1 : 0;
}

/** The 25 slowest test files of the run (each file's process, start to exit), to keep the suite's time in view. */
function printSlowest(timingsFile) {
  let rows = [];
  try {
    rows = fs
      .readFileSync(timingsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return;
  }
  if (!rows.length) return;
  rows.sort((a, b) => b.ms - a.ms);
  console.log(`slowest test files (seconds, of ${rows.length}):`);
  for (const r of rows.slice(0, 25)) console.log(`  ${(r.ms / 1000).toFixed(1).padStart(6)}  ${path.relative(root, r.file)}`);
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
