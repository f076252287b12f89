// The items of a fanned-out task (for_each) on the execution page: its live
// counter, a table of the items (index, value, state of the latest attempt,
// attempt, duration) that a state filter narrows, and the item selected:
// its value, error, outputs and attempts. Selecting an item narrows the log
// view to its task run (Execution.tsx passes it to Logs). Past ITEMS_SHOWN
// rows the table says how many more there are, so a 10,000-item fan-out does
// not put 10,000 rows in the page; the state filter reaches the others.
import { useState } from 'react';
import { Link } from '../router';
import type { TaskRun, TaskRunState } from '../types';
import { Button, Json, StateBadge, fmtDuration, fmtTime } from '../ui';
import { itemCounter, itemName, itemRuns, latestItems, shortItem } from './task-runs';

/** At most this many rows in the items table. */
export const ITEMS_SHOWN = 200;

const FILTERS: readonly (TaskRunState | '')[] = ['', 'FAILED', 'TIMED_OUT', 'RUNNING', 'QUEUED', 'PENDING', 'SUCCESS', 'CANCELLED', 'SKIPPED'];

export function FanOutItems({
  task,
  parent,
  runs,
  forEach,
  selected,
  onSelect,
  now,
}: {
  task: string;
  /** The task's own (latest) run: its item counts. */
  parent?: TaskRun;
  runs: TaskRun[];
  /** The definition says the task has for_each (its list may not be rendered yet). */
  forEach: boolean;
  /** The task run id of the item selected. */
  selected?: string;
  onSelect: (taskRun: string | undefined) => void;
  now: number;
}) {
  const [filter, setFilter] = useState<TaskRunState | ''>('');
  const items = latestItems(runs, task);
  const shown = filter ? items.filter((r) => r.state === filter) : items;
  const chosen = selected ? runs.find((r) => r.id === selected) : undefined;
  const dur = (r: TaskRun) => r.duration_ms ?? (r.started_at ? (r.ended_at ? Date.parse(r.ended_at) : now) - Date.parse(r.started_at) : null);
  return (
    <div className="fan-items" data-testid="fan-out-items">
      <div className="row wrap">
        <strong data-testid="items-summary">{itemCounter(parent, forEach)}</strong>
        <label>
          State{' '}
          <select value={filter} onChange={(e) => setFilter(e.target.value as TaskRunState | '')} aria-label={`Show items of ${task} in state`}>
            {FILTERS.map((f) => (
              <option key={f} value={f}>
                {f || 'every state'}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!items.length ? (
        <p className="muted">{parent?.item_counts ? 'The list is empty: no items.' : 'The items are not listed yet.'}</p>
      ) : (
        <div className="fan-items-list">
          <table className="fan-items-table" aria-label={`Items of ${task}`}>
            <thead>
              <tr>
                <th>#</th>
                <th>Item</th>
                <th>State</th>
                <th>Attempt</th>
                <th>Duration</th>
              </tr>
            </thead>
            <tbody>
              {shown.slice(0, ITEMS_SHOWN).map((r) => {
                const on = chosen?.task_key === task && chosen.item_index === r.item_index;
                return (
                  <tr key={r.id} aria-current={on || undefined} data-item-index={r.item_index}>
                    <td>
                      <button
                        type="button"
                        className="linkish"
                        aria-pressed={on}
                        aria-label={`Item ${r.item_index} of ${task}: ${r.state}`}
                        onClick={() => onSelect(on && chosen?.id === r.id ? undefined : r.id)}
                      >
                        {itemName(r)}
                      </button>
                    </td>
                    <td>
                      <code title={JSON.stringify(r.item)}>{shortItem(r.item)}</code>
                    </td>
                    <td>
                      <StateBadge state={r.state} />
                      {r.reused_from_id ? <span className="muted small"> reused</span> : null}
                    </td>
                    <td>{r.attempt}</td>
                    <td>{fmtDuration(dur(r))}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {shown.length > ITEMS_SHOWN && (
            <p className="muted small">
              Showing the first {ITEMS_SHOWN} of {shown.length.toLocaleString()} items; choose a state to find the others.
            </p>
          )}
          {filter && !shown.length && <p className="muted">No item is {filter}.</p>}
        </div>
      )}
      {chosen && chosen.task_key === task && <ItemDetail run={chosen} all={itemRuns(runs, task).filter((r) => r.item_index === chosen.item_index)} onSelect={onSelect} dur={dur} />}
    </div>
  );
}

function ItemDetail({ run, all, onSelect, dur }: { run: TaskRun; all: TaskRun[]; onSelect: (id: string | undefined) => void; dur: (r: TaskRun) => number | null }) {
  const name = itemName(run);
  return (
    <section className="card item-detail" aria-label={`Item ${name}`} data-testid="item-detail">
      <header className="card-head">
        <h3>
          {name} <StateBadge state={run.state} />
        </h3>
        <Button onClick={() => onSelect(undefined)}>Show every item&apos;s logs</Button>
      </header>
      <p className="muted">
        attempt {run.attempt} · started {fmtTime(run.started_at)} · ended {fmtTime(run.ended_at)} · {fmtDuration(dur(run))}
        {run.reason ? ` · ${run.reason}` : ''}
        {run.child_execution_id && (
          <>
            {' '}
            · child <Link to={`/executions/${run.child_execution_id}`}>{run.child_execution_id}</Link>
          </>
        )}
      </p>
      {all.length > 1 && (
        <div className="row wrap" role="group" aria-label={`Attempts of ${name}`}>
          {all.map((a) => (
            <Button key={a.id} aria-pressed={a.id === run.id} onClick={() => onSelect(a.id)}>
              attempt {a.attempt}: {a.state}
            </Button>
          ))}
        </div>
      )}
      {run.error && (
        <p className="error" role="note" data-testid="item-error">
          {run.error}
        </p>
      )}
      <h4>Item</h4>
      <Json value={run.item} />
      <h4>Outputs</h4>
      {run.outputs && Object.keys(run.outputs).length ? <Json value={run.outputs} /> : <p className="muted">None.</p>}
      <p className="muted small">The Logs tab below shows only this item&apos;s lines.</p>
    </section>
  );
}
