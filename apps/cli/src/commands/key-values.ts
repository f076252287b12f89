// `--input k=v` and `--label k=v` as the commands read them: repeatable
// options collected into a list, split at the first `=`, and a value typed
// by what the server declares for its key (a flow's inputs for `svc run`, an
// approval gate's form for `svc executions approve`).
import { CliError } from '../io.js';

/** Commander's collector of a repeatable option. */
export const collect = (v: string, prev: string[] = []) => [...prev, v];

/** `["a=1", "b=x=y"]` as `{ a: "1", b: "x=y" }`; a pair without a key is a usage error naming `what` (the option). */
export function keyValues(pairs: string[], what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i <= 0) throw new CliError(`${what} must be KEY=VALUE, got "${p}"`, 2);
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}

/** A `--input k=v` value converted to the declared type of the input (strings otherwise). */
export function coerce(value: string, type: string | undefined, key: string): unknown {
  switch (type) {
    case 'int':
    case 'number': {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n)) throw new CliError(`input ${key} is a ${type}, got "${value}"`, 2);
      return n;
    }
    case 'boolean':
      if (value === 'true' || value === 'false') return value === 'true';
      throw new CliError(`input ${key} is a boolean (true or false), got "${value}"`, 2);
    case 'json':
      try {
        return JSON.parse(value);
      } catch {
        throw new CliError(`input ${key} is JSON, and "${value}" does not parse`, 2);
      }
    case undefined: // not declared: the server decides
    default:
      return value;
  }
}
