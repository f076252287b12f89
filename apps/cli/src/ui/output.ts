// Output conventions: human tables by default, `-o json` and `-o yaml` for
// scripts (the API objects as they came), colours only when the stream is a
// terminal and NO_COLOR is not set.
import Table from 'cli-table3';
import * as yaml from 'js-yaml';
import pc from 'picocolors';
import { CliError, type CommandIo } from '../io.js';

export type Format = 'table' | 'json' | 'yaml';
export const FORMATS: readonly Format[] = ['table', 'json', 'yaml'];

export type Colors = ReturnType<typeof pc.createColors>;

/** Colours for a stream: only on a terminal, never when NO_COLOR is set to anything non-empty. */
export function colorsFor(io: CommandIo, stream: 'stdout' | 'stderr' = 'stdout'): Colors {
  const tty = stream === 'stdout' ? io.stdoutIsTTY : io.stderrIsTTY;
  const enabled = Boolean(tty) && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
  return pc.createColors(enabled);
}

export function parseFormat(value: string | undefined): Format {
  const f = (value ?? 'table') as Format;
  if (!FORMATS.includes(f)) throw new CliError(`--output must be one of ${FORMATS.join(', ')}, got "${value}"`, 2);
  return f;
}

/** One column of a table: its header and how to show a row's cell. */
export type Column<T> = [header: string, cell: (row: T) => unknown];

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v) ?? '';
}

export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], colors: Colors): string {
  const table = new Table({
    head: columns.map(([h]) => colors.bold(h)),
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
  });
  for (const r of rows) table.push(columns.map(([, cell]) => cellText(cell(r))));
  return `${table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')}\n`;
}

export function serialize(data: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? `${JSON.stringify(data, null, 2)}\n` : yaml.dump(data, { lineWidth: 120, noRefs: true });
}

/** Prints a list: a table, or the items as JSON/YAML. */
export function printList<T>(io: CommandIo, format: Format, rows: readonly T[], columns: readonly Column<T>[], empty = 'nothing to show'): void {
  if (format !== 'table') return void io.stdout.write(serialize(rows, format));
  if (!rows.length) return void io.stderr.write(`${empty}\n`);
  io.stdout.write(renderTable(rows, columns, colorsFor(io)));
}

/** Prints one object: `key: value` lines, or the whole object as JSON/YAML. */
export function printRecord<T extends object>(io: CommandIo, format: Format, obj: T, fields: readonly Column<T>[]): void {
  if (format !== 'table') return void io.stdout.write(serialize(obj, format));
  const c = colorsFor(io);
  const width = Math.max(...fields.map(([h]) => h.length));
  io.stdout.write(fields.map(([h, cell]) => `${c.bold(`${h}:`.padEnd(width + 1))} ${cellText(cell(obj))}`).join('\n') + '\n');
}

/** Colour of a state name, the same in every view. */
export function stateColor(c: Colors, state: string): string {
  switch (state) {
    case 'SUCCESS':
      return c.green(state);
    case 'FAILED':
    case 'TIMED_OUT':
      return c.red(state);
    case 'CANCELLED':
    case 'CANCELLING':
    case 'SKIPPED':
      return c.yellow(state);
    case 'RUNNING':
      return c.cyan(state);
    default:
      return c.dim(state);
  }
}

/** `2026-11-25T11:32:27.123Z` as `2026-11-25 11:32:27`; empty for null. */
export function when(v: unknown): string {
  if (typeof v !== 'string') return '';
  return v.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
}

/** Milliseconds as `1.2s`, `3m04s`. */
export function duration(ms: unknown): string {
  if (typeof ms !== 'number') return '';
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}
