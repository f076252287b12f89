// `svc`: one commander program; each file of src/commands/ registers a group
// of commands. `svc exec` (the runner app, with its own arguments) is
// dispatched before commander and only listed in its help.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { Command, CommanderError, Option } from 'commander';
import { App } from './app.js';
import { ApiError } from './api/client.js';
import { registerAll } from './commands/register.js';
import { CliError, type CommandIo } from './io.js';
import { colorsFor } from './ui/output.js';
import { cliVersion } from './version.js';

const EXEC_SUMMARY = 'Run one task run (the runner inside every task; see `svc exec --help`)';

/** The whole command tree, with output wired to `io` and exits turned into exceptions. */
export function buildProgram(app: App): Command {
  const { io } = app;
  const program = new Command('svc')
    .description('svc: the command-line client of the svc workflow orchestration service')
    .version(`svc ${cliVersion()}`, '-v, --version')
    .addOption(new Option('--context <name>', 'Context of the contexts file to use (default: the current one)'))
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      `
Environment: SVC_URL and SVC_TOKEN override the context's URL and token; SVC_CONFIG
names the contexts file; NO_COLOR turns colours off.
A dry run (--dry-run) changes nothing anywhere: it only reads, and says what it would do.
Run \`svc <command> --help\` for the options of a command.`,
    );
  program.configureOutput({
    writeOut: (s) => io.stdout.write(s),
    writeErr: (s) => io.stderr.write(s),
  });
  registerAll(program, app);
  program.command('exec').description(EXEC_SUMMARY).helpOption(false);
  // Every command reports usage errors through the same exception, and shows its help after one.
  const configure = (c: Command) => {
    c.exitOverride().showHelpAfterError(`(run \`${commandPath(c)} --help\` for usage)`);
    c.configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
    c.commands.forEach(configure);
  };
  configure(program);
  return program;
}

function commandPath(c: Command): string {
  const names: string[] = [];
  for (let x: Command | null = c; x; x = x.parent) names.unshift(x.name());
  return names.join(' ');
}

/** `svc exec ...`: svc exec of @svc/runner (what apps/runner runs), in this process's node, with the same stdio. */
function runExec(args: string[], io: CommandIo): Promise<number> {
  // In the repository: the runner package. In the standalone package: its one-file build beside this file.
  let main: string | undefined;
  try {
    main = createRequire(import.meta.url).resolve('@svc/runner/exec-main');
  } catch {
    const beside = path.join(path.dirname(fileURLToPath(import.meta.url)), 'svc-exec.cjs');
    if (fs.existsSync(beside)) main = beside;
  }
  if (!main) {
    io.stderr.write('svc exec: the runner (@svc/runner) is not installed next to this CLI; in containers it comes with the runner bundle\n');
    return Promise.resolve(1);
  }
  const runner = main;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [runner, ...args], { stdio: 'inherit', env: { ...process.env, ...io.env } });
    // The runner handles SIGTERM itself (it asks the gateway whether it is a cancel): pass them on.
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    process.on('SIGTERM', forward).on('SIGINT', forward);
    child.on('exit', (code, sig) => {
      process.off('SIGTERM', forward).off('SIGINT', forward);
      resolve(code ?? (sig ? 128 + 15 : 1));
    });
  });
}

/** The error as the user sees it: for API errors the spec's code, the message, the details and the request ID. */
export function describeError(err: unknown, io: CommandIo): string {
  const c = colorsFor(io, 'stderr');
  if (err instanceof ApiError) {
    const lines = [`${c.red('Error:')} ${err.message} ${c.dim(`(code ${err.code}, HTTP ${err.status}${err.requestId ? `, request ID ${err.requestId}` : ''})`)}`];
    for (const d of err.details) lines.push(`  ${d.field ? `${d.field}: ` : ''}${d.message ?? ''}`);
    const hint = hintFor(err);
    if (hint) lines.push(c.yellow(hint));
    return `${lines.join('\n')}\n`;
  }
  return `${c.red('Error:')} ${err instanceof Error ? err.message : String(err)}\n`;
}

function hintFor(err: ApiError): string | undefined {
  switch (err.code) {
    case 'unauthorized':
      return 'The token is missing, revoked or expired: run `svc login` again, or check SVC_TOKEN.';
    case 'forbidden':
      return 'Your role does not allow this operation.';
    case 'password_change_required':
      return 'Set a new password in the web UI first.';
    case 'version_conflict':
      return 'Someone saved this namespace since you read it: run `svc ns diff` or `svc ns pull` to see their change, then push again.';
    default:
      return undefined;
  }
}

/** Runs one CLI invocation and returns its exit code (2 for usage errors). */
export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  const app = new App(io);
  const program = buildProgram(app);
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(program.helpInformation());
    return 2;
  }
  if (name === 'exec') return runExec(rest, io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return app.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return 0;
      // A group run without a subcommand prints its help on stderr (commander.help): a usage error.
      return 2;
    }
    if (isMissingServerPackage(err)) {
      io.stderr.write(
        describeError(new Error(`this command works on the server's database and needs the full svc installation (the repository), not the standalone CLI package`), io),
      );
      return 1;
    }
    if (err instanceof CliError) {
      io.stderr.write(describeError(err, io));
      return err.exitCode;
    }
    if ((err as Error)?.name === 'ExitPromptError') {
      io.stderr.write('cancelled\n');
      return 130;
    }
    io.stderr.write(describeError(err, io));
    return 1;
  }
}

function isMissingServerPackage(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException | undefined;
  return e?.code === 'ERR_MODULE_NOT_FOUND' && /@svc\//.test(e.message);
}

/** `svc --help` text (kept for callers of the old API). */
export function usage(): string {
  return buildProgram(new App({ stdout: { write: () => true }, stderr: { write: () => true }, env: {}, cwd: '.' })).helpInformation();
}
