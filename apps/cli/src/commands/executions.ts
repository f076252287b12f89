// svc run, svc executions, svc artifacts: start flows, follow, cancel, rerun
// and restart executions, read their logs, download their artifacts; approve,
// reject, pause and resume are executions-gates.ts; bulk actions
// executions-bulk.ts; files and download (one file, checked) executions-files.ts.
// `svc run --file key=path` uploads each file first (createUpload, streamed,
// with its sha256), then triggers with the upload ids as the inputs' values.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { ApiError, lostStream, type ApiClient } from '../api/client.js';
import { splitFlowRef, withOutput, type App } from '../app.js';
import { CliError } from '../io.js';
import { colorsFor, duration, printList, printRecord, renderTable, serialize, stateColor, when, type Column } from '../ui/output.js';
import { isItem, itemCountsText, latestItems, shortItem } from '../ui/fan-out.js';
import { progressBar } from '../ui/progress.js';
import type { ExecutionState, LogLine, TaskRun } from '../api/types.js';
import { END_STATE_EXIT_CODES, endSummary, exitCodeFor, watchExecution, type Execution } from '../ui/watch.js';
import { approvalText, awaitingText, latestRun, pausedText } from '../ui/approval.js';
import { registerExecutionGates } from './executions-gates.js';
import { registerExecutionReplay } from './executions-replay.js';
import { registerExecutionsBulk } from './executions-bulk.js';
import { registerExecutionFiles } from './executions-files.js';
import { coerce, collect, keyValues } from './key-values.js';
import { readAllStdin } from '../ui/prompt.js';
import type { components } from '@svc/api-spec/openapi-types';

const EXIT_CODES_HELP = `
Exit codes with --watch: ${Object.entries(END_STATE_EXIT_CODES)
  .map(([s, n]) => `${n} ${s}`)
  .join(', ')};
1 an error of the CLI or a lost connection, 2 a usage error.`;

/** An error's first line, short enough for a table. */
const firstLine = (error: string | undefined) => (error ?? '').split('\n')[0].slice(0, 80);

interface RunOptions {
  input: string[];
  file: string[];
  inputFile?: string;
  label: string[];
  watch?: boolean;
  logs: boolean;
  batch?: string;
  dryRun?: boolean;
  output: string;
}

/** Follows an execution (when asked) and sets the exit code from its end state. */
async function maybeWatch(app: App, cmd: Command, api: ApiClient, e: Execution, watch: boolean | undefined, logs = true): Promise<void> {
  const format = app.format(cmd);
  if (!watch) {
    if (format !== 'table') app.io.stdout.write(serialize(e, format));
    else app.io.stdout.write(`${e.id}\n`);
    app.io.stderr.write(`execution ${e.id} of ${e.namespace}/${e.flow_id ?? '(file)'} is ${e.state}\n`);
    return;
  }
  app.io.stderr.write(`execution ${e.id} of ${e.namespace}/${e.flow_id ?? '(file)'} started; following it (Ctrl-C stops following, not the execution)\n`);
  const end = await watchExecution(app.io, api, e.id, { logs, logsTo: format === 'table' ? 'stdout' : 'stderr' });
  if (format !== 'table') app.io.stdout.write(serialize(end, format));
  endSummary(app.io, end);
  app.exitCode = exitCodeFor(end.state);
}

type BatchItem = components['schemas']['TriggerFlowBatchItem'];

/**
 * The items of a --batch file: a JSON array, or NDJSON (one object per
 * non-blank line), each an object with `inputs` and `labels` (both optional).
 * The server checks the rest (types, the limit) and names any bad item.
 */
export function parseBatch(text: string, name: string): BatchItem[] {
  const trimmed = text.trim();
  if (!trimmed) throw new CliError(`${name} holds no items`, 2);
  let items: unknown[];
  if (trimmed.startsWith('[')) {
    try {
      items = JSON.parse(trimmed) as unknown[];
    } catch (e) {
      throw new CliError(`${name} is not a JSON array: ${(e as Error).message}`, 2);
    }
  } else {
    items = [];
    for (const [i, line] of text.split('\n').entries()) {
      if (!line.trim()) continue;
      try {
        items.push(JSON.parse(line));
      } catch (e) {
        throw new CliError(`${name} line ${i + 1} is not JSON: ${(e as Error).message}`, 2);
      }
    }
  }
  for (const [i, it] of items.entries()) {
    if (!it || typeof it !== 'object' || Array.isArray(it)) throw new CliError(`${name} item ${i} must be an object with inputs and labels`, 2);
    const extra = Object.keys(it).filter((k) => k !== 'inputs' && k !== 'labels');
    if (extra.length) throw new CliError(`${name} item ${i} has ${extra.join(', ')}: only inputs and labels are allowed`, 2);
  }
  return items as BatchItem[];
}

