#!/usr/bin/env node
// `svc`, the process inside every container task. Subcommands:
//   exec            fetch the spec and bundle over the runner protocol, run the
//                   task, stream logs and report the end (also the default, so
//                   `main.js --server …` works);
//   install-runner  copy the runner bundle svc runs from into a directory.
// Exit code of exec: 0 when the completion was delivered (whatever the task's
// state), 1 when it could not be, 2 on a usage error.
// SIGTERM/SIGINT (docker stop, pod deletion) stop the task. The runner first
// asks the gateway why (one heartbeat): when the execution is being cancelled
// the task ends CANCELLED, otherwise FAILED with reason `instance_shutdown`,
// which the engine may retry (unless the gateway, receiving it, finds the
// execution CANCELLING: then it was a cancel the runner had no time to learn of).
// No top-level await: the runner bundle (packages/runner-bundle) runs this
// file bundled as CommonJS.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { EXEC_USAGE, parseExecArgs } from './args.js';
import { bundleDirOf, INSTALL_USAGE, installRunner } from './install-runner.js';
import { assertNever } from '@svc/assert';
import { createHttpTransport, errorMessage, runTask } from '../index.js';

const USAGE = `${EXEC_USAGE}${INSTALL_USAGE}`;
/** How long a stop signal waits for the gateway to say whether it is a cancel (the grace before SIGKILL is 10 s). */
const CAUSE_TIMEOUT_MS = 2_000;

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (argv[0] === 'install-runner') return installCommand(argv.slice(1));
  return execCommand(argv);
}

async function installCommand(args: string[]): Promise<number> {
  if (args[0] === '--help' || args[0] === '-h') {
    process.stdout.write(INSTALL_USAGE);
    return 0;
  }
  if (args.length !== 1 || !args[0] || args[0].startsWith('-')) {
    process.stderr.write(`svc install-runner: ${args.length ? `unexpected arguments ${JSON.stringify(args)}` : 'missing DEST'}\n${INSTALL_USAGE}`);
    return 2;
  }
  try {
    // In the bundle, this module is svc.cjs itself (import.meta.url is defined as its file URL).
    const from = await bundleDirOf(fileURLToPath(import.meta.url));
    await installRunner(from, args[0]);
    process.stderr.write(`svc install-runner: installed the runner bundle ${from} into ${args[0]}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`svc install-runner: ${errorMessage(err)}\n`);
    return 1;
  }
}

async function execCommand(argv: string[]): Promise<number> {
  const parsed = parseExecArgs(argv, process.env, os.tmpdir());
  switch (parsed.kind) {
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case 'usage-error':
      process.stderr.write(`svc exec: ${parsed.message}\n${USAGE}`);
      return 2;
    case 'run':
      break;
    default:
      return assertNever(parsed);
  }
  const { server, taskRunId, token, workRoot } = parsed.args;
  const transport = createHttpTransport({ server, taskRunId, token });
  const shutdown = new AbortController();
  const cancel = new AbortController();
  let signalled = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (signalled) return;
    signalled = true;
    process.stderr.write(`svc exec: ${sig}, stopping the task\n`);
    // A cancelled execution's container is stopped the same way as a stopping dispatcher's: the heartbeat tells which.
    const asked = transport.heartbeat().then(
      (r) => r.cancel,
      () => false,
    );
    const timeout = new Promise<boolean>((r) => setTimeout(() => r(false), CAUSE_TIMEOUT_MS).unref());
    void Promise.race([asked, timeout]).then((cancelled) => (cancelled ? cancel : shutdown).abort());
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const c = await runTask({
      transport,
      workRoot,
      signal: cancel.signal,
      shutdownSignal: shutdown.signal,
      log: (m) => process.stderr.write(`svc exec: ${m}\n`),
    });
    process.stderr.write(`svc exec: task run ${taskRunId} ended ${c.state}${c.reason ? ` (${c.reason})` : ''}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`svc exec: ${errorMessage(err)}\n`);
    return 1;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    process.stderr.write(`svc: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  },
);
