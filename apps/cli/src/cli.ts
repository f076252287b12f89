import { commands as defaultCommands } from './commands/index.js';
import { UsageError, type Command, type CommandIo } from './io.js';
import { cliVersion } from './version.js';

export function usage(commands: Readonly<Record<string, Command>>): string {
  const names = Object.keys(commands).sort();
  const width = Math.max(...names.map((n) => n.length), 4);
  return [
    'Usage: svc <command> [options]',
    '',
    'Commands:',
    ...names.map((n) => `  ${n.padEnd(width)}  ${commands[n]!.summary}`),
    '',
    'Run `svc <command> --help` for the options of a command.',
    'Environment: SVC_URL (default http://127.0.0.1:8080), SVC_TOKEN.',
    '',
  ].join('\n');
}

/** Runs one CLI invocation and returns its exit code (2 for usage errors). */
export async function runCli(argv: string[], io: CommandIo, commands: Readonly<Record<string, Command>> = defaultCommands): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(usage(commands));
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage(commands));
    return 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`svc ${cliVersion()}\n`);
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (command === undefined) {
    io.stderr.write(`svc: unknown command "${name}"\n\n${usage(commands)}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`svc ${name}: ${err.message}\n\n${command.usage}`);
      return 2;
    }
    io.stderr.write(`svc ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
