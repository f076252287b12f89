// A timeline of every task run and attempt: the queued time faint, the run
// time in the state's colour, running bars growing to now.
import type { TaskRun } from '../types';
import { fmtDuration } from '../ui';

export function Gantt({ runs, now }: { runs: TaskRun[]; now: number }) {
  const timed = runs.filter((r) => r.queued_at || r.started_at);
  if (!timed.length) return <p className="muted">No task run has started yet.</p>;
  const t = (s: string | null | undefined) => (s ? Date.parse(s) : NaN);
  const start = Math.min(...timed.map((r) => t(r.queued_at ?? r.started_at)));
  const end = Math.max(...timed.map((r) => (r.ended_at ? t(r.ended_at) : now)), start + 1);
  const pct = (x: number) => `${(((x - start) / (end - start)) * 100).toFixed(3)}%`;
  const sorted = [...timed].sort((a, b) => t(a.queued_at ?? a.started_at) - t(b.queued_at ?? b.started_at));
  return (
    <div className="gantt" role="table" aria-label="Timeline of task runs">
      <div role="rowgroup">
        {sorted.map((r) => {
          const q = t(r.queued_at ?? r.started_at);
          const s = r.started_at ? t(r.started_at) : r.ended_at ? t(r.ended_at) : now;
          const e = r.ended_at ? t(r.ended_at) : now;
          return (
            <div role="row" className="gantt-row" key={r.id}>
              <div role="rowheader" className="gantt-label">
                {r.task_key}
                {r.attempt > 1 ? ` #${r.attempt}` : ''}
              </div>
              <div role="cell" className="gantt-track" title={`${r.task_key} attempt ${r.attempt}: ${r.state}, ${fmtDuration(r.duration_ms ?? (r.started_at ? e - s : null))}`}>
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
