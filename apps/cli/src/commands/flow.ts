// svc flow: validate flow files offline (the server's own validator), and
// list, show, enable, disable and compare the flows of a server; backfills
// (flow-backfill.ts).
import fs from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { createFlowValidator, type FlowDefinition } from '@svc/flow-schema';
import { splitFlowRef, withOutput, type App } from '../app.js';
import type { CommandIo } from '../io.js';
import { colorsFor, printList, printRecord, serialize, when } from '../ui/output.js';
import { registerFlowBackfill } from './flow-backfill.js';

/** Files named on the command line; a directory stands for every `*.flow.yaml` under it. */
function expandFlowFiles(cwd: string, args: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.resolve(cwd, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.flow.yaml')) out.push(p);
    }
  };
  for (const a of args) {
    const full = path.resolve(cwd, a);
    if (fs.existsSync(full) && fs.statSync(full).isDirectory()) walk(a);
    else out.push(a);
  }
  return out;
}

/**
 * Prints `file:line:column: message` for each problem; returns 1 when any
 * file has one. `specOnly`: svc's extensions of the flow format (fields the
 * interface specification does not define) are problems too.
 */
export function validateFiles(io: CommandIo, args: string[], quiet: boolean, specOnly = false): number {
  const validator = createFlowValidator();
  const files = expandFlowFiles(io.cwd, args);
  const c = colorsFor(io);
  let bad = 0;
  let problems = 0;
  for (const file of files) {
    let source: string;
    try {
      source = fs.readFileSync(path.resolve(io.cwd, file), 'utf8');
    } catch (err) {
      io.stdout.write(`${file}:1:1: cannot read the file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
      bad++;
      problems++;
      continue;
    }
    const result = validator.validate(source);
    const errors = [...result.errors];
    if (specOnly) {
      for (const x of result.extensions ?? []) {
        errors.push({
          pointer: x.pointer,
          field: x.field,
          message: `${x.field}: ${x.what} is an extension of svc, not in the flow format's specification`,
          ...(x.line ? { line: x.line, column: x.column } : {}),
        });
      }
    }
    if (errors.length) bad++;
    problems += errors.length;
    for (const e of errors) io.stdout.write(`${c.bold(`${file}:${e.line ?? 1}:${e.column ?? 1}:`)} ${c.red(e.message)}\n`);
  }
  if (!quiet) {
    io.stderr.write(bad ? `${problems} problem(s) in ${bad} of ${files.length} flow file(s)\n` : `${files.length} flow file(s) valid\n`);
  }
  return bad || !files.length ? 1 : 0;
}

