import { type Config, type ParseConfigOptions, parseConfig } from './config.js';
import { ConfigError, formatProblems } from './errors.js';

/** Where loadConfig reports and how it stops; injectable so tests need not exit. */
export interface LoadConfigOptions extends ParseConfigOptions {
  /** Called with 2 on invalid configuration; default `process.exit`. */
  exit?: (code: number) => never;
  /** Receives the report of an invalid configuration; default `process.stderr`. */
  stderr?: { write(s: string): unknown };
}

/** Exit code of a process stopped by an invalid configuration (STYLE.md, habit 5). */
export const CONFIG_EXIT_CODE = 2;

/**
 * parseConfig for a `main()`: on an invalid configuration it prints
 * `invalid configuration:` and one line per variable at fault
 * (`  SVC_X: message (got "value")`, the value left out for secrets) and exits
 * with code 2. Any other error propagates.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, opts: LoadConfigOptions = {}): Config {
  try {
    return parseConfig(env, opts);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    (opts.stderr ?? process.stderr).write(`${formatProblems(err.problems)}\n`);
    return (opts.exit ?? ((code: number) => process.exit(code)))(CONFIG_EXIT_CODE);
  }
}
