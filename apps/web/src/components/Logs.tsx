// Logs of an execution in a virtualised list. An execution that had ended
// when the page opened is read in pages of 5,000 lines (getExecutionLogs: two
// requests for 10,000 lines, where the stream would take 40 read rounds); a
// live one comes through the SSE log stream, line by line as it is written.
// The list is virtualised:
// only the rows on screen are in the DOM, so 100,000 lines scroll as smoothly
// as 100. Lines arrive into a plain array and are flushed to React at most once
// an animation frame; filtering (task, search) is one pass over that array per
// change, kept as an index list. A line asked for (`line`: a link to it, from
// a triage's evidence) is scrolled to and marked once it has arrived. An item
// of a fan-out selected on the page (`taskRun`) narrows the view to the lines
// of that one task run; `items` names item runs' lines `task[3]`.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { API, client, withQuery } from '../api';
import type { LogLine } from '../types';
import { ErrorBox } from '../ui';

const ROW = 19;

const PAGE = 5000;

export function Logs({
  executionId,
  ended,
  task,
  tasks,
  onTask,
  line,
  taskRun,
  items,
}: {
  executionId: string;
  ended: boolean;
  task?: string;
  tasks: string[];
  onTask: (t: string | undefined) => void;
  line?: { taskRunId: string; n: number };
  /** Only the lines of this task run (an item of a fan-out). */
  taskRun?: string;
  /** The item index of each item run, by task run id: their lines read `task[3]`. */
  items?: ReadonlyMap<string, number>;
}) {
  const lines = useRef<LogLine[]>([]);
  const [version, setVersion] = useState(0);
  const [status, setStatus] = useState<'connecting' | 'live' | 'ended' | 'reconnecting'>('connecting');
  const [search, setSearch] = useState('');
  const [follow, setFollow] = useState(!line);
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(follow);
  following.current = follow;
  const [pageError, setPageError] = useState<unknown>();
  // Whether the execution had ended when this log view opened decides how lines are read, once.
  const endedAtOpen = useRef(ended);

  useEffect(() => {
    lines.current = [];
    setVersion((v) => v + 1);
    let frame = 0;
    const schedule = () => {
      if (!frame)
        frame = requestAnimationFrame(() => {
          frame = 0;
          setVersion((v) => v + 1);
        });
    };
    if (endedAtOpen.current) {
      let stop = false;
      void (async () => {
        let cursor: string | undefined;
        try {
          do {
            const page = await client.get('/api/v1/executions/{executionId}/logs', { params: { path: { executionId }, query: { limit: PAGE, cursor } } });
            if (stop) return;
            lines.current.push(...page.items);
            schedule();
            cursor = page.next_cursor;
          } while (cursor);
          setStatus('ended');
        } catch (e) {
          setPageError(e);
        }
      })();
      return () => {
        stop = true;
        cancelAnimationFrame(frame);
      };
    }
    const stop = new AbortController();
    client
      .stream(
        '/api/v1/executions/{executionId}/logs/stream',
        { params: { path: { executionId } } },
        {
          signal: stop.signal,
          onEvent: (ev) => {
            if (ev.event !== 'line') return;
            lines.current.push(JSON.parse(ev.data) as LogLine);
            setStatus('live');
            schedule();
          },
          onEnd: () => setStatus('ended'),
          onReconnect: () => setStatus((s) => (s === 'ended' ? s : 'reconnecting')),
        },
      )
      // Refused (the execution is gone, the session ended): said, as a page of an ended one is.
      .catch((e: unknown) => !stop.signal.aborted && setPageError(e));
    return () => {
      stop.abort();
      cancelAnimationFrame(frame);
    };
  }, [executionId]);

  const shown = useMemo(() => {
    const all = lines.current;
    const q = search.toLowerCase();
    if (!task && !q && !taskRun) return null; // every line: no index list needed
    const idx: number[] = [];
    for (let i = 0; i < all.length; i++) {
      const l = all[i];
      if (task && l.task_key !== task) continue;
      if (taskRun && l.task_run_id !== taskRun) continue;
      if (q && !l.text.toLowerCase().includes(q)) continue;
      idx.push(i);
    }
    return idx;
  }, [version, task, search, taskRun]);
  const count = shown ? shown.length : lines.current.length;
  // The row of the line asked for, once it is there (and not filtered out).
  const target = useMemo(() => {
    if (!line) return -1;
    const at = lines.current.findIndex((l) => l.task_run_id === line.taskRunId && l.n === line.n);
    return at < 0 || !shown ? at : shown.indexOf(at);
  }, [version, shown, line?.taskRunId, line?.n]);

  // Following: once lines are in the page (a layout effect, after the
  // virtualiser's own), the view goes to the last line if it was at the
  // bottom of what was there before, through the virtualiser's scrollToEnd
  // (a scrollTop written from outside is undone by its scroll bookkeeping,
  // and scrollToIndex per batch fell behind). It is decided then, not while
  // rendering: React may render a batch before a scroll up and commit it
  // after, and its followOnAppend, read at render, pulled such a view back
  // down (seen under load). Found scrolled up there, before the scroll's
  // own event, following stops. Scrolled up, the rows on screen stay put
  // while lines arrive below them (anchorTo end).
  const virt = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 20, anchorTo: 'end' });
  const heightBefore = useRef(0);
  const followedBefore = useRef(false);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const before = heightBefore.current;
    heightBefore.current = el.scrollHeight;
    // Follow ticked in this very commit: the effect below takes the view down.
    const was = followedBefore.current;
    followedBefore.current = following.current;
    if (!following.current || !was || el.scrollHeight <= before) return;
    if (el.scrollTop + el.clientHeight >= before - ROW) {
      virt.scrollToEnd();
    } else {
      virt.cancelScroll();
      setFollow(false);
    }
  });

  // The user scrolls up: following stops before anything else renders, so a
  // batch of lines already on its way cannot pull the view back down. The
  // wheel listener is not passive, so the browser scrolls only after it ran
  // (React's is passive: the scroll could land first and the next appended
  // line snap the view back). A scroll up by other means (the scroll bar, a
  // touch) stops it as well: the virtualiser itself only ever scrolls down
  // while following.
  // The virtualiser's last scrollToEnd is called off too: it keeps aiming at
  // the end for a few frames, and lines arriving before it saw the user's
  // scroll would send the view back down.
  const stopFollowing = () => {
    if (!following.current) return;
    virt.cancelScroll();
    flushSync(() => setFollow(false));
  };
  const lastTop = useRef(0);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => e.deltaY < 0 && stopFollowing();
    const onScroll = () => {
      const up = el.scrollTop < lastTop.current - 1;
      lastTop.current = el.scrollTop;
      if (up && el.scrollTop + el.clientHeight < el.scrollHeight - ROW) stopFollowing();
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      el.removeEventListener('wheel', onWheel);
      el.removeEventListener('scroll', onScroll);
    };
  }, []);

  // Follow ticked again, or another filter: to the last line.
  useEffect(() => {
    if (follow && count) virt.scrollToEnd();
  }, [follow, task, search, taskRun, virt]);

  // Scrolled to once per line asked for; following stops so arriving lines do not move it away.
  const shownTarget = useRef('');
  useEffect(() => {
    const id = line ? `${line.taskRunId}:${line.n}` : '';
    if (target < 0 || shownTarget.current === id) return;
    shownTarget.current = id;
    setFollow(false);
    virt.scrollToIndex(target, { align: 'center' });
  }, [target, virt]);

  const download = withQuery(`${API}/executions/${encodeURIComponent(executionId)}/logs/download`, { task });
  return (
    <div className="logs">
      <div className="row wrap logs-bar">
        <label>
          Task
          <select value={task ?? ''} onChange={(e) => onTask(e.target.value || undefined)} aria-label="Show logs of task">
            <option value="">all tasks</option>
            {tasks.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        {taskRun && items?.has(taskRun) && (
          <span className="badge" data-testid="log-item">
            only {task}[{items.get(taskRun)}]
          </span>
        )}
        <label>
          Search <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="text in lines" />
        </label>
        <label className="check">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
        <a className="button" href={download} download>
          Download
        </a>
        <span className="muted small" role="status" data-testid="log-status">
          {count.toLocaleString()} {search || task || taskRun ? `of ${lines.current.length.toLocaleString()} ` : ''}lines · {status}
        </span>
      </div>
      <ErrorBox error={pageError} />
      <div
        className="log-view"
        ref={scroller}
        tabIndex={0}
        role="log"
        aria-label="Log lines"
        aria-live="off"
        onKeyDown={(e) => (e.key === 'PageUp' || e.key === 'ArrowUp' || e.key === 'Home') && stopFollowing()}
      >
        <div style={{ height: virt.getTotalSize(), position: 'relative' }}>
          {virt.getVirtualItems().map((row) => {
            const l = lines.current[shown ? shown[row.index] : row.index];
            const marked = row.index === target;
            return (
              <div
                key={row.key}
                className={`log-line ${l.stream === 'stderr' ? 'stderr' : ''}${marked ? ' marked' : ''}`}
                aria-current={marked || undefined}
                style={{ transform: `translateY(${row.start}px)`, height: ROW }}
              >
                <span className="log-ts">{l.ts.slice(11, 23)}</span>
                <span className="log-task">
                  {l.task_key}
                  {items?.has(l.task_run_id) ? `[${items.get(l.task_run_id)}]` : ''}
                  {l.attempt > 1 ? `#${l.attempt}` : ''}
                </span>
                <span className="log-text">{l.text}</span>
              </div>
            );
          })}
        </div>
        {count === 0 && <p className="muted log-empty">{status === 'ended' ? 'No log lines.' : 'Waiting for log lines…'}</p>}
      </div>
    </div>
  );
}
