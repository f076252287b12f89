// svc executions bulk cancel|rerun|restart: one action on every execution a
// filter selects (bulkExecutions, at most 1,000 at once, only where the caller
// holds the operator role). Without --yes the dry run goes first: the count,
// and the executions whose state refuses the action, then a question on the
// terminal; with no terminal to ask on, it stops there.
import { confirm } from '@inquirer/prompts';
import type { Command } from 'commander';
import { withOutput, type App } from '../app.js';
import { CliError } from '../io.js';
import type { Answer, ExecutionState, RequestBody } from '../api/types.js';
import { colorsFor, renderTable, serialize, stateColor } from '../ui/output.js';
import { timeArg } from './audit.js';
import { collect, keyValues } from './key-values.js';

type BulkAction = RequestBody<'bulkExecutions'>['action'];
type BulkFilter = RequestBody<'bulkExecutions'>['filter'];
type BulkResult = Answer<'bulkExecutions'>;

interface BulkOptions {
  namespace?: string;
  flow?: string;
  state: string[];
  label: string[];
  since?: string;
  until?: string;
  dryRun?: boolean;
  yes?: boolean;
}

const ACTIONS: readonly BulkAction[] = ['cancel', 'rerun', 'restart'];
const DONE: Record<BulkAction, string> = { cancel: 'cancelled', rerun: 'rerun', restart: 'restarted' };
/** The refusals a dry run announces (the state refuses the action): reported, not failures of the command. */
const STATE_REFUSALS = new Set(['execution_ended', 'not_restartable']);

const BULK_HELP = `
Acts only on the executions of the namespaces where you hold the operator role;
at most 1,000 at once (a filter that matches more is refused: narrow it). An
empty filter is refused. Without --yes the dry run's count is shown and you are
asked to confirm; with no terminal to ask on, the command stops there (exit 2).
Exit code 1 when an execution the action was tried on failed for another reason
than its state.

A dry run changes nothing anywhere: the service only counts what the filter
matches and what the action would refuse (--dry-run wins over --yes).

Examples:
  svc executions bulk restart --namespace team.etl --state FAILED --since 24h --dry-run
  svc executions bulk cancel --flow team.etl/nightly --state RUNNING --state QUEUED --yes
`;

/** The request's filter from the options (the server checks the states and refuses an empty filter). */
export function bulkFilter(o: BulkOptions, now: Date): BulkFilter {
  const labels = keyValues(o.label, '--label');
  return {
    ...(o.namespace ? { namespace: o.namespace } : {}),
    ...(o.flow ? { flow_id: o.flow } : {}),
    ...(o.state.length ? { state: o.state.map((s) => s.toUpperCase() as ExecutionState) } : {}),
    ...(Object.keys(labels).length ? { labels } : {}),
    ...(o.since !== undefined ? { from: timeArg(o.since, '--since', now) } : {}),
    ...(o.until !== undefined ? { to: timeArg(o.until, '--until', now) } : {}),
  };
}

/** What the dry run found, in words (standard error), with the refused executions as a table (standard output). */
function describeDryRun(app: App, action: BulkAction, r: BulkResult): void {
  const { io } = app;
  const c = colorsFor(io);
  io.stderr.write(
    `${r.matched} execution(s) match; ${r.eligible} would be ${DONE[action]}` + (r.matched > r.eligible ? `, ${r.matched - r.eligible} refused by their state` : '') + '\n',
  );
  if (r.ineligible?.length) {
    io.stdout.write(
      renderTable(
        r.ineligible,
        [
          ['ID', (x) => x.execution_id],
          ['FLOW', (x) => `${x.namespace}/${x.flow_id ?? '(file)'}`],
          ['STATE', (x) => stateColor(c, x.state)],
          ['REFUSED', (x) => x.reason],
        ],
        c,
      ),
    );
  }
  if (r.matched > r.limit) io.stderr.write(`more than ${r.limit} match: a bulk action takes at most ${r.limit}; narrow the filter (--state, --label, --since, --until)\n`);
}

async function bulk(app: App, cmd: Command, action: BulkAction, o: BulkOptions): Promise<void> {
  const { io } = app;
  const api = app.client(cmd);
  const filter = bulkFilter(o, new Date());
  const format = app.format(cmd);
  if (o.dryRun || !o.yes) {
    const dry = await api.post('/api/v1/executions/bulk', { body: { action, filter, dry_run: true } });
    if (o.dryRun) {
      if (format !== 'table') return void io.stdout.write(serialize(dry, format));
      return describeDryRun(app, action, dry);
    }
    describeDryRun(app, action, dry);
    if (dry.matched > dry.limit) throw new CliError(`nothing ${DONE[action]}: the filter matches ${dry.matched} executions, more than ${dry.limit}`);
    if (dry.eligible === 0) return void io.stderr.write(`nothing to ${action}\n`);
    if (!io.stdinIsTTY) throw new CliError(`a bulk ${action} needs --yes when there is no terminal to confirm on`, 2);
    const ok = await confirm({ message: `${action[0].toUpperCase()}${action.slice(1)} ${dry.eligible} execution(s)?`, default: false }, { output: process.stderr });
    if (!ok) throw new CliError(`nothing ${DONE[action]}`);
  }
  const r = await api.post('/api/v1/executions/bulk', { body: { action, filter } });
  const results = r.results ?? [];
  if (format !== 'table') io.stdout.write(serialize(r, format));
  else if (results.length) {
    const c = colorsFor(io);
    io.stdout.write(
      renderTable(
        results,
        [
          ['ID', (x) => x.execution_id],
          ['RESULT', (x) => (x.ok ? c.green('ok') : c.red(x.error?.code ?? 'failed'))],
          [action === 'cancel' ? 'STATE' : 'NEW EXECUTION', (x) => (x.ok ? (x.new_execution_id ?? (x.state ? stateColor(c, x.state) : '')) : (x.error?.message ?? ''))],
        ],
        c,
      ),
    );
  }
  const done = results.filter((x) => x.ok).length;
  const failed = results.filter((x) => !x.ok && !STATE_REFUSALS.has(x.error?.code ?? ''));
  io.stderr.write(`${DONE[action]} ${done} of ${r.matched} matched execution(s)` + (results.length > done ? `; ${results.length - done} not (see RESULT)` : '') + '\n');
  if (failed.length) app.exitCode = 1;
}

export function registerExecutionsBulk(ex: Command, app: App): void {
  const b = ex.command('bulk').description('Cancel, rerun or restart every execution a filter selects (at most 1,000; operator), with a dry run first');
  for (const action of ACTIONS) {
    withOutput(
      b
        .command(action)
        .description(`${action[0].toUpperCase()}${action.slice(1)} the executions the filter selects (as \`svc executions ${action}\` does one)`)
        .option('-n, --namespace <ns>', 'this namespace and its children')
        .option('-f, --flow <id>', 'this flow id, or NS/FLOW for one namespace’s flow')
        .option('-s, --state <state>', 'in this state (repeatable: any of them)', collect, [])
        .option('-l, --label <key=value>', 'with this label (repeatable: all must match)', collect, [])
        .option('--since <time>', 'created at or after: ISO date or date-time, or a duration ago (24h, 7d)')
        .option('--until <time>', 'created before: ISO date or date-time, or a duration ago')
        .option('--dry-run', 'only count what matches and what the action would refuse; change nothing')
        .option('-y, --yes', 'do not ask for confirmation (and skip the dry run)'),
    )
      .addHelpText('after', BULK_HELP)
      .action((opts: BulkOptions, cmd: Command) => bulk(app, cmd, action, opts));
  }
}
