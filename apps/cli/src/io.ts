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
  /** Whether standard output is a terminal (tables and colours; default false). */
  stdoutIsTTY?: boolean;
  /** Whether standard error is a terminal (progress bars and the live task view; default false). */
  stderrIsTTY?: boolean;
  /** Whether standard input is a terminal (prompts instead of reading it; default false). */
  stdinIsTTY?: boolean;
  /** Terminal width for the live views (default 80). */
  columns?: number;
}

/** A failure the CLI reports as one message and an exit code (default 1), without a stack. */
export class CliError extends Error {
  constructor(
    message: string,
    /** Process exit code (default 1). */
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
