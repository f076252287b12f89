// What every remote command needs, in one bag built per invocation: the I/O of
// the process, the contexts file, an API client for the chosen context, the
// output format, and the exit code the action leaves behind.
import type { Command } from 'commander';
import { apiClient, type ApiClient } from './api/client.js';
import { contextsPath, readContexts, resolveTarget, type Target } from './config/contexts.js';
import { CliError, type CommandIo } from './io.js';
import { parseFormat, type Format } from './ui/output.js';
import { cliVersion } from './version.js';

export class App {
  /** Exit code of the invocation; actions set it (default 0). */
  exitCode = 0;

  constructor(readonly io: CommandIo) {}

  get contextsFile(): string {
    return contextsPath(this.io.env);
  }

  /** The server and token for this command (`--context`, the current context, SVC_URL/SVC_TOKEN). */
  target(cmd: Command): Target {
    const { context } = cmd.optsWithGlobals<{ context?: string }>();
    return resolveTarget(this.io.env, readContexts(this.contextsFile), context);
  }

  /** An API client with a credential; fails with a hint when there is none. */
  client(cmd: Command): ApiClient {
    const t = this.target(cmd);
    if (!t.token) throw new CliError(`not logged in to ${t.url}: run \`svc login\`, or set SVC_TOKEN`);
    return apiClient(t.url, t.token, `svc-cli/${cliVersion()}`);
  }

  format(cmd: Command): Format {
    return parseFormat(cmd.opts<{ output?: string }>().output);
  }
}

/** Adds `-o, --output FORMAT` to a command that prints data. */
export function withOutput(cmd: Command): Command {
  return cmd.option('-o, --output <format>', 'table, json or yaml', 'table');
}

/** Splits `NS/FLOW` (the namespace may hold dots, the flow id no slash). */
export function splitFlowRef(ref: string): { namespace: string; flowId: string } {
  const i = ref.lastIndexOf('/');
  if (i <= 0 || i === ref.length - 1) throw new CliError(`expected NAMESPACE/FLOW, got "${ref}"`, 2);
  return { namespace: ref.slice(0, i), flowId: ref.slice(i + 1) };
}

export const enc = encodeURIComponent;
