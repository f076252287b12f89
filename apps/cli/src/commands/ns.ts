// svc ns: namespaces and their files. `push` makes a namespace's head equal
// to a local directory in one optimistic save (base_version = the head it
// compared against), `pull` writes a version to a directory.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { ApiError, type ApiClient } from '../api/client.js';
import type { Answer, Namespace } from '../api/types.js';
import { withOutput, type App } from '../app.js';
import { CliError } from '../io.js';
import { computeChanges, describeChange, readLocalTree, toWire, type Change, type FileState } from '../ns/changeset.js';
import { colorsFor, printList, printRecord, serialize, when, type Colors } from '../ui/output.js';
import { progressBar } from '../ui/progress.js';
import { confirm } from '@inquirer/prompts';

/** saveChanges takes at most 1000 changes and a JSON body of at most 10 MiB: bigger pushes are split. */
const MAX_CHANGES = 1000;
const MAX_CHUNK_BYTES = 8 * 1024 * 1024;

interface Head {
  version: number;
  files: Map<string, FileState>;
}

async function readHead(api: ApiClient, ns: string, version?: number): Promise<Head> {
  const info = await api.get('/api/v1/namespaces/{namespace}', { params: { path: { namespace: ns } } });
  const v = version ?? info.head_version ?? 0;
  const items = await api.all('/api/v1/namespaces/{namespace}/files', { params: { path: { namespace: ns }, query: { version: v } } });
  return { version: v, files: new Map(items.map((f) => [f.path, { hash: f.sha256, executable: f.executable }])) };
}

function chunk(changes: Change[]): Change[][] {
  const out: Change[][] = [];
  let cur: Change[] = [];
  let bytes = 0;
  for (const c of changes) {
    const size = c.op === 'put' ? Math.ceil(c.content.length * 1.4) + c.path.length : c.path.length * 2;
    if (cur.length && (cur.length >= MAX_CHANGES || bytes + size > MAX_CHUNK_BYTES)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(c);
    bytes += size;
  }
  if (cur.length) out.push(cur);
  return out;
}

/** What a push would have done, for the last line of a dry run. */
function dryRunOutcome(ns: string, dir: string, newNamespace: boolean, version: number, changes: number): string {
  if (newNamespace) {
    const save = changes ? ` and save ${changes} change(s) in it as version 1` : ` (${dir} has no files to push)`;
    return `would create namespace ${ns}${save}; nothing created, nothing saved`;
  }
  if (!changes) return `nothing to push: ${ns} version ${version} already matches ${dir}`;
  return `${changes} change(s) against ${ns} version ${version}, nothing saved`;
}

function printChanges(write: (s: string) => void, c: Colors, changes: Change[]): void {
  for (const ch of changes) {
    const line = describeChange(ch);
    const color = ch.op === 'delete' ? c.red : ch.op === 'rename' ? c.cyan : ch.kind === 'added' ? c.green : c.yellow;
    write(`${color(line)}\n`);
  }
}

interface PushOptions {
  namespace: string;
  message?: string;
  dryRun?: boolean;
  create?: boolean;
  output?: string;
}

async function push(app: App, cmd: Command, dir: string, opts: PushOptions): Promise<void> {
  const { io } = app;
  const api = app.client(cmd);
  const ns = opts.namespace;
  const root = path.resolve(io.cwd, dir);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new CliError(`${dir} is not a directory`, 2);
  const local = readLocalTree(root);
  let head: Head;
  /** The namespace does not exist and --create makes it: before the save, or, in a dry run, only in the report. */
  let newNamespace = false;
  try {
    head = await readHead(api, ns);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
    if (!opts.create) throw new CliError(`namespace ${ns} does not exist: create it with \`svc ns create ${ns}\`, or push with --create`);
    newNamespace = true;
    head = { version: 0, files: new Map() };
  }
  const changes = computeChanges(local, head.files);
  const format = app.format(cmd);
  const summary = {
    namespace: ns,
    new_namespace: newNamespace,
    base_version: head.version,
    dry_run: Boolean(opts.dryRun),
    changes: changes.map((c) => ({ op: c.op, path: c.path, ...(c.op === 'rename' ? { new_path: c.new_path } : {}), ...(c.op === 'put' ? { kind: c.kind } : {}) })),
  };
  // A dry run changes nothing anywhere: it has only read, and it stops here.
  if (opts.dryRun) {
    if (format === 'table') printChanges((s) => io.stdout.write(s), colorsFor(io), changes);
    else io.stdout.write(serialize(summary, format));
    io.stderr.write(`dry run: ${dryRunOutcome(ns, dir, newNamespace, head.version, changes.length)}\n`);
    return;
  }
  if (newNamespace) {
    await api.post('/api/v1/namespaces', { body: { name: ns } });
    io.stderr.write(`created namespace ${ns}\n`);
  }
  if (!changes.length) {
    if (format !== 'table') io.stdout.write(serialize({ ...summary, version: head.version }, format));
    io.stderr.write(`nothing to push: ${ns} version ${head.version} already matches ${dir}\n`);
    return;
  }
  if (format === 'table') printChanges((s) => io.stdout.write(s), colorsFor(io), changes);
  const message = opts.message ?? `Push ${changes.length} change(s) with the svc CLI`;
  const parts = chunk(changes);
  const bar = progressBar(io, `pushing to ${ns}`, changes.length, 'changes');
  let base = head.version;
  let saved: Answer<'saveChanges'> | undefined;
  try {
    for (const [i, part] of parts.entries()) {
      try {
        saved = await api.post('/api/v1/namespaces/{namespace}/changes', {
          params: { path: { namespace: ns } },
          body: { base_version: base, message: parts.length > 1 ? `${message} (part ${i + 1} of ${parts.length})` : message, changes: part.map(toWire) },
        });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'version_conflict') {
          bar.stop();
          const now = await api.get('/api/v1/namespaces/{namespace}', { params: { path: { namespace: ns } } }).then(
            (n) => n.head_version,
            () => undefined,
          );
          const done = i > 0 ? ` The first ${i} part(s) were saved (up to version ${base}).` : ' Nothing was saved.';
          throw new CliError(
            `version_conflict: ${ns} changed on the server while pushing: it was at version ${base}${now !== undefined ? ` and is now at version ${now}` : ''}.${done}\n` +
              `Run \`svc ns diff ${ns} ${dir}\` to see the difference, then push again.${err.requestId ? ` (request ID ${err.requestId})` : ''}`,
          );
        }
        throw err;
      }
      base = saved.version!;
      bar.increment(part.length);
    }
  } finally {
    bar.stop();
  }
  if (format !== 'table') io.stdout.write(serialize({ ...summary, version: saved!.version, version_id: saved!.id }, format));
  io.stderr.write(`saved ${ns} version ${saved!.version} (${changes.length} change(s) on version ${head.version})\n`);
}

