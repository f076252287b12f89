#!/usr/bin/env node
// `svc exec`: the process inside every container task. It fetches its spec and
// bundle over the runner protocol, runs the task, streams logs and reports the
// end. Exit code: 0 when the completion was delivered (whatever the task's
// state), 1 when it could not be, 2 on a usage error.
// SIGTERM/SIGINT (docker stop, pod deletion) stop the task and report it FAILED
// with reason `instance_shutdown`, which the engine may retry.
import os from 'node:os';
import { EXEC_USAGE, parseExecArgs } from './args.js';
import { assertNever } from '@svc/assert';
import { createHttpTransport, errorMessage, runTask } from '@svc/runner';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.length === 0) {
    process.stderr.write(EXEC_USAGE);
    return 2;
  }
  const parsed = parseExecArgs(argv, process.env, os.tmpdir());
  switch (parsed.kind) {
    case 'help':
      process.stdout.write(EXEC_USAGE);
      return 0;
    case 'usage-error':
      process.stderr.write(`svc exec: ${parsed.message}\n${EXEC_USAGE}`);
      return 2;
    case 'run':
      break;
    default:
      return assertNever(parsed);
  }
  const { server, taskRunId, token, workRoot } = parsed.args;
  const shutdown = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    process.stderr.write(`svc exec: ${sig}, stopping the task\n`);
    shutdown.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const c = await runTask({
      transport: createHttpTransport({ server, taskRunId, token }),
      workRoot,
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

process.exitCode = await main();