/** A file to upload for a `file` input: its key, the path as given, and where it is. */
interface LocalFile {
  key: string;
  given: string;
  path: string;
  size: number;
}

/**
 * The --file KEY=PATH pairs, each a readable regular file: all checked before
 * anything is uploaded, so a typo uploads nothing.
 */
export function localFiles(pairs: string[], cwd: string): LocalFile[] {
  return Object.entries(keyValues(pairs, '--file')).map(([key, given]) => {
    const at = path.resolve(cwd, given);
    let st: fs.Stats;
    try {
      st = fs.statSync(at);
      fs.accessSync(at, fs.constants.R_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new CliError(`--file ${key}=${given}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable' : (e as Error).message}`, 2);
    }
    if (!st.isFile()) throw new CliError(`--file ${key}=${given}: not a regular file`, 2);
    return { key, given, path: at, size: st.size };
  });
}

/** The sha256 of a file, read as a stream. */
async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/**
 * Uploads one file for input `f.key` (createUpload): the body streamed from
 * disk (a file-backed Blob), its sha256 sent for the service to check. A
 * refusal names the file and says why (413 over SVC_MAX_INPUT_FILE_BYTES, 422
 * a changed file or a bad name, 403, 404 no such namespace).
 */
async function uploadInput(app: App, api: ApiClient, namespace: string, f: LocalFile): Promise<string> {
  const sha256 = await sha256Of(f.path);
  const name = path.basename(f.path);
  try {
    const u = await api.post('/api/v1/namespaces/{namespace}/uploads', {
      params: { path: { namespace }, query: { name } },
      body: await fs.openAsBlob(f.path),
      headers: { 'x-svc-sha256': sha256 },
    });
    app.io.stderr.write(`uploaded ${f.given} for input ${f.key} (${u.size} bytes, sha256 ${u.sha256})\n`);
    return u.id;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const why =
      err.status === 413
        ? `too large: ${err.message}`
        : err.status === 422
          ? `refused: ${[err.message, ...err.details.map((d) => `${d.field ? `${d.field}: ` : ''}${d.message}`)].join('; ')}`
          : err.message;
    throw new CliError(
      `--file ${f.key}=${f.given}: the upload to ${namespace} failed (code ${err.code}, HTTP ${err.status}${err.requestId ? `, request ID ${err.requestId}` : ''}): ${why}`,
    );
  }
}

/** svc run --batch: one request that creates every item's execution, or none. */
async function runBatch(app: App, cmd: Command, ref: string, opts: RunOptions): Promise<void> {
  if (opts.watch || opts.input.length || opts.inputFile || opts.file.length)
    throw new CliError('--batch takes its inputs from the file: it cannot be combined with --input, --input-file, --file or --watch', 2);
  const { namespace, flowId } = splitFlowRef(ref);
  const file = opts.batch!;
  const text = file === '-' ? await readAllStdin(app.io) : fs.readFileSync(path.resolve(app.io.cwd, file), 'utf8');
  const labels = keyValues(opts.label, '--label');
  const items = parseBatch(text, file === '-' ? 'standard input' : file).map((it) => (opts.label.length ? { ...it, labels: { ...labels, ...(it.labels ?? {}) } } : it));
  const r = await app
    .client(cmd)
    .post('/api/v1/flows/{namespace}/{flowId}/executions/batch', { params: { path: { namespace, flowId } }, body: { items, ...(opts.dryRun ? { dry_run: true } : {}) } });
  const format = app.format(cmd);
  if (r.dry_run) {
    if (format !== 'table') app.io.stdout.write(serialize(r, format));
    app.io.stderr.write(`dry run: ${r.count} item(s) checked against ${namespace}/${flowId}; nothing created\n`);
    return;
  }
  if (format !== 'table') app.io.stdout.write(serialize(r, format));
  else for (const e of r.executions) app.io.stdout.write(`${e.id}\n`);
  const byState = new Map<string, number>();
  for (const e of r.executions) byState.set(e.state, (byState.get(e.state) ?? 0) + 1);
  const states = [...byState].map(([st, n]) => `${n} ${st}`).join(', ');
  app.io.stderr.write(`created ${r.executions.length} execution(s) of ${namespace}/${flowId}${states ? ` (${states})` : ''}\n`);
}

async function run(app: App, cmd: Command, ref: string, opts: RunOptions): Promise<void> {
  if (opts.batch !== undefined) return runBatch(app, cmd, ref, opts);
  if (opts.dryRun) throw new CliError('--dry-run goes with --batch: a single run has no dry run', 2);
  const { namespace, flowId } = splitFlowRef(ref);
  const api = app.client(cmd);
  let inputs: Record<string, unknown> = {};
  if (opts.inputFile) {
    const text = fs.readFileSync(path.resolve(app.io.cwd, opts.inputFile), 'utf8');
    const parsed = JSON.parse(text) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliError(`${opts.inputFile} must hold a JSON object of inputs`, 2);
    inputs = { ...(parsed as Record<string, unknown>) };
  }
  const given = keyValues(opts.input, '--input');
  const files = localFiles(opts.file, app.io.cwd);
  const twice = files.filter((f) => f.key in given);
  if (twice.length) throw new CliError(`input ${twice[0].key} is given by both --input and --file`, 2);
  if (Object.keys(given).length || files.length) {
    // Typed from the flow's declaration, so `--input count=3` sends the number 3.
    const flow = await api.get('/api/v1/flows/{namespace}/{flowId}', { params: { path: { namespace, flowId } } });
    const types = new Map<string, string>((flow.definition?.inputs ?? []).map((i) => [i.id, i.type]));
    for (const [k, v] of Object.entries(given)) {
      // `--input report=./q3.csv` for a file input: the path would be sent as an upload id.
      if (types.get(k) === 'file' && fs.existsSync(path.resolve(app.io.cwd, v)))
        throw new CliError(`input ${k} is a file input: give the file with --file ${k}=${v} (--input ${k}=... takes an upload id)`, 2);
      inputs[k] = coerce(v, types.get(k), k);
    }
    // Nothing is uploaded for an input that takes no file (an undeclared one is the server's to judge).
    for (const f of files) {
      const t = types.get(f.key);
      if (t !== undefined && t !== 'file') throw new CliError(`--file ${f.key}=${f.given}: input ${f.key} is of type ${t}, not file`, 2);
    }
  }
  const labels = keyValues(opts.label, '--label');
  // Uploaded one after the other; an upload no execution uses expires by itself.
  for (const f of files) inputs[f.key] = await uploadInput(app, api, namespace, f);
  const e = await api.post('/api/v1/flows/{namespace}/{flowId}/executions', { params: { path: { namespace, flowId } }, body: { inputs, labels } });
  await maybeWatch(app, cmd, api, e, opts.watch, opts.logs);
}

async function printLogs(app: App, api: ApiClient, id: string, opts: { follow?: boolean; task?: string; attempt?: string }): Promise<void> {
  const { io } = app;
  const c = colorsFor(io);
  if (opts.follow) {
    await api.stream(
      '/api/v1/executions/{executionId}/logs/stream',
      { params: { path: { executionId: id }, ...(opts.task ? { query: { task: opts.task } } : {}) } },
      {
        lostStream,
        onEvent: (ev) => {
          if (ev.event !== 'line') return;
          const l = JSON.parse(ev.data) as LogLine;
          io.stdout.write(`${c.dim(`[${l.task_key}]`)} ${l.text}\n`);
        },
        onReconnect: (n, last) => io.stderr.write(`(log stream dropped; reconnecting${last ? ` from ${last}` : ''}, try ${n})\n`),
      },
    );
    const e = await api.get('/api/v1/executions/{executionId}', { params: { path: { executionId: id } } });
    io.stderr.write(`execution ${id} ended ${stateColor(colorsFor(io, 'stderr'), e.state)}\n`);
    return;
  }
  let cursor: string | undefined;
  do {
    const page = await api.get('/api/v1/executions/{executionId}/logs', {
      params: {
        path: { executionId: id },
        query: { limit: 5000, task: opts.task, ...(opts.attempt !== undefined ? { attempt: Number(opts.attempt) } : {}), ...(cursor ? { cursor } : {}) },
      },
    });
    for (const l of page.items) io.stdout.write(`${c.dim(`[${l.task_key}]`)} ${l.text}\n`);
    cursor = page.next_cursor;
  } while (cursor);
}

async function download(app: App, api: ApiClient, id: string, names: string[], dir: string): Promise<void> {
  const { io } = app;
  const all = await api.all('/api/v1/executions/{executionId}/artifacts', { params: { path: { executionId: id } } });
  const chosen = names.length ? all.filter((a) => names.includes(a.name) || names.includes(a.id)) : all;
  const missing = names.filter((n) => !all.some((a) => a.name === n || a.id === n));
  if (missing.length) throw new CliError(`no artifact ${missing.join(', ')} in execution ${id} (see svc artifacts list ${id})`);
  if (!chosen.length) return void io.stderr.write(`execution ${id} has no artifacts\n`);
  const root = path.resolve(io.cwd, dir);
  const bar = progressBar(
    io,
    'downloading',
    chosen.reduce((n, a) => n + a.size, 0),
    'bytes',
  );
  try {
    for (const a of chosen) {
      // Two tasks may leave artifacts of one name: the task key keeps them apart (a file input's name is its input id's already).
      const clash = chosen.filter((x) => x.name === a.name).length > 1;
      const target = path.resolve(root, clash ? path.join(a.task_key ?? a.kind ?? 'input', a.name) : a.name);
      if (!target.startsWith(root + path.sep)) throw new CliError(`refusing to write outside ${dir}: ${a.name}`);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const body = await api.get('/api/v1/executions/{executionId}/artifacts/{artifactId}', { params: { path: { executionId: id, artifactId: a.id } }, parseAs: 'stream' });
      const counter = new Transform({
        transform(chunk: Buffer, _e, cb) {
          bar.increment(chunk.length);
          cb(null, chunk);
        },
      });
      await pipeline(Readable.fromWeb(body as never), counter, fs.createWriteStream(target));
    }
  } finally {
    bar.stop();
  }
  io.stderr.write(`downloaded ${chosen.length} artifact(s) to ${dir}\n`);
}

export function registerExecutions(program: Command, app: App): void {
  const { io } = app;

  withOutput(
    program
      .command('run')
      .description('Start an execution of a flow; with --watch follow it to its end')
      .argument('<ns/flow>', 'namespace and flow id, e.g. team.etl/nightly')
      .option('-i, --input <key=value>', "an input (repeatable); typed from the flow's inputs", collect, [])
      .option('--input-file <file.json>', 'inputs as a JSON object (--input wins per key)')
      .option('-F, --file <key=path>', 'a file for an input of type file (repeatable): uploaded first (streamed, sha256 checked), then its upload id is the value', collect, [])
      .option('-l, --label <key=value>', 'a label (repeatable)', collect, [])
      .option('-w, --watch', 'follow the events and logs until the execution ends; exit code from its end state')
      .option('--no-logs', 'with --watch: do not print the log lines')
      .option(
        '--batch <file>',
        'start one execution per item of FILE (`-`: standard input), a JSON array or NDJSON of {inputs, labels} objects, up to 1,000, all or none; --label adds to every item; prints the ids',
      ),
  )
    .option('--dry-run', 'with --batch: the server checks the flow and every item as the batch would, and creates nothing')
    .addHelpText('after', EXIT_CODES_HELP + '\nA dry run changes nothing anywhere: the server only checks the items, and nothing is created.\n')
    .action((ref: string, opts: RunOptions, cmd: Command) => run(app, cmd, ref, opts));

  const ex = program
    .command('executions')
    .alias('execution')
    .description(
      'List, show, cancel, rerun and restart executions; read their logs; list and download their files; approve or reject a task at its approval gate; pause and resume',
    );
  withOutput(
    ex
      .command('list')
      .description('List executions, newest first')
      .option('-n, --namespace <ns>', 'only this namespace and its children')
      .option('-f, --flow <id>', 'only this flow id')
      .option('-s, --state <state>', 'only this state')
      .option('-l, --label <key:value>', 'label filter (repeatable, all must match)', collect, [])
      .option('--limit <n>', 'at most this many', '50'),
  ).action(async (opts: { namespace?: string; flow?: string; state?: string; label: string[]; limit: string }, cmd: Command) => {
    const items = await app.client(cmd).all(
      '/api/v1/executions',
      {
        params: {
          // The server checks the state (422 with the states it knows).
          query: { namespace: opts.namespace, flow: opts.flow, state: opts.state?.toUpperCase() as ExecutionState | undefined, label: opts.label.map((l) => l.replace('=', ':')) },
        },
      },
      Number(opts.limit),
    );
    const c = colorsFor(io);
    printList(
      io,
      app.format(cmd),
      items,
      [
        ['ID', (e) => e.id],
        ['FLOW', (e) => `${e.namespace}/${e.flow_id ?? '(file)'}`],
        ['STATE', (e) => stateColor(c, e.state)],
        ['CREATED', (e) => when(e.created_at)],
        ['DURATION', (e) => duration(e.duration_ms)],
      ],
      'no executions',
    );
  });

  withOutput(
    ex
      .command('get')
      .description(
        'Show an execution and its task runs (a fanned-out task on one line, with its items counted by state; a task at its approval gate with who may decide and by when)',
      )
      .argument('<id>')
      .option('--items', 'also list the items of each fanned-out task (for_each), one line per item'),
  ).action(async (id: string, opts: { items?: boolean }, cmd: Command) => {
    const e = await app.client(cmd).get('/api/v1/executions/{executionId}', { params: { path: { executionId: id } } });
    const format = app.format(cmd);
    if (format !== 'table') return void io.stdout.write(serialize(e, format));
    const c = colorsFor(io);
    printRecord(io, format, e, [
      ['id', (x) => x.id],
      ['flow', (x) => `${x.namespace}/${x.flow_id ?? '(file)'}`],
      // A paused execution's reason is `paused`: said with who paused it and since when.
      ['state', (x) => stateColor(c, x.state) + (x.paused ? ` (${pausedText(x)})` : x.reason ? ` (${x.reason})` : '')],
      ['created', (x) => when(x.created_at)],
      ['started', (x) => when(x.started_at)],
      ['ended', (x) => when(x.ended_at)],
      ['duration', (x) => duration(x.duration_ms)],
      ['trigger', (x) => x.trigger_type],
      ['inputs', (x) => JSON.stringify(x.inputs ?? {})],
      [
        'labels',
        (x) =>
          Object.entries(x.labels ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(', '),
      ],
      ['error', (x) => x.error],
    ]);
    // A fanned-out task's items are counted on its own line, not listed one by one (unless --items).
    const own = (e.task_runs ?? []).filter((r) => !isItem(r));
    if (own.length) {
      const fanned = own.filter((r) => r.item_counts);
      const gated = own.filter((r) => r.approval);
      const columns: Column<TaskRun>[] = [
        ['TASK', (r) => r.task_key],
        ['ATTEMPT', (r) => r.attempt],
        ['STATE', (r) => stateColor(c, r.state)],
        ...(fanned.length ? [['ITEMS', (r: TaskRun) => itemCountsText(r)] as Column<TaskRun>] : []),
        ['REASON', (r) => r.reason],
        ...(gated.length ? [['APPROVAL', (r: TaskRun) => approvalText(r)] as Column<TaskRun>] : []),
        ['DURATION', (r) => duration(r.duration_ms)],
        ['ERROR', (r) => firstLine(r.error)],
      ];
      io.stdout.write('\n');
      io.stdout.write(renderTable(own, columns, c));
      // Each task waiting at its gate (the latest attempt): who may decide, by when, the form and the commands that decide.
      for (const r of gated) if (r.approval?.status === 'pending' && latestRun(own, r.task_key) === r) io.stdout.write(`\n${awaitingText(e.id, r, c)}`);
      for (const task of opts.items ? [...new Set(fanned.map((r) => r.task_key))] : []) {
        const items = latestItems(e.task_runs, task);
        io.stdout.write(`\n${c.bold(`items of ${task}`)}\n`);
        if (!items.length) {
          io.stdout.write('no items\n');
          continue;
        }
        io.stdout.write(
          renderTable(
            items,
            [
              ['INDEX', (r) => r.item_index],
              ['ITEM', (r) => shortItem(r.item)],
              ['STATE', (r) => stateColor(c, r.state)],
              ['ATTEMPT', (r) => r.attempt],
              ['DURATION', (r) => (r.reused_from_id ? 'reused' : duration(r.duration_ms))],
              ['ERROR', (r) => firstLine(r.error)],
            ],
            c,
          ),
        );
      }
    }
  });

  ex.command('cancel')
    .description('Cancel an execution (QUEUED at once; RUNNING through CANCELLING)')
    .argument('<id>')
    .option('-w, --watch', 'wait until it has ended')
    .action(async (id: string, opts: { watch?: boolean }, cmd: Command) => {
      const api = app.client(cmd);
      const e = await api.post('/api/v1/executions/{executionId}/cancel', { params: { path: { executionId: id } } });
      io.stderr.write(`execution ${id} is ${e.state}\n`);
      if (opts.watch) {
        const end = await watchExecution(io, api, id, { logs: false });
        endSummary(io, end);
        app.exitCode = exitCodeFor(end.state);
      }
    });

  for (const [name, what] of [
    ['rerun', 'Run the same snapshot, definition, inputs and labels again (all tasks run)'],
    ['restart', 'Restart a FAILED, TIMED_OUT or CANCELLED execution from its failed tasks (successful ones are reused)'],
  ] as const) {
    withOutput(
      ex
        .command(name)
        .description(what)
        .argument('<id>')
        .option('-w, --watch', 'follow the new execution to its end; exit code from its end state')
        .option('--no-logs', 'with --watch: do not print the log lines'),
    )
      .addHelpText('after', EXIT_CODES_HELP)
      .action(async (id: string, opts: { watch?: boolean; logs: boolean }, cmd: Command) => {
        const api = app.client(cmd);
        const init = { params: { path: { executionId: id } } };
        const e = name === 'rerun' ? await api.post('/api/v1/executions/{executionId}/rerun', init) : await api.post('/api/v1/executions/{executionId}/restart', init);
        await maybeWatch(app, cmd, api, e, opts.watch, opts.logs);
      });
  }

  registerExecutionGates(ex, app);
  registerExecutionReplay(ex, app);
  registerExecutionsBulk(ex, app);
  registerExecutionFiles(ex, app);

  ex.command('logs')
    .description('Print the log lines of an execution; --follow streams them until it ends')
    .argument('<id>')
    .option('-f, --follow', 'stream new lines until the execution ends (resumes after a dropped connection)')
    .option('-t, --task <id>', 'only this task')
    .option('--attempt <n>', 'only this attempt (without --follow)')
    .action((id: string, opts: { follow?: boolean; task?: string; attempt?: string }, cmd: Command) => printLogs(app, app.client(cmd), id, opts));

  const art = program.command('artifacts').alias('artifact').description('List and download the artifacts of an execution');
  withOutput(art.command('list').description('List the artifacts of an execution').argument('<execution-id>')).action(async (id: string, _o, cmd: Command) => {
    const items = await app.client(cmd).all('/api/v1/executions/{executionId}/artifacts', { params: { path: { executionId: id } } });
    printList(
      io,
      app.format(cmd),
      items,
      [
        ['ID', (a) => a.id],
        ['TASK', (a) => a.task_key],
        ['NAME', (a) => a.name],
        ['SIZE', (a) => a.size],
        ['CREATED', (a) => when(a.created_at)],
      ],
      'no artifacts',
    );
  });
  art
    .command('download')
    .description('Download artifacts of an execution (all, or those named)')
    .argument('<execution-id>')
    .argument('[names...]', 'artifact names or ids (default all)')
    .option('-d, --dir <dir>', 'directory to write to', '.')
    .action((id: string, names: string[], opts: { dir: string }, cmd: Command) => download(app, app.client(cmd), id, names, opts.dir));
}
