#!/usr/bin/env node
import { runCli } from './cli.js';

// `svc openapi | head`: a reader that stops early is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
});
// exitCode rather than exit(): lets stdout drain when it is a pipe.
process.exitCode = code;
