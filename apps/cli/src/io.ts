/** What a command may touch: given explicitly so tests can run commands in-process. */
export interface CommandIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  /** Standard input, for commands that read a secret from it. Default process.stdin. */
  stdin?: NodeJS.ReadableStream;
  /** Environment variables (SVC_URL, SVC_TOKEN, SVC_DATABASE_URL...). */
  env: Record<string, string | undefined>;
  /** Directory relative paths are resolved against. */
  cwd: string;
}

/** One `svc <name>` command, one file under `src/commands/`. */
export interface Command {
  /** One line for `svc --help`. */
  summary: string;
  /** Full usage text for `svc <name> --help`. */
  usage: string;
  /** Returns the process exit code: 0 success, 1 failure, 2 usage error. */
  run(args: string[], io: CommandIo): Promise<number>;
}

/** Thrown for a usage mistake; the CLI prints the command usage and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
