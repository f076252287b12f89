// Files a task reads (docs/using/files.md): the output files of upstream
// tasks its templates name (`tasks.<id>.files['p']`) and its file inputs,
// listed in the spec's `fetch_files`. Each is streamed from the service to
// its path under the working directory while its size and sha256 are
// computed, and checked against the spec before the command starts: a file
// changed or cut short in the object store fails the task run, naming it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errorMessage, PrepareError } from './errors.js';
import type { RunnerSpec, RunnerTransport } from './types.js';
import type { TaskUser } from './task-user.js';
import { ensureDir, confine } from './workspace.js';

export type FetchFile = NonNullable<RunnerSpec['fetch_files']>[number];

/** Fetches every file of `files` under `cwd`; throws PrepareError (executor_error) naming the first one that fails. */
export async function fetchFiles(transport: RunnerTransport, cwd: string, files: readonly FetchFile[], user?: TaskUser): Promise<void> {
  for (const f of files) {
    const target = confine(cwd, f.path);
    const dir = await ensureDir(cwd, path.relative(cwd, path.dirname(target)));
    const file = path.join(dir, path.basename(target));
    await fsp.rm(file, { force: true, recursive: true });
    const hash = crypto.createHash('sha256');
    let size = 0;
    try {
      const body = await transport.getFile(f.artifact_id);
      const meter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          if (size > f.size) return done(new Error(`more than the ${f.size} bytes expected`));
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(body, meter, fs.createWriteStream(file, { flags: 'wx', mode: 0o644 }));
    } catch (err) {
      await fsp.rm(file, { force: true });
      throw new PrepareError('executor_error', `input file ${f.path} could not be fetched: ${errorMessage(err)}`, { cause: err });
    }
    const sha256 = hash.digest('hex');
    if (size !== f.size || sha256 !== f.sha256.toLowerCase()) {
      await fsp.rm(file, { force: true });
      throw new PrepareError(
        'executor_error',
        `input file ${f.path} does not match what was stored: ${size} bytes with sha256 ${sha256}, expected ${f.size} bytes with sha256 ${f.sha256}`,
      );
    }
    // The task's own file, as the rest of its working directory.
    if (user) {
      await fsp.lchown(file, user.uid, user.gid);
      for (let d = dir; d !== cwd && d.startsWith(cwd); d = path.dirname(d)) await fsp.lchown(d, user.uid, user.gid);
    }
  }
}
