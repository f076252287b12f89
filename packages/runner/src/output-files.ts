// Output files (docs/using/files.md): after the task's command succeeded,
// every regular file under its working directory that one of its
// `output_files` globs matches is uploaded (streamed, with its sha256) as an
// artifact row of kind `output`. As with Kestra's `outputFiles`, a pattern
// that matches nothing is no error. A file over the limit fails the task: a
// downstream task that reads it would fail later and less clearly. Links are
// not followed and, with a task user, only the task's own files are read.
import fs from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { fdSha256, fdStream } from './artifacts.js';
import { errorMessage } from './errors.js';
import { openTaskFile, type TaskUser } from './task-user.js';
import type { RunnerTransport } from './types.js';

/** At most this many files are kept for one task run: a glob like `**` over a large tree is a mistake, said so. */
export const MAX_OUTPUT_FILES = 1000;

/** Where the runner writes the files a task reads (`.svc/files/<task>/<name>`), relative to its working directory; never matched. */
export const FETCHED_DIR = '.svc/files';

/** Why the output files of a task run could not be kept; its message is the task run's error. */
export class OutputFilesError extends Error {
  override readonly name = 'OutputFilesError';
}

/** The files under `cwd` that `patterns` match (relative, `/`-separated, sorted); directories that are links are not entered. */
export function matchOutputFiles(cwd: string, patterns: readonly string[]): string[] {
  const isMatch = picomatch([...patterns], { dot: true });
  const found: string[] = [];
  const walk = (abs: string, rel: string) => {
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      // Files fetched for the task (fetch-files.ts) are another task's, not this one's outputs.
      if (childRel === FETCHED_DIR) continue;
      if (e.isDirectory()) walk(path.join(abs, e.name), childRel);
      else if (e.isFile() && isMatch(childRel)) found.push(childRel);
    }
  };
  walk(cwd, '');
  return found.sort();
}

/**
 * Uploads the output files of a task run that succeeded. Throws
 * OutputFilesError naming the file at fault: over `maxBytes` (0 or less: no
 * limit), not the task's own file, or an upload that failed.
 */
export async function uploadOutputFiles(transport: RunnerTransport, cwd: string, patterns: readonly string[], maxBytes: number, user?: TaskUser): Promise<number> {
  const names = matchOutputFiles(cwd, patterns);
  if (names.length > MAX_OUTPUT_FILES) throw new OutputFilesError(`output_files matched ${names.length} files; at most ${MAX_OUTPUT_FILES} are kept`);
  for (const name of names) {
    const opened = openTaskFile(path.join(cwd, name), user);
    if (!opened) throw new OutputFilesError(`output file ${name} is not a regular file of the task`);
    try {
      if (maxBytes > 0 && opened.size > maxBytes) {
        throw new OutputFilesError(`output file ${name} is ${opened.size} bytes, over SVC_MAX_ARTIFACT_BYTES (${maxBytes} bytes)`);
      }
      const sha256 = await fdSha256(opened.fd);
      // The descriptor outlives the stream: a retried upload reads it again from its start (reopenFileStream).
      const body = fdStream(opened.fd);
      body.on('error', () => {});
      try {
        await transport.putArtifact(name, body, opened.size, { kind: 'output', sha256 });
      } catch (err) {
        throw new OutputFilesError(`output file ${name} could not be stored: ${errorMessage(err)}`, { cause: err });
      } finally {
        body.destroy();
      }
    } finally {
      fs.closeSync(opened.fd);
    }
  }
  return names.length;
}
