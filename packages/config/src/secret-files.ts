// Secrets as files. Docker and Kubernetes mount secrets as files, and a value
// in the environment shows in `docker inspect`, `/proc/PID/environ` and crash
// reports; so every variable holding a credential can instead name a file
// with `<VARIABLE>_FILE`, the convention of the official Docker images. The
// file's content, less one trailing newline (what `echo` and most editors
// add), is the value. Resolved here once, before any parsing, for parseConfig
// and for the few readers outside it (the CLI's database commands,
// infra/migrate.mjs).
import fs from 'node:fs';

import { type VariableName, hasFileForm } from './catalogue.js';
import { ConfigError, type ConfigProblem } from './errors.js';

/** The `_FILE` companion of a variable: `SVC_DATABASE_URL` -> `SVC_DATABASE_URL_FILE`. */
export const fileVariable = (name: string): string => `${name}_FILE`;

const isSet = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/**
 * `env` with every `X_FILE` of the catalogue replaced by `X` holding the
 * file's content, plus the problems met on the way. A problem names the
 * variable and the path, never the content: setting both `X` and `X_FILE`,
 * a file that cannot be read, an empty file.
 */
export function resolveFileVariables(
  env: Record<string, string | undefined>,
  names: readonly VariableName[],
): { env: Record<string, string | undefined>; problems: ConfigProblem[] } {
  const out: Record<string, string | undefined> = {};
  const problems: ConfigProblem[] = [];
  for (const name of names) {
    const direct = env[name];
    if (!hasFileForm(name)) {
      out[name] = direct;
      continue;
    }
    const fileName = fileVariable(name);
    const file = env[fileName];
    if (!isSet(file)) {
      out[name] = direct;
      continue;
    }
    if (isSet(direct)) {
      problems.push({ variable: fileName, message: `${name} and ${fileName} are both set; set only one` });
      continue;
    }
    const path = file.trim();
    let content: string;
    try {
      content = fs.readFileSync(path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (code ?? 'unreadable');
      problems.push({ variable: fileName, message: `cannot read ${JSON.stringify(path)}: ${why}` });
      continue;
    }
    const value = stripOneNewline(content);
    if (value.trim() === '') {
      problems.push({ variable: fileName, message: `${JSON.stringify(path)} is empty` });
      continue;
    }
    out[name] = value;
  }
  return { env: out, problems };
}

/** The content less one trailing `\n` or `\r\n`, so a value may still end in whitespace of its own. */
export function stripOneNewline(content: string): string {
  if (content.endsWith('\r\n')) return content.slice(0, -2);
  if (content.endsWith('\n')) return content.slice(0, -1);
  return content;
}

/**
 * One variable as its readers outside parseConfig need it (the CLI's database
 * commands, infra/migrate.mjs): `X`, else the content of `X_FILE`, else
 * undefined.
 * @throws ConfigError when both are set or the file cannot be read.
 */
export function readVariable(env: Record<string, string | undefined>, name: VariableName): string | undefined {
  const { env: resolved, problems } = resolveFileVariables(env, [name]);
  if (problems.length) throw new ConfigError(problems);
  const value = resolved[name];
  return isSet(value) ? value : undefined;
}
