#!/usr/bin/env node
// `npm test`: installs and builds what is missing, starts one real PostgreSQL
// for the whole run (each test file then gets its own database cloned from a
// migrated template), runs every test file of the repository with node:test,
// and ends with the line "N passed, N failed".
//
// Arguments narrow the run to files whose path contains any of them:
//   npm test -- packages/config e2e/
// SVC_TEST_CONCURRENCY sets how many test files run at once (default 3).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bootstrap, root } from './bootstrap.mjs';

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

async function main() {
  bootstrap();
  const files = findTests();
  if (!files.length) {
    console.log('no test files matched');
    console.log('0 passed, 1 failed');
    return 1;
  }

  const dataDir = path.join(root, '.test-data');
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
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

  const summaryFile = path.join(dataDir, 'summary.json');
  const concurrency = process.env.SVC_TEST_CONCURRENCY ?? '3';
  const args = [
    '--import', 'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-timeout=300000',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(root, 'scripts/summary-reporter.mjs')}`, `--test-reporter-destination=${summaryFile}`,
    ...files,
  ];
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, SVC_TEST_PG_ADMIN_URL: pg.adminUrl, SVC_TEST_DATA_DIR: dataDir, SVC_LOG_LEVEL: process.env.SVC_LOG_LEVEL ?? 'warn' },
    });
    child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0)));
  });
  await pg.stop();

  let summary = { passed: 0, failed: 0, skipped: 0, failures: [] };
  try {
    summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
  } catch {
    summary.failed = 1;
  }
  if (code !== 0 && summary.failed === 0) summary.failed = 1; // the runner itself failed
  for (const f of summary.failures) console.log(`failed: ${f.name}${f.file ? ` (${path.relative(root, f.file)})` : ''}`);
  if (summary.skipped) console.log(`${summary.skipped} skipped`);
  console.log(`${summary.passed} passed, ${summary.failed} failed`); // the last line, exactly this shape
  return summary.failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
