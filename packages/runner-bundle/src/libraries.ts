// The shared libraries a dynamically linked executable loads, as its own
// loader resolves them on this machine (what `ldd` prints, without needing
// ldd: `<loader> --list <file>` is what ldd runs).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface SharedLibrary {
  /** The name the executable asks for (DT_NEEDED), e.g. libc.so.6: the name it gets in the bundle's lib/. */
  soname: string;
  /** Where the loader found it on this machine. */
  path: string;
}

/** Thrown when the loader cannot list or find the executable's libraries. */
export class LibraryResolutionError extends Error {
  override readonly name = 'LibraryResolutionError';
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot list the shared libraries of ${file}: ${message}`, options);
  }
}

/** Parses `--list` output: `name => /path (0x…)` lines; the vdso and the loader's own line carry no `=>`. */
export function parseLoaderList(file: string, output: string): SharedLibrary[] {
  const libs: SharedLibrary[] = [];
  for (const line of output.split('\n')) {
    const m = /^\s*(\S+) => (.+?)(?: \(0x[0-9a-f]+\))?\s*$/.exec(line);
    if (!m) continue;
    if (m[2] === 'not found') throw new LibraryResolutionError(file, `${m[1]} not found`);
    libs.push({ soname: m[1], path: m[2] });
  }
  return libs;
}

export async function listSharedLibraries(loader: string, file: string): Promise<SharedLibrary[]> {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(loader, ['--list', file], { encoding: 'utf8' }));
  } catch (err) {
    throw new LibraryResolutionError(file, `${loader} --list failed`, { cause: err });
  }
  return parseLoaderList(file, stdout);
}
