// What to spawn: the command's executable, or the interpreter of a script task,
// looked up on the task's PATH before spawning, so that a missing tool is a clear
// `runtime_not_found` / `command not found: X` rather than a bare ENOENT.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PrepareError } from './errors.js';

/** The runtimes a script task may name (the task's `runtime`). */
export type Runtime = 'python' | 'bash' | 'bun' | 'node';

/** Interpreters tried in order for each runtime. */
export const RUNTIME_CANDIDATES: Record<Runtime, readonly string[]> = {
  python: ['python3', 'python'],
  bash: ['bash'],
  node: ['node'],
  bun: ['bun'],
};

/**
 * Interpreters that ship with the runner, tried after the PATH: bun from its
 * npm package (a dependency of this package; its postinstall puts the
 * platform's binary in `bin/bun.exe`). A runtime found on the task's PATH
 * wins, so an image or host that installs its own bun uses that one.
 */
function shippedInterpreter(runtime: Runtime): string | null {
  if (runtime !== 'bun') return null;
  try {
    return path.join(path.dirname(createRequire(import.meta.url).resolve('bun/package.json')), 'bin', 'bun.exe');
  } catch {
    return null;
  }
}

export interface Invocation {
  /** Absolute path of the executable. */
  file: string;
  /** Arguments after argv[0]. */
  args: string[];
  /** argv[0] as the task sees it: the name it was given. */
  argv0: string;
}

// Synchronous: a PATH search is a few stat calls of microseconds each, cheaper
// than a trip through libuv's thread pool per call.
function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p, { throwIfNoEntry: false })?.isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` found on `pathVar` (POSIX rules: an empty entry is the cwd), or null. A name with a slash is taken relative to `cwd`. */
export function findExecutable(name: string, pathVar: string, cwd: string): string | null {
  if (!name) return null;
  if (name.includes('/')) {
    const p = path.resolve(cwd, name);
    return isExecutableFile(p) ? p : null;
  }
  for (const dir of pathVar.split(':')) {
    const p = path.resolve(cwd, dir || '.', name);
    if (isExecutableFile(p)) return p;
  }
  return null;
}

/** The process to spawn for `command` and `runtime`, with `pathVar` the task's PATH. */
export async function resolveInvocation(command: string[], runtime: string | undefined, pathVar: string, cwd: string): Promise<Invocation> {
  if (!command.length || !command[0]) throw new PrepareError('executor_error', 'empty command');
  if (runtime) {
    if (!isRuntime(runtime)) throw new PrepareError('executor_error', `unknown runtime ${JSON.stringify(runtime)}`);
    const candidates = RUNTIME_CANDIDATES[runtime];
    for (const name of candidates) {
      const file = findExecutable(name, pathVar, cwd);
      if (file) return { file, args: command, argv0: name };
    }
    const shipped = shippedInterpreter(runtime);
    if (shipped && isExecutableFile(shipped)) return { file: shipped, args: command, argv0: candidates[0] };
    // In a container, the executor names the image (SVC_IMAGE): the tool must come from it.
    const image = process.env.SVC_IMAGE ? ` of image ${process.env.SVC_IMAGE}` : '';
    throw new PrepareError('runtime_not_found', `runtime ${runtime}: ${candidates.join(' or ')} not found on the PATH${image}`);
  }
  const [name, ...args] = command as [string, ...string[]];
  const file = findExecutable(name, pathVar, cwd);
  if (!file) {
    const exists = name.includes('/') && (await fsp.stat(path.resolve(cwd, name)).catch(() => null))?.isFile();
    throw new PrepareError('executor_error', exists ? `command not executable: ${name}` : `command not found: ${name}`);
  }
  return { file, args, argv0: name };
}

export function isRuntime(s: string): s is Runtime {
  return Object.hasOwn(RUNTIME_CANDIDATES, s);
}
