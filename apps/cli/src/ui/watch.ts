// Following an execution to its end: the event stream (state of the execution
// and its task runs) and the log stream, both resumed with Last-Event-ID when
// the connection drops. On a terminal, a compact task view is redrawn in place
// at the bottom of standard error with the log lines scrolling above it;
// elsewhere each state change is one line on standard error, logs on stdout.
import { lostStream, type ApiClient } from '../api/client.js';
import type { Execution, LogLine, TaskRun } from '../api/types.js';
import type { CommandIo } from '../io.js';
import { isItem, itemCountsText } from './fan-out.js';
import { colorsFor, duration, stateColor, type Colors } from './output.js';

/** Exit codes of `svc run --watch` and the other watching commands, by end state. 1 is an error of the CLI, 2 a usage error. */
export const END_STATE_EXIT_CODES: Readonly<Record<string, number>> = Object.freeze({
  SUCCESS: 0,
  FAILED: 3,
  TIMED_OUT: 4,
  CANCELLED: 5,
  SKIPPED: 6,
});

export function exitCodeFor(state: string): number {
  return END_STATE_EXIT_CODES[state] ?? 1;
}

export type { Execution, TaskRun };

const ENDED = new Set(['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED']);
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The latest attempt of each task, in first-seen order; a fan-out's items are counted on their task's line, not shown. */
function latestRuns(e: Execution): TaskRun[] {
  const by = new Map<string, TaskRun>();
  for (const r of e.task_runs ?? []) {
    if (isItem(r)) continue;
    const prev = by.get(r.task_key);
    if (!prev || r.attempt >= prev.attempt) by.set(r.task_key, r);
  }
  return [...by.values()];
}

function icon(c: Colors, state: string, tick: number): string {
  switch (state) {
    case 'SUCCESS':
      return c.green('✓');
    case 'FAILED':
    case 'TIMED_OUT':
      return c.red('✗');
    case 'CANCELLED':
    case 'SKIPPED':
      return c.yellow('-');
    case 'RUNNING':
      return c.cyan(SPINNER[tick % SPINNER.length]);
    default:
      return c.dim('·');
  }
}

/** The live view: the lines of the block at the bottom of the terminal. */
export function renderTaskView(e: Execution, c: Colors, now: number, tick: number, columns: number): string[] {
  const started = e.started_at ? Date.parse(e.started_at) : Date.parse(e.created_at);
  const elapsed = e.duration_ms ?? Math.max(0, now - started);
  const runs = latestRuns(e);
  const done = runs.filter((r) => ENDED.has(r.state)).length;
  const lines = [`${c.bold(`${e.namespace}/${e.flow_id ?? '(file)'}`)} ${c.dim(e.id)}  ${stateColor(c, e.state)}  ${done}/${runs.length} tasks  ${duration(elapsed)}`];
  const width = Math.max(...runs.map((r) => r.task_key.length), 4);
  for (const r of runs) {
    const t = r.duration_ms ?? (r.started_at ? Math.max(0, (r.ended_at ? Date.parse(r.ended_at) : now) - Date.parse(r.started_at)) : undefined);
    const extra = [itemCountsText(r), r.attempt > 1 ? `attempt ${r.attempt}` : '', r.reason ? r.reason : ''].filter(Boolean).join(', ');
    const line = `  ${icon(c, r.state, tick)} ${r.task_key.padEnd(width)}  ${stateColor(c, r.state.padEnd(9))} ${t !== undefined ? duration(t).padStart(7) : ''.padStart(7)}${extra ? c.dim(`  ${extra}`) : ''}`;
    lines.push(line);
  }
  // Keep each line on one terminal row, or the redraw would leave debris.
  return lines.map((l) => truncateVisible(l, columns - 1));
}

function truncateVisible(s: string, max: number): string {
  let visible = 0;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\x1b') {
      const m = /^\x1b\[[0-9;]*m/.exec(s.slice(i));
      if (m) {
        out += m[0];
        i += m[0].length - 1;
        continue;
      }
    }
    if (visible >= max) break;
    out += s[i];
    visible++;
  }
  return out;
}

export interface WatchOptions {
  /** Follow the log stream too (default true). */
  logs?: boolean;
  /** Only the logs of this task. */
  task?: string;
  /** Where log lines go (default stdout; stderr when stdout carries `-o json|yaml` data). */
  logsTo?: 'stdout' | 'stderr';
}

