// svc audit export: every audit event the filters select, as NDJSON on
// standard output (GET /api/v1/audit/export, admin), newest first, passed on
// as the server streams it; the count goes to standard error.
import type { Command } from 'commander';
import type { App } from '../app.js';
import { CliError, type CommandIo } from '../io.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `--since`/`--until`: an ISO date or date-time, or a duration ago (`30m`, `24h`, `7d`, `2w`). */
export function timeArg(value: string, flag: string, now: Date): string {
  const ago = /^(\d+)([smhdw])$/.exec(value.trim());
  if (ago) return new Date(now.getTime() - Number(ago[1]) * UNIT_MS[ago[2]]).toISOString();
  const d = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(d.getTime())) {
    throw new CliError(`${flag} takes an ISO date or date-time (2026-01-31, 2026-01-31T12:00:00Z) or a duration ago (30m, 24h, 7d); got "${value}"`, 2);
  }
  return d.toISOString();
}

export interface ExportOptions {
  since?: string;
  until?: string;
  action?: string;
  actor?: string;
  resource?: string;
  namespace?: string;
}

/** The exportAuditEvents query of the options. */
export function exportQuery(o: ExportOptions, now: Date): Record<string, string> {
  const q: Record<string, string> = {};
  if (o.since !== undefined) q.from = timeArg(o.since, '--since', now);
  if (o.until !== undefined) q.to = timeArg(o.until, '--until', now);
  for (const k of ['action', 'actor', 'resource', 'namespace'] as const) if (o[k] !== undefined) q[k] = o[k];
  return q;
}

/** Writes to standard output, waiting for it to drain when its buffer is full (a slow pipe). */
async function writeOut(io: CommandIo, text: string): Promise<void> {
  const out = io.stdout as { write(chunk: string): unknown; once?: (event: 'drain', fn: () => void) => unknown };
  if (out.write(text) === false && out.once) await new Promise<void>((resolve) => out.once!('drain', resolve));
}

export function registerAudit(program: Command, app: App): void {
  const { io } = app;
  const audit = program.command('audit').description('The audit log (admin)');
  audit
    .command('export')
    .description('Every audit event the filters select, newest first, as NDJSON (one JSON object a line) on standard output')
    .option('--since <time>', 'only events at or after this time: ISO date or date-time, or a duration ago (24h, 7d)')
    .option('--until <time>', 'only events before this time: ISO date or date-time, or a duration ago')
    .option('--action <action>', 'only this action; a trailing * matches a prefix (namespace.*)')
    .option('--actor <user>', 'only events of this user (id or email)')
    .option('--resource <resource>', 'only events on this resource: a type (execution) or type:id')
    .option('--namespace <ns>', 'only events in this namespace or one below it')
    .action(async (o: ExportOptions, cmd: Command) => {
      const query = exportQuery(o, new Date());
      const body = await app.client(cmd).get('/api/v1/audit/export', { params: { query }, parseAs: 'stream', headers: { accept: 'application/x-ndjson' } });
      let events = 0;
      const decoder = new TextDecoder();
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) events++;
        await writeOut(io, text);
      }
      const rest = decoder.decode();
      if (rest) await writeOut(io, rest);
      io.stderr.write(`${events} audit event${events === 1 ? '' : 's'} exported\n`);
    });
}
