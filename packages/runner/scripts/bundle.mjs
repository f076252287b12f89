#!/usr/bin/env node
// Part of the build: bundles dist/exec/main.js (`svc exec`) and everything it imports (the
// workspace packages and npm dependencies) into one CommonJS file,
// dist/svc.cjs, which the runner bundle (packages/runner-bundle) runs with its
// own node, loader and libraries inside any image. CommonJS so that it also
// suits a Node single executable application; import.meta.url is defined as
// the bundle file's own URL, so code that locates itself keeps working.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await build({
  entryPoints: [path.join(here, 'dist/exec/main.js')],
  outfile: path.join(here, 'dist/svc.cjs'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // The shebang of main.js would land after the banner, where it is a syntax error.
  banner: { js: "const __svcImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__svcImportMetaUrl' },
  legalComments: 'none',
  logLevel: 'warning',
});