/** Follows an execution until it ends; returns its final state. */
export async function watchExecution(io: CommandIo, api: ApiClient, id: string, opts: WatchOptions = {}): Promise<Execution> {
  const live = Boolean(io.stderrIsTTY);
  const c = colorsFor(io, 'stderr');
  const out = colorsFor(io, 'stdout');
  const columns = io.columns ?? 80;
  let exec: Execution | undefined;
  let drawn = 0;
  let tick = 0;
  const seen = new Map<string, string>();

  const clear = () => {
    if (live && drawn) io.stderr.write(`\x1b[${drawn}A\x1b[J`);
    drawn = 0;
  };
  const draw = () => {
    if (!live || !exec) return;
    const lines = renderTaskView(exec, c, Date.now(), tick, columns);
    clear();
    io.stderr.write(`${lines.join('\n')}\n`);
    drawn = lines.length;
  };
  const say = (line: string) => {
    clear();
    io.stderr.write(`${line}\n`);
    draw();
  };

  const onExecution = (e: Execution) => {
    exec = e;
    if (live) return draw();
    // Without a terminal: one line per change of the execution or of a task run.
    const changes: [string, string][] = [[`execution`, e.state]];
    // An item's line names it task[i]; only its end is said, so a 1,000-item fan-out is not 3,000 lines.
    for (const r of e.task_runs ?? []) {
      if (isItem(r) && !ENDED.has(r.state)) continue;
      changes.push([`${r.task_key}${isItem(r) ? `[${r.item_index}]` : ''}#${r.attempt}`, `${r.state}${r.reason ? ` (${r.reason})` : ''}`]);
    }
    for (const [k, v] of changes) {
      if (seen.get(k) === v) continue;
      seen.set(k, v);
      io.stderr.write(`${k === 'execution' ? `execution ${e.id}` : `task ${k.replace('#', ' attempt ')}`}: ${v}\n`);
    }
  };

  const abort = new AbortController();
  const timer = live ? setInterval(() => (tick++, draw()), 120) : undefined;
  const reconnect = (what: string) => (attempt: number, lastId: string | undefined, cause: unknown) =>
    say(c.dim(`(${what} stream dropped: ${(cause as Error).message}; reconnecting${lastId ? ` from event ${lastId}` : ''}, try ${attempt})`));
  try {
    const events = api.stream(
      '/api/v1/executions/{executionId}/events',
      { params: { path: { executionId: id } } },
      {
        lostStream,
        onEvent: (ev) => {
          if (ev.event === 'execution') onExecution(JSON.parse(ev.data) as Execution);
        },
        onReconnect: reconnect('event'),
        signal: abort.signal,
      },
    );
    const logs =
      opts.logs === false
        ? Promise.resolve()
        : api.stream(
            '/api/v1/executions/{executionId}/logs/stream',
            { params: { path: { executionId: id }, ...(opts.task ? { query: { task: opts.task } } : {}) } },
            {
              lostStream,
              onEvent: (ev) => {
                if (ev.event !== 'line') return;
                const l = JSON.parse(ev.data) as LogLine;
                clear();
                (opts.logsTo === 'stderr' ? io.stderr : io.stdout).write(`${out.dim(`[${l.task_key}]`)} ${l.text}\n`);
                draw();
              },
              onReconnect: reconnect('log'),
              signal: abort.signal,
            },
          );
    await events;
    // The log stream ends with the execution too; a short grace for its last lines.
    await Promise.race([logs, new Promise((r) => setTimeout(r, 10_000).unref())]);
  } finally {
    abort.abort();
    if (timer) clearInterval(timer);
  }
  exec = await api.get('/api/v1/executions/{executionId}', { params: { path: { executionId: id } } });
  draw();
  drawn = 0;
  if (!live) onExecution(exec);
  return exec;
}

/** The closing line of a watch, and the error of the first failing task. */
export function endSummary(io: CommandIo, e: Execution): void {
  const c = colorsFor(io, 'stderr');
  const took = e.duration_ms !== null && e.duration_ms !== undefined ? ` in ${duration(e.duration_ms)}` : '';
  io.stderr.write(`execution ${e.id} ended ${stateColor(c, e.state)}${took} (exit code ${exitCodeFor(e.state)})\n`);
  if (e.error) io.stderr.write(`${c.red('error:')} ${e.error}\n`);
}