export function registerFlow(program: Command, app: App): void {
  const { io } = app;
  const flow = program.command('flow').description('Validate flow files; list, show, enable and disable flows');

  flow
    .command('validate')
    .description("Validate *.flow.yaml files offline with the server's validator; exit 1 on any problem")
    .argument('<files...>', 'flow files, or directories to search for *.flow.yaml')
    .option('-q, --quiet', 'print only the problems')
    .option('--spec-only', "also refuse svc's extensions of the flow format (e.g. run_if as an expression, for_each), for flows meant to stay portable")
    .addHelpText('after', '\nEach problem is printed as file:line:column: message (for editors, pre-commit hooks and CI).\n')
    .action((files: string[], opts: { quiet?: boolean; specOnly?: boolean }) => {
      app.exitCode = validateFiles(io, files, Boolean(opts.quiet), Boolean(opts.specOnly));
    });

  withOutput(
    flow
      .command('list')
      .description('List flows')
      .option('-n, --namespace <ns>', 'only this namespace and its children')
      .option('--search <text>', 'only flows whose id, description or namespace contains the text (any case; % and _ are plain characters)')
      // The name --search had before (kept for scripts).
      .addOption(new Option('-q, --query <text>').hideHelp()),
  ).action(async (opts: { namespace?: string; search?: string; query?: string }, cmd: Command) => {
    // The server searches (listFlows' q), so every page of the answer is of matches.
    const items = await app.client(cmd).all('/api/v1/flows', { params: { query: { namespace: opts.namespace, q: opts.search ?? opts.query } } });
    printList(
      io,
      app.format(cmd),
      items,
      [
        ['NAMESPACE', (f) => f.namespace],
        ['FLOW', (f) => f.id],
        ['ENABLED', (f) => (f.enabled ? 'yes' : 'no')],
        ['UPDATED', (f) => when(f.updated_at)],
        ['DESCRIPTION', (f) => (f.description ?? '').split('\n')[0].slice(0, 60)],
      ],
      'no flows',
    );
  });

  withOutput(flow.command('get').description('Show a flow').argument('<ns/flow>').option('--source', 'print only the YAML source')).action(
    async (ref: string, opts: { source?: boolean }, cmd: Command) => {
      const { namespace, flowId } = splitFlowRef(ref);
      const f = await app.client(cmd).get('/api/v1/flows/{namespace}/{flowId}', { params: { path: { namespace, flowId } } });
      if (opts.source) return void io.stdout.write(f.source ?? '');
      // The server parsed and validated `definition` against the flow schema: only its task and trigger ids are read here.
      const definition = f.definition as Partial<Pick<FlowDefinition, 'tasks' | 'triggers'>> | undefined;
      printRecord(io, app.format(cmd), f, [
        ['namespace', (x) => x.namespace],
        ['id', (x) => x.id],
        ['path', (x) => x.path],
        ['enabled', (x) => x.enabled],
        ['revision', (x) => x.revision_id],
        ['updated', (x) => when(x.updated_at)],
        ['description', (x) => x.description],
        ['tasks', () => (definition?.tasks ?? []).map((t) => t.id).join(', ')],
        ['triggers', (x) => (x.triggers ?? definition?.triggers ?? []).map((t) => `${t.id} (${t.type})`).join(', ')],
      ]);
    },
  );

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    flow
      .command(name)
      .description(enabled ? 'Enable a flow' : 'Disable a flow: triggers get 409 flow_disabled, schedules and webhooks stop')
      .argument('<ns/flow>')
      .action(async (ref: string, _o, cmd: Command) => {
        const { namespace, flowId } = splitFlowRef(ref);
        await app.client(cmd).patch('/api/v1/flows/{namespace}/{flowId}', { params: { path: { namespace, flowId } }, body: { enabled } });
        io.stderr.write(`${ref} ${enabled ? 'enabled' : 'disabled'}\n`);
      });
  }

  withOutput(flow.command('revisions').description('List the revisions of a flow, newest first').argument('<ns/flow>')).action(async (ref: string, _o, cmd: Command) => {
    const { namespace, flowId } = splitFlowRef(ref);
    const items = await app.client(cmd).all('/api/v1/flows/{namespace}/{flowId}/revisions', { params: { path: { namespace, flowId } } });
    printList(
      io,
      app.format(cmd),
      items,
      [
        ['REVISION', (r) => r.id],
        ['CREATED', (r) => when(r.created_at)],
        ['NS VERSION', (r) => r.namespace_version],
      ],
      'no revisions',
    );
  });

  withOutput(
    flow
      .command('diff')
      .description('Show the diff between two revisions of a flow')
      .argument('<ns/flow>')
      .requiredOption('--from <revision>', 'older revision id')
      .option('--to <revision>', 'newer revision id (default the current one)'),
  ).action(async (ref: string, opts: { from: string; to?: string }, cmd: Command) => {
    const { namespace, flowId } = splitFlowRef(ref);
    const d = await app.client(cmd).get('/api/v1/flows/{namespace}/{flowId}/diff', { params: { path: { namespace, flowId }, query: { from: opts.from, to: opts.to } } });
    const format = app.format(cmd);
    if (format !== 'table') return void io.stdout.write(serialize(d, format));
    io.stdout.write(d.diff ?? (d.too_large ? '(the revisions are too large or too different for a line diff)\n' : '(no differences)\n'));
  });

  registerFlowBackfill(flow, app);
}
