// svc executions files and svc executions download: the files of an execution
// (its input files, the output files its tasks kept, their artifacts) listed
// with kind, task, name, size and sha256, and one of them streamed to a file
// (or standard output) with its size and sha256 checked on arrival.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { ApiClient } from '../api/client.js';
import { withOutput, type App } from '../app.js';
import { CliError } from '../io.js';
import { printList } from '../ui/output.js';
import { progressBar } from '../ui/progress.js';
import type { Artifact } from '../api/types.js';

/** A file's kind: `input` (a file input), `output` (a task's output_files), else `artifact`. */
export const kindOf = (a: Artifact): string => (a.kind as string | undefined) ?? 'artifact';

/** How a file is named on the command line: `task/name`, or the name alone for an input file (no task). */
export const qualified = (a: Artifact): string => (a.task_key ? `${a.task_key}/${a.name}` : a.name);

/**
 * The one file PATH names: an artifact id, a file's name, or `task/name`.
 * Several matching (two tasks, the items of a for_each, retried attempts, an
 * artifact and an output file of one name) is an error listing them by id.
 */
export function pick(all: Artifact[], ref: string, executionId: string, kind?: string): Artifact {
  const byId = all.find((a) => a.id === ref);
  if (byId) return byId;
  let found = all.filter((a) => a.name === ref || qualified(a) === ref);
  if (kind) found = found.filter((a) => kindOf(a) === kind);
  if (found.length === 1) return found[0];
  if (!found.length) {
    const names = all.map((a) => `  ${kindOf(a).padEnd(8)} ${qualified(a)}`).join('\n');
    throw new CliError(`no file ${ref}${kind ? ` of kind ${kind}` : ''} in execution ${executionId}` + (all.length ? `; its files:\n${names}` : '; it has no files'));
  }
  const lines = found.map((a) => `  ${a.id}  ${kindOf(a).padEnd(8)} ${qualified(a)}  ${a.size} B  ${a.created_at}`).join('\n');
  throw new CliError(`${ref} names ${found.length} files of execution ${executionId}; pass one's id (or --kind) instead:\n${lines}`);
}

/** Standard output as a Writable that waits for it to drain and never closes it. */
function toWritable(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _e, cb) {
      if (out.write(chunk) === false && typeof out.once === 'function') out.once('drain', () => cb());
      else cb();
    },
  });
}

async function download(app: App, api: ApiClient, id: string, ref: string, opts: { output?: string; kind?: string }): Promise<void> {
  const { io } = app;
  if (opts.kind && !['input', 'output', 'artifact'].includes(opts.kind)) throw new CliError(`--kind must be input, output or artifact, got "${opts.kind}"`, 2);
  const all = await api.all('/api/v1/executions/{executionId}/artifacts', { params: { path: { executionId: id } } });
  const a = pick(all, ref, id, opts.kind);
  const toStdout = opts.output === '-';
  const target = toStdout ? undefined : path.resolve(io.cwd, opts.output ?? path.posix.basename(a.name));
  // Written next to the target and renamed once checked: a bad or cut download leaves nothing under the target's name.
  const part = target && `${target}.svc-part`;
  const hash = createHash('sha256');
  let size = 0;
  const bar = toStdout ? undefined : progressBar(io, 'downloading', a.size, 'bytes');
  const check = new Transform({
    transform(chunk: Buffer, _e, cb) {
      hash.update(chunk);
      size += chunk.length;
      bar?.increment(chunk.length);
      cb(null, chunk);
    },
  });
  const sink: Writable = part ? fs.createWriteStream(part) : toWritable(io.stdout as unknown as NodeJS.WritableStream);
  try {
    const body = await api.get('/api/v1/executions/{executionId}/artifacts/{artifactId}', { params: { path: { executionId: id, artifactId: a.id } }, parseAs: 'stream' });
    await pipeline(Readable.fromWeb(body as never), check, sink);
    const sha = hash.digest('hex');
    if (size !== a.size) throw new CliError(`${qualified(a)}: received ${size} bytes, the service lists ${a.size}; nothing written`);
    if (a.sha256 && sha !== a.sha256) throw new CliError(`${qualified(a)}: the sha256 of the bytes received is ${sha}, the service lists ${a.sha256}; nothing written`);
    if (part && target) fs.renameSync(part, target);
  } catch (err) {
    if (part) fs.rmSync(part, { force: true });
    throw err;
  } finally {
    bar?.stop();
  }
  io.stderr.write(
    `${qualified(a)} (${a.size} bytes, sha256 ${a.sha256 ?? 'not listed'}) ${target ? `written to ${opts.output ?? path.basename(target)}` : 'written to standard output'}\n`,
  );
}

export function registerExecutionFiles(ex: Command, app: App): void {
  const { io } = app;
  withOutput(
    ex
      .command('files')
      .description("List an execution's files: its input files, the output files its tasks kept (output_files) and their artifacts, with size and sha256")
      .argument('<id>')
      .option('--json', 'the files as JSON (same as -o json)'),
  ).action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
    const items = await app.client(cmd).all('/api/v1/executions/{executionId}/artifacts', { params: { path: { executionId: id } } });
    const order = { input: 0, output: 1, artifact: 2 } as Record<string, number>;
    items.sort((a, b) => (order[kindOf(a)] ?? 3) - (order[kindOf(b)] ?? 3) || (a.task_key ?? '').localeCompare(b.task_key ?? '') || a.name.localeCompare(b.name));
    printList(
      io,
      opts.json ? 'json' : app.format(cmd),
      items,
      [
        ['KIND', (a) => kindOf(a)],
        ['TASK', (a) => a.task_key ?? '-'],
        ['NAME', (a) => a.name],
        ['SIZE', (a) => a.size],
        ['SHA256', (a) => a.sha256 ?? '-'],
        ['ID', (a) => a.id],
      ],
      `execution ${id} has no files`,
    );
  });

  ex.command('download')
    .description('Download one file of an execution (by its name, `task/name`, or id), checking its size and sha256; see `svc executions files`')
    .argument('<id>')
    .argument('<path>', "the file's name (e.g. out/a.csv), task/name (extract/out/a.csv), or its id")
    .option('-o, --output <file>', 'write to FILE (default: the name\'s last part in the current directory); "-" for standard output')
    .option('--kind <kind>', 'only files of this kind: input, output or artifact')
    .action((id: string, ref: string, opts: { output?: string; kind?: string }, cmd: Command) => download(app, app.client(cmd), id, ref, opts));
}
