// A timeline of every task run and attempt: the queued time faint, the run
// time in the state's colour, running bars growing to now. The items of a
// fanned-out task (for_each) are bars of their own, grouped under the task's
// row and labelled `task[3]`; past ITEM_ROWS items of one task the rest are
// counted in one row, so a 10,000-item fan-out does not put 10,000 rows in
// the page.
import type { TaskRun } from '../types';
import { fmtDuration } from '../ui';
import { isItem, itemName } from './task-runs';

/** At most this many item bars per task. */
export const ITEM_ROWS = 300;

type Row = { run: TaskRun } | { more: number; task: string };

/** The rows in order: the task runs by start, each task's items after its last own run, by index then attempt. */
export function ganttRows(timed: TaskRun[]): Row[] {
  const t = (r: TaskRun) => Date.parse(r.queued_at ?? r.started_at ?? '');
  const own = timed.filter((r) => !isItem(r)).sort((a, b) => t(a) - t(b));
  const items = new Map<string, TaskRun[]>();
  for (const r of timed) if (isItem(r)) items.set(r.task_key, [...(items.get(r.task_key) ?? []), r]);
  for (const list of items.values()) list.sort((a, b) => a.item_index! - b.item_index! || a.attempt - b.attempt);
  const lastOwn = new Map(own.map((r) => [r.task_key, r]));
  const rows: Row[] = [];
  const pushItems = (task: string) => {
    const list = items.get(task) ?? [];
    items.delete(task);
    for (const run of list.slice(0, ITEM_ROWS)) rows.push({ run });
    if (list.length > ITEM_ROWS) rows.push({ more: list.length - ITEM_ROWS, task });
  };
  for (const run of own) {
    rows.push({ run });
    if (lastOwn.get(run.task_key) === run) pushItems(run.task_key);
  }
  // Items whose parent run has no time yet.
  for (const task of [...items.keys()]) pushItems(task);
  return rows;
}

export function Gantt({ runs, now }: { runs: TaskRun[]; now: number }) {
  const timed = runs.filter((r) => r.queued_at || r.started_at);
  if (!timed.length) return <p className="muted">No task run has started yet.</p>;
  const t = (s: string | null | undefined) => (s ? Date.parse(s) : NaN);
  const start = Math.min(...timed.map((r) => t(r.queued_at ?? r.started_at)));
  const end = Math.max(...timed.map((r) => (r.ended_at ? t(r.ended_at) : now)), start + 1);
  const pct = (x: number) => `${(((x - start) / (end - start)) * 100).toFixed(3)}%`;
  return (
    <div className="gantt" role="table" aria-label="Timeline of task runs">
      <div role="rowgroup">
        {ganttRows(timed).map((row) => {
          if (!('run' in row))
            return (
              <div role="row" className="gantt-row gantt-item" key={`${row.task}-more`}>
                <div role="rowheader" className="gantt-label">
                  {row.task}[…]
                </div>
                <div role="cell" className="muted small">
                  {row.more.toLocaleString()} more items (the task&apos;s items list shows them all)
                </div>
                <div role="cell" />
              </div>
            );
          const r = row.run;
          const q = t(r.queued_at ?? r.started_at);
          const s = r.started_at ? t(r.started_at) : r.ended_at ? t(r.ended_at) : now;
          const e = r.ended_at ? t(r.ended_at) : now;
          const name = itemName(r);
          return (
            <div role="row" className={`gantt-row${isItem(r) ? ' gantt-item' : ''}`} key={r.id} data-item={isItem(r) ? name : undefined}>
              <div role="rowheader" className="gantt-label">
                {name}
                {r.attempt > 1 ? ` #${r.attempt}` : ''}
              </div>
              <div role="cell" className="gantt-track" title={`${name} attempt ${r.attempt}: ${r.state}, ${fmtDuration(r.duration_ms ?? (r.started_at ? e - s : null))}`}>
                <span className="gantt-queued" style={{ left: pct(q), width: `calc(${pct(s)} - ${pct(q)})` }} />
                <span className={`gantt-bar state-${r.state.toLowerCase()}`} style={{ left: pct(s), width: `max(2px, calc(${pct(e)} - ${pct(s)}))` }} />
              </div>
              <div role="cell" className="gantt-dur">
                {r.reused_from_id ? 'reused' : fmtDuration(r.duration_ms ?? (r.started_at ? e - s : null))}
              </div>
            </div>
          );
        })}
      </div>
    </div>
  );
}