async function pull(app: App, cmd: Command, ns: string, dir: string, opts: { version?: string; delete?: boolean }): Promise<void> {
  const { io } = app;
  const api = app.client(cmd);
  const root = path.resolve(io.cwd, dir);
  const head = await readHead(api, ns, opts.version !== undefined ? Number(opts.version) : undefined);
  fs.mkdirSync(root, { recursive: true });
  const bar = progressBar(io, `pulling ${ns}`, head.files.size);
  let written = 0;
  try {
    for (const [p, st] of [...head.files.entries()].sort()) {
      const target = path.join(root, ...p.split('/'));
      if (!target.startsWith(root + path.sep)) throw new CliError(`refusing to write outside ${dir}: ${p}`);
      const f = await api.get('/api/v1/namespaces/{namespace}/file', { params: { path: { namespace: ns }, query: { path: p, version: head.version } } });
      const body = f.content !== undefined ? Buffer.from(f.content, 'utf8') : Buffer.from(f.content_base64 ?? '', 'base64');
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, body);
      fs.chmodSync(target, st.executable ? 0o755 : 0o644);
      written++;
      bar.increment();
    }
  } finally {
    bar.stop();
  }
  let removed = 0;
  if (opts.delete) {
    for (const f of readLocalTree(root)) {
      if (head.files.has(f.path)) continue;
      fs.rmSync(path.join(root, ...f.path.split('/')));
      removed++;
    }
  }
  io.stderr.write(`wrote ${written} file(s) of ${ns} version ${head.version} to ${dir}${opts.delete ? `, removed ${removed}` : ''}\n`);
}

