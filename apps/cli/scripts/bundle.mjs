#!/usr/bin/env node
// Part of the build: the standalone package of the CLI, dist/standalone/, for
// machines that have only Node (no repository, no pnpm):
//   package.json        name svc-cli, bin svc -> bin/svc.mjs, no dependencies
//   bin/svc.mjs         dist/main.js and everything it imports (bin/chunks/: lazily loaded parts)
//   bin/svc-exec.cjs    svc exec (packages/runner dist/svc.cjs), for `svc exec`
// `npm pack dist/standalone` makes the tarball; `npm install -g` of it gives a
// working `svc`. The commands that work on the database directly (user, org,
// secrets rewrap, local) need the server's packages and say so when run from it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(here, 'dist/standalone');
const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'bin'), { recursive: true });

await build({
  entryPoints: { svc: path.join(here, 'dist/main.js') },
  outdir: path.join(out, 'bin'),
  outExtension: { '.js': '.mjs' },
  // Lazily loaded modules (svc local's supervisor) become chunks of their own, so their
  // imports of server packages are only resolved when such a command runs.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  // Server-side packages (Prisma, PostgreSQL) stay out: only the database commands load them, lazily.
  external: ['@svc/db', '@svc/identity', '@svc/secrets', '@svc/config', '@svc/runner'],
  // CommonJS dependencies (cli-table3, cli-progress) call require() for Node built-ins.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
});
// The shebang of main.js is kept by esbuild only at the very top; make sure it is there.
const bundle = path.join(out, 'bin/svc.mjs');
const text = fs.readFileSync(bundle, 'utf8');
if (!text.startsWith('#!')) fs.writeFileSync(bundle, `#!/usr/bin/env node\n${text}`);
fs.chmodSync(bundle, 0o755);

const runner = createRequire(import.meta.url).resolve('@svc/runner/svc.cjs');
fs.copyFileSync(runner, path.join(out, 'bin/svc-exec.cjs'));

fs.writeFileSync(
  path.join(out, 'package.json'),
  `${JSON.stringify(
    {
      name: 'svc-cli',
      version: pkg.version,
      description: 'svc: the command-line client of the svc workflow orchestration service (standalone build, no dependencies)',
      type: 'module',
      bin: { svc: 'bin/svc.mjs' },
      files: ['bin'],
      engines: { node: '>=22.12' },
      license: 'UNLICENSED',
    },
    null,
    2,
  )}\n`,
);
