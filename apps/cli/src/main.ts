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
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  stdinIsTTY: process.stdin.isTTY === true,
  columns: process.stderr.columns ?? process.stdout.columns ?? 80,
});
// exitCode rather than exit(): lets stdout drain when it is a pipe. The
// timer covers handles a library may leave open (a prompt's stdin, a socket);
// it starts once what was written is handed to the OS, so a slow reader of a
// large answer (`svc openapi` on a loaded machine) still gets all of it.
process.exitCode = code;
await Promise.all([process.stdout, process.stderr].map(flushed));
setTimeout(() => process.exit(code), 200).unref();

/** Resolves once everything written to `stream` so far has been handed on (or the stream failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}