async function diff(app: App, cmd: Command, ns: string, dir: string | undefined, opts: { from?: string; to?: string; path?: string }): Promise<void> {
  const { io } = app;
  const api = app.client(cmd);
  const format = app.format(cmd);
  if (opts.from === undefined) {
    if (!dir) throw new CliError('give a directory to compare with the head version, or --from VERSION', 2);
    const head = await readHead(api, ns);
    const changes = computeChanges(readLocalTree(path.resolve(io.cwd, dir)), head.files);
    if (format !== 'table')
      return void io.stdout.write(
        serialize(
          changes.map((c) => ({ op: c.op, path: c.path, ...(c.op === 'rename' ? { new_path: c.new_path } : {}) })),
          format,
        ),
      );
    if (!changes.length) return void io.stderr.write(`${dir} matches ${ns} version ${head.version}\n`);
    io.stderr.write(`changes that push would make to ${ns} version ${head.version}:\n`);
    printChanges((s) => io.stdout.write(s), colorsFor(io), changes);
    return;
  }
  const d = await api.get('/api/v1/namespaces/{namespace}/diff', {
    params: { path: { namespace: ns }, query: { from: Number(opts.from), to: opts.to !== undefined ? Number(opts.to) : undefined, path: opts.path } },
  });
  if (format !== 'table') return void io.stdout.write(serialize(d, format));
  const c = colorsFor(io);
  for (const f of d.files) {
    io.stdout.write(`${c.bold(`${f.status} ${f.path}`)}\n`);
    if (f.diff) io.stdout.write(f.diff.endsWith('\n') ? f.diff : `${f.diff}\n`);
  }
}

const NAMESPACE_FIELDS: [string, (n: Namespace) => unknown][] = [
  ['Name', (n) => n.name],
  ['Description', (n) => n.description ?? ''],
  ['Version', (n) => n.head_version ?? 0],
  ['Read only', (n) => (n.read_only ? 'yes (git source)' : 'no')],
  ['Allowed callers', (n) => (n.allowed_callers?.length ? n.allowed_callers.join(', ') : "(none: its own flows and its parents' only)")],
  ['Created', (n) => when(n.created_at)],
];

