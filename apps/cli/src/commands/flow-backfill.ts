// svc flow backfill: run a flow's schedule trigger over a past
// range (createBackfill), preview it with --dry-run, and follow it with
// status, list, pause, resume and cancel. The fire times come from the
// server (the scheduler's time zone and daylight-saving rules); the preview
// prints each in UTC and in the schedule's zone.
import type { Command } from 'commander';
import type { components } from '@svc/api-spec/openapi-types';
import { splitFlowRef, withOutput, type App } from '../app.js';
import { CliError } from '../io.js';
import { printList, printRecord, serialize, when } from '../ui/output.js';

type Backfill = components['schemas']['Backfill'];
type BackfillPreview = components['schemas']['BackfillPreview'];

/** `2026-03-29 03:00 +02:00`: a UTC instant as the schedule's wall clock reads it. */
export function localTime(iso: string, timeZone: string): string {
  const d = new Date(iso);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(d)
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const off = Math.round((wall - Math.floor(d.getTime() / 1000) * 1000) / 60_000);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** A date-time the server takes: an RFC 3339 value as is, a bare date as its UTC midnight. */
function dateArg(v: string, name: string): string {
  const s = /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v;
  if (Number.isNaN(Date.parse(s))) throw new CliError(`--${name}: expected a date (2026-03-01) or an RFC 3339 date-time, got "${v}"`, 2);
  return new Date(s).toISOString();
}

const progress = (b: Backfill) => {
  const p = b.progress;
  return `${p.done} done, ${p.running} running, ${p.failed} failed, ${p.left} left${p.cancelled ? `, ${p.cancelled} cancelled` : ''} (of ${p.total})`;
};

const FIELDS: [string, (b: Backfill) => unknown][] = [
  ['id', (b) => b.id],
  ['flow', (b) => `${b.namespace}/${b.flow_id}`],
  ['trigger', (b) => `${b.trigger_id} (${b.cron}, ${b.timezone})`],
  ['range', (b) => `${when(b.from)} .. ${when(b.to)} UTC`],
  ['state', (b) => b.state],
  ['progress', progress],
  ['in flight max', (b) => b.max_in_flight],
  ['label', (b) => b.label],
  ['created', (b) => `${when(b.created_at)} by ${b.created_by}`],
];

export function registerFlowBackfill(flow: Command, app: App): void {
  const { io } = app;
  // `-o` after a subcommand may be taken by `backfill`'s own -o: either one says the format.
  const formatOf = (cmd: Command) => {
    const own = app.format(cmd);
    return own === 'table' && cmd.parent ? app.format(cmd.parent) : own;
  };
  const backfill = withOutput(
    flow
      .command('backfill')
      .description("Run a flow's schedule trigger over a past range (see also: backfill status|list|pause|resume|cancel)")
      .argument('<ns/flow>')
      .option('--from <date>', 'start of the range, included (2026-03-01 or an RFC 3339 date-time); required')
      .option('--to <date>', 'end of the range, included; required')
      .option('--trigger <id>', 'the schedule trigger (needed when the flow has several)')
      .option('--max-in-flight <n>', 'executions of the backfill not ended at a time, at most', (v) => Number(v))
      .option('--dry-run', 'print the fire times it would create; create nothing'),
  )
    .addHelpText(
      'after',
      '\nA dry run changes nothing anywhere: the service computes the fire times the backfill would create\n' +
        '(createBackfill with dry_run, which stores nothing), and the CLI prints them and writes no file.\n',
    )
    .action(async (ref: string, opts: { from?: string; to?: string; trigger?: string; maxInFlight?: number; dryRun?: boolean; output?: string }, cmd: Command) => {
      const { namespace, flowId } = splitFlowRef(ref);
      // Not requiredOption: commander would ask the subcommands (status, pause...) for them too.
      if (!opts.from || !opts.to) throw new CliError('svc flow backfill NS/FLOW needs --from and --to', 2);
      const body = {
        from: dateArg(opts.from, 'from'),
        to: dateArg(opts.to, 'to'),
        ...(opts.trigger ? { trigger_id: opts.trigger } : {}),
        ...(opts.maxInFlight !== undefined ? { max_in_flight: opts.maxInFlight } : {}),
        ...(opts.dryRun ? { dry_run: true } : {}),
      };
      const answer = await app.client(cmd).post('/api/v1/flows/{namespace}/{flowId}/backfills', { params: { path: { namespace, flowId } }, body });
      const format = app.format(cmd);
      if (opts.dryRun) {
        const p = answer as BackfillPreview;
        if (format !== 'table') return void io.stdout.write(serialize(p, format));
        io.stdout.write(`${p.total} fire time(s) of ${p.trigger_id} (${p.cron}, ${p.timezone}); dry run, nothing created\n`);
        for (const t of p.fire_times) io.stdout.write(`${t}  ${localTime(t, p.timezone)}\n`);
        if (p.total > p.fire_times.length) io.stdout.write(`... and ${p.total - p.fire_times.length} more\n`);
        return;
      }
      const b = answer as Backfill;
      printRecord(io, format, b, FIELDS);
      if (format === 'table') io.stderr.write(`follow it: svc flow backfill status ${b.id}; its executions: svc executions list --label ${b.label}\n`);
    });

  withOutput(backfill.command('status').description('Show a backfill and its progress').argument('<id>')).action(async (id: string, _o, cmd: Command) => {
    const b = await app.client(cmd).get('/api/v1/backfills/{backfillId}', { params: { path: { backfillId: id } } });
    printRecord(io, formatOf(cmd), b, FIELDS);
  });

  withOutput(backfill.command('list').description('List the backfills of a flow, newest first').argument('<ns/flow>')).action(async (ref: string, _o, cmd: Command) => {
    const { namespace, flowId } = splitFlowRef(ref);
    const items = await app.client(cmd).all('/api/v1/flows/{namespace}/{flowId}/backfills', { params: { path: { namespace, flowId } } });
    printList(
      io,
      formatOf(cmd),
      items,
      [
        ['ID', (b) => b.id],
        ['TRIGGER', (b) => b.trigger_id],
        ['FROM', (b) => when(b.from)],
        ['TO', (b) => when(b.to)],
        ['STATE', (b) => b.state],
        ['PROGRESS', progress],
      ],
      'no backfills',
    );
  });

  for (const [name, what] of [
    ['pause', 'Pause a backfill: no new execution until resumed'],
    ['resume', 'Resume a paused backfill'],
    ['cancel', 'Cancel a backfill: its fire times left are dropped, its executions in flight cancelled'],
  ] as const) {
    withOutput(backfill.command(name).description(what).argument('<id>')).action(async (id: string, _o, cmd: Command) => {
      const init = { params: { path: { backfillId: id } } };
      const api = app.client(cmd);
      const b =
        name === 'pause'
          ? await api.post('/api/v1/backfills/{backfillId}/pause', init)
          : name === 'resume'
            ? await api.post('/api/v1/backfills/{backfillId}/resume', init)
            : await api.post('/api/v1/backfills/{backfillId}/cancel', init);
      const format = formatOf(cmd);
      if (format !== 'table') return void io.stdout.write(serialize(b, format));
      io.stderr.write(`backfill ${b.id} ${b.state}: ${progress(b)}\n`);
    });
  }
}