export function registerNs(program: Command, app: App): void {
  const { io } = app;
  const ns = program.command('ns').alias('namespace').description('Namespaces: list, create, delete, push and pull files, versions');

  withOutput(ns.command('list').description('List namespaces').option('--parent <ns>', 'only the children of this namespace')).action(
    async (opts: { parent?: string }, cmd: Command) => {
      const items = await app.client(cmd).all('/api/v1/namespaces', { params: { query: { parent: opts.parent } } });
      printList(
        io,
        app.format(cmd),
        items,
        [
          ['NAMESPACE', (n) => n.name],
          ['VERSION', (n) => n.head_version],
          ['FILES', (n) => n.file_count],
          ['FLOWS', (n) => n.flow_count],
          ['UPDATED', (n) => when(n.updated_at)],
          ['DESCRIPTION', (n) => n.description],
        ],
        'no namespaces',
      );
    },
  );

  ns.command('create')
    .description('Create a namespace (admin)')
    .argument('<name>')
    .option('-d, --description <text>', 'description')
    .action(async (name: string, opts: { description?: string }, cmd: Command) => {
      await app.client(cmd).post('/api/v1/namespaces', { body: { name, ...(opts.description ? { description: opts.description } : {}) } });
      io.stderr.write(`created namespace ${name}\n`);
    });

  withOutput(ns.command('get').description('Show a namespace, with the namespaces allowed to call into it').argument('<name>')).action(
    async (name: string, _opts: unknown, cmd: Command) => {
      const n = await app.client(cmd).get('/api/v1/namespaces/{namespace}', { params: { path: { namespace: name } } });
      printRecord(io, app.format(cmd), n, NAMESPACE_FIELDS);
    },
  );

  ns.command('allow-callers')
    .description("Set the namespaces whose flows may start this namespace's flows as subflows and listen to its executions (admin)")
    .argument('<name>', 'the namespace called into')
    .argument('[callers...]', 'namespaces allowed to call, each with its children; replaces the list')
    .option('--none', 'allow no other namespace (empties the list)')
    .addHelpText(
      'after',
      '\nA flow reaches its own namespace and its children without this; anything else is refused when the flow is saved and when it runs.\nExamples:\n  svc ns allow-callers shared.lib team-a team-b\n  svc ns allow-callers shared.lib --none\n',
    )
    .action(async (name: string, callers: string[], opts: { none?: boolean }, cmd: Command) => {
      if (opts.none && callers.length) throw new CliError('give callers or --none, not both', 2);
      if (!opts.none && !callers.length) throw new CliError('name at least one caller namespace, or --none to allow none', 2);
      const n = await app.client(cmd).put('/api/v1/namespaces/{namespace}/allowed-callers', { params: { path: { namespace: name } }, body: { allowed_callers: callers } });
      const list = n.allowed_callers ?? [];
      io.stderr.write(list.length ? `${name} may be called by: ${list.join(', ')} (and their children)\n` : `${name} may be called by no other namespace\n`);
    });

  ns.command('delete')
    .description('Delete a namespace with its files, versions, flows, secrets and variables (admin)')
    .argument('<name>')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (name: string, opts: { yes?: boolean }, cmd: Command) => {
      if (!opts.yes) {
        if (!io.stdinIsTTY) throw new CliError('deleting a namespace needs --yes when there is no terminal to confirm on', 2);
        const ok = await confirm({ message: `Delete namespace ${name} and everything in it?`, default: false }, { output: process.stderr });
        if (!ok) throw new CliError('not deleted');
      }
      await app.client(cmd).delete('/api/v1/namespaces/{namespace}', { params: { path: { namespace: name } } });
      io.stderr.write(`deleted namespace ${name}\n`);
    });

  withOutput(
    ns
      .command('push')
      .description("Make a namespace's files equal to a directory: one save of puts, renames and deletes on the head version")
      .argument('<dir>', 'local directory (.git and node_modules are left out)')
      .requiredOption('-n, --namespace <ns>', 'target namespace')
      .option('-m, --message <text>', 'version message')
      .option('--dry-run', 'show what the push would do (the change set; with --create, the namespace it would create) and change nothing')
      .option('--create', 'create the namespace when it does not exist'),
  )
    .addHelpText(
      'after',
      '\nThe change set is computed against the head version by path and SHA-256 content hash\n(same content under a new path is a rename) and saved with base_version set to that\nhead, so a concurrent save makes the push fail with version_conflict instead of losing it.\n' +
        '\nA dry run changes nothing anywhere: it only reads from the server and writes no file.\n' +
        'With --create and a namespace that does not exist, it says it would create the namespace\n' +
        'and lists the files it would push, and creates neither.\n',
    )
    .action((dir: string, opts: PushOptions, cmd: Command) => push(app, cmd, dir, opts));

  ns.command('pull')
    .description('Write the files of a namespace version (default the head) to a directory')
    .argument('<ns>')
    .argument('<dir>')
    .option('--version <n>', 'version to pull')
    .option('--delete', 'remove local files that are not in the namespace')
    .action((name: string, dir: string, opts: { version?: string; delete?: boolean }, cmd: Command) => pull(app, cmd, name, dir, opts));

  withOutput(
    ns
      .command('diff')
      .description('Compare a directory with the head version, or two versions (--from, --to)')
      .argument('<ns>')
      .argument('[dir]')
      .option('--from <version>', 'older version')
      .option('--to <version>', 'newer version (default the head)')
      .option('--path <path>', 'only this file'),
  ).action((name: string, dir: string | undefined, opts: { from?: string; to?: string; path?: string }, cmd: Command) => diff(app, cmd, name, dir, opts));

  withOutput(ns.command('versions').description('List the versions of a namespace, newest first').argument('<ns>').option('--limit <n>', 'at most this many', '50')).action(
    async (name: string, opts: { limit: string }, cmd: Command) => {
      const items = await app.client(cmd).all('/api/v1/namespaces/{namespace}/versions', { params: { path: { namespace: name } } }, Number(opts.limit));
      printList(
        io,
        app.format(cmd),
        items,
        [
          ['VERSION', (v) => v.version],
          ['CREATED', (v) => when(v.created_at)],
          ['AUTHOR', (v) => v.author],
          ['FILES', (v) => v.file_count],
          ['MESSAGE', (v) => String(v.message ?? '').split('\n')[0]],
        ],
        'no versions',
      );
    },
  );

  ns.command('revert')
    .description('Save a new version whose files are those of an older version')
    .argument('<ns>')
    .argument('<version>')
    .option('-m, --message <text>', 'version message')
    .action(async (name: string, version: string, opts: { message?: string }, cmd: Command) => {
      const v = Number(version);
      if (!Number.isInteger(v) || v < 0) throw new CliError(`not a version number: ${version}`, 2);
      const saved = await app
        .client(cmd)
        .post('/api/v1/namespaces/{namespace}/revert', { params: { path: { namespace: name } }, body: { version: v, ...(opts.message ? { message: opts.message } : {}) } });
      io.stderr.write(`saved ${name} version ${saved.version} with the files of version ${v}\n`);
    });
}
