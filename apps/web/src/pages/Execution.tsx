// One execution: header and actions (pause and resume among them), why it
// waits when QUEUED or paused, the tasks waiting for a person's approval, the
// task graph and timeline (live from the events stream), the approval gate
// and the items of a fanned-out task selected in the graph, and tabs for
// logs, outputs, files (input files, output files and artifacts, with a
// preview), metrics, inputs and labels.
import { useEffect, useState } from 'react';
import { client } from '../api';
import { ApprovalBanner, ApprovalPanel } from '../components/ApprovalPanel';
import { ExecutionFiles } from '../components/ExecutionFiles';
import { Dag, latestRuns } from '../components/Dag';
import { FanOutItems } from '../components/FanOutItems';
import { Gantt } from '../components/Gantt';
import { GitSha } from '../components/GitSha';
import { Logs } from '../components/Logs';
import { ReplayDialog } from '../components/ReplayDialog';
import { TRIAGED, Triage } from '../components/ai/Triage';
import { isItem } from '../components/task-runs';
import { taskWaits, type TaskWait } from '../components/waits';
import { Link, navigate, useQueryParam } from '../router';
import { usePermission } from '../session';
import { ENDED, type Execution, type FlowDefinition, type TaskRun } from '../types';
import { Button, ErrorBox, Json, KeyValues, Loading, Section, StateBadge, arrowSelect, fmtDuration, fmtTime, useAction, useLoad } from '../ui';

const RESTARTABLE = ['FAILED', 'TIMED_OUT', 'CANCELLED'];
const TABS = ['Logs', 'Outputs', 'Files', 'Metrics', 'Inputs & labels'] as const;
type Tab = (typeof TABS)[number];

export function ExecutionPage({ id }: { id: string }) {
  const [ex, setEx] = useState<Execution>();
  const [loadError, setLoadError] = useState<unknown>();
  const [live, setLive] = useState(false);
  const [now, setNow] = useState(Date.now());
  const [task, setTaskOnly] = useState<string>();
  // An item of a fanned-out task (its task run id): the log view shows only its lines.
  const [item, setItem] = useState<string>();
  const setTask = (t: string | undefined) => {
    setTaskOnly(t);
    setItem(undefined);
  };
  const [tab, setTab] = useState<Tab>('Logs');
  // A link to a place on this page (a triage's evidence): `?task=` selects the task, `?log=<task run>:<n>` shows that log line.
  const [taskParam] = useQueryParam('task');
  const [logParam] = useQueryParam('log');
  const logLine = /^(.+):(\d+)$/.exec(logParam);
  useEffect(() => {
    if (taskParam) setTask(taskParam);
    if (!taskParam && !logParam) return;
    setTab('Logs');
    requestAnimationFrame(() => document.getElementById('execution-details')?.scrollIntoView({ block: 'start' }));
  }, [taskParam, logParam]);

  useEffect(() => {
    setEx(undefined);
    setLoadError(undefined);
    // The GET and the stream race: once a stream event arrived, a GET answer
    // may be older than it and is dropped. After `end`, one more GET reads the
    // final state (outputs included) for certain.
    let streamed = false;
    let gone = false;
    const get = () => client.get('/api/v1/executions/{executionId}', { params: { path: { executionId: id } } });
    get().then(
      (e) => !streamed && !gone && setEx(e),
      (e: unknown) => !gone && setLoadError(e),
    );
    const stop = new AbortController();
    client
      .stream(
        '/api/v1/executions/{executionId}/events',
        { params: { path: { executionId: id } } },
        {
          signal: stop.signal,
          onEvent: (ev) => {
            if (ev.event !== 'execution') return;
            streamed = true;
            setEx(JSON.parse(ev.data) as Execution);
            setLive(true);
          },
          onEnd: () => {
            setLive(false);
            get().then(
              (e) => !gone && setEx(e),
              () => undefined,
            );
          },
          onReconnect: () => setLive(false),
        },
      )
      // Refused (the execution is gone, the session ended): no longer live; the GET says why.
      .catch(() => !gone && setLive(false));
    return () => {
      gone = true;
      stop.abort();
    };
  }, [id]);
  const running = ex && !ENDED.includes(ex.state);
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [running]);

  const def = useLoad(
    async () =>
      ex?.flow_id && ex.flow_revision_id
        ? (
            await client.get('/api/v1/flows/{namespace}/{flowId}/revisions/{revisionId}', {
              params: { path: { namespace: ex.namespace, flowId: ex.flow_id, revisionId: ex.flow_revision_id } },
            })
          ).definition
        : undefined,
    [ex?.flow_revision_id],
  );

  if (loadError) return <ErrorBox error={loadError} />;
  if (!ex) return <Loading what="the execution" />;
  const tasks = def.data?.tasks ?? [];
  const taskKeys = [...new Set([...tasks.map((t) => t.id), ...ex.task_runs.map((r) => r.task_key)])];
  const selectedRun = task ? latestRuns(ex.task_runs).get(task) : undefined;
  const fansOut = !!task && (tasks.some((t) => t.id === task && t.for_each !== undefined) || !!selectedRun?.item_counts);
  const itemIndexes = new Map(ex.task_runs.filter(isItem).map((r) => [r.id, r.item_index!]));
  // Review from the banner: the task selected, its approval panel brought into view.
  const review = (t: string) => {
    setTask(t);
    requestAnimationFrame(() => document.getElementById(`approval-${t}`)?.scrollIntoView({ block: 'center' }));
  };

  return (
    <div className="page">
      <div className="row wrap">
        <h1>
          Execution <code>{ex.id}</code>
        </h1>
        <StateBadge state={ex.state} />
        {ex.paused && (
          <span className="badge paused" data-testid="paused-badge" title={`Paused by ${ex.paused_by ?? 'someone'} at ${fmtTime(ex.paused_at)}`}>
            Paused
          </span>
        )}
        {live && (
          <span className="badge live" title="Updates arrive as they happen">
            live
          </span>
        )}
      </div>
      <p className="muted">
        {ex.flow_id ? (
          <>
            Flow{' '}
            <Link to={`/flows/${ex.namespace}/${ex.flow_id}`}>
              {ex.namespace}/{ex.flow_id}
            </Link>
          </>
        ) : (
          <>File run in {ex.namespace}</>
        )}{' '}
        {ex.git_sha && (
          <>
            {' '}
            · commit <GitSha sha={ex.git_sha} />
          </>
        )}{' '}
        · {ex.trigger_type} by {ex.created_by} · created {fmtTime(ex.created_at)} · started {fmtTime(ex.started_at)} · ended {fmtTime(ex.ended_at)} ·{' '}
        {fmtDuration(ex.duration_ms ?? (ex.started_at ? now - Date.parse(ex.started_at) : null))}
      </p>
      <Relations ex={ex} />
      {ex.error && (
        <p className="error" role="note">
          {ex.reason && <strong>{ex.reason}: </strong>}
          {ex.error}
        </p>
      )}
      <Actions ex={ex} def={def.data} />
      {TRIAGED.includes(ex.state) && <Triage ex={ex} />}
      {ex.state === 'QUEUED' && <ExecutionWait ex={ex} def={def.data} />}
      {ex.paused && !ENDED.includes(ex.state) && (
        <div className="notice" role="status" data-testid="paused-notice">
          <strong>Paused</strong> by {ex.paused_by ?? 'someone'} at {fmtTime(ex.paused_at)} (reason <code>{ex.reason ?? 'paused'}</code>): no new task starts until it is resumed;
          tasks already running finish.
        </div>
      )}
      <ApprovalBanner ex={ex} runs={ex.task_runs} onReview={review} />
      <TaskWaits runs={ex.task_runs} def={def.data} now={now} paused={!!ex.paused} />
      <Section title="Task graph">
        <Dag tasks={tasks} runs={ex.task_runs} selected={task} onSelect={setTask} />
        <Progresses runs={ex.task_runs} />
      </Section>
      {selectedRun?.approval && <ApprovalPanel ex={ex} run={selectedRun} now={now} />}
      {task && fansOut && (
        <Section title={`Items of ${task}`}>
          <FanOutItems
            task={task}
            parent={selectedRun}
            runs={ex.task_runs}
            forEach={tasks.some((t) => t.id === task && t.for_each !== undefined)}
            selected={item}
            onSelect={(id) => {
              setItem(id);
              if (id) setTab('Logs');
            }}
            now={now}
          />
        </Section>
      )}
      <Section title="Timeline">
        <Gantt runs={ex.task_runs} now={now} />
      </Section>
      <div className="tabs" role="tablist" aria-label="Execution details" id="execution-details">
        {TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={tab === t}
            tabIndex={tab === t ? 0 : -1}
            className={tab === t ? 'active' : ''}
            onClick={() => setTab(t)}
            onKeyDown={arrowSelect(TABS, t, setTab, 'tab')}
          >
            {t}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={tab} className="card">
        {tab === 'Logs' && (
          <Logs
            executionId={ex.id}
            ended={ENDED.includes(ex.state)}
            task={task}
            tasks={taskKeys}
            onTask={setTask}
            taskRun={item}
            items={itemIndexes}
            {...(logLine ? { line: { taskRunId: logLine[1], n: Number(logLine[2]) } } : {})}
          />
        )}
        {tab === 'Outputs' && <Outputs ex={ex} />}
        {tab === 'Files' && <ExecutionFiles executionId={ex.id} />}
        {tab === 'Metrics' && <Metrics id={ex.id} />}
        {tab === 'Inputs & labels' && (
          <>
            <h3>Inputs</h3>
            <KeyValues value={ex.inputs} empty="No inputs." />
            <h3>Labels</h3>
            <KeyValues value={ex.labels} empty="No labels." />
          </>
        )}
      </div>
    </div>
  );
}

function Relations({ ex }: { ex: Execution }) {
  if (!ex.parent_execution_id && !ex.restart_of_id && !ex.replay_of && !ex.children.length) return null;
  return (
    <ul className="inline-list" aria-label="Related executions">
      {ex.parent_execution_id && (
        <li>
          Parent <Link to={`/executions/${ex.parent_execution_id}`}>{ex.parent_execution_id}</Link>
        </li>
      )}
      {ex.restart_of_id && (
        <li>
          Restart of <Link to={`/executions/${ex.restart_of_id}`}>{ex.restart_of_id}</Link>
        </li>
      )}
      {ex.replay_of && (
        <li>
          Replay of <Link to={`/executions/${ex.replay_of}`}>{ex.replay_of}</Link>
        </li>
      )}
      {ex.children.map((c) => (
        <li key={c.id}>
          Child <Link to={`/executions/${c.id}`}>{c.id}</Link> <StateBadge state={c.state} />
        </li>
      ))}
    </ul>
  );
}

/** Which task runs a restart reuses (the latest attempt ended SUCCESS) and which run again. */
export function restartPlan(runs: TaskRun[]): { reused: string[]; again: string[] } {
  const latest = latestRuns(runs);
  const reused: string[] = [];
  const again: string[] = [];
  for (const [key, r] of latest) (r.state === 'SUCCESS' ? reused : again).push(key);
  return { reused: reused.sort(), again: again.sort() };
}

function Actions({ ex, def }: { ex: Execution; def?: FlowDefinition }) {
  const { needs } = usePermission();
  const [confirmRestart, setConfirmRestart] = useState(false);
  const [replaying, setReplaying] = useState(false);
  const act = useAction(async (what: 'cancel' | 'pause' | 'resume' | 'rerun' | 'restart') => {
    const at = { params: { path: { executionId: ex.id } } };
    if (what === 'cancel') await client.post('/api/v1/executions/{executionId}/cancel', at);
    else if (what === 'pause') await client.post('/api/v1/executions/{executionId}/pause', at);
    else if (what === 'resume') await client.post('/api/v1/executions/{executionId}/resume', at);
    else
      navigate(
        `/executions/${(await (what === 'rerun' ? client.post('/api/v1/executions/{executionId}/rerun', at) : client.post('/api/v1/executions/{executionId}/restart', at))).id}`,
      );
  });
  const ended = ENDED.includes(ex.state);
  const op = needs('operator', ex.namespace);
  const plan = restartPlan(ex.task_runs);
  return (
    <div className="row wrap actions">
      <Button disabledReason={op ?? (ended ? `The execution has ended (${ex.state})` : null)} disabled={act.busy} onClick={() => void act.run('cancel')}>
        Cancel
      </Button>
      {ex.paused ? (
        <Button disabledReason={op ?? (ended ? `The execution has ended (${ex.state})` : null)} disabled={act.busy} onClick={() => void act.run('resume')}>
          Resume
        </Button>
      ) : (
        <Button
          disabledReason={op ?? (ex.state !== 'RUNNING' ? `Only a RUNNING execution pauses (this one is ${ex.state})` : null)}
          disabled={act.busy}
          onClick={() => void act.run('pause')}
        >
          Pause
        </Button>
      )}
      <Button disabledReason={op ?? (!ended ? 'The execution has not ended' : null)} disabled={act.busy} onClick={() => void act.run('rerun')}>
        Rerun
      </Button>
      <Button
        disabledReason={op ?? (!RESTARTABLE.includes(ex.state) ? 'Only FAILED, TIMED_OUT or CANCELLED executions restart' : null)}
        disabled={act.busy}
        onClick={() => setConfirmRestart(true)}
      >
        Restart from failed…
      </Button>
      <Button disabledReason={op ?? (!ended ? 'The execution has not ended' : null)} onClick={() => setReplaying(true)}>
        Replay…
      </Button>
      <ErrorBox error={act.error} />
      {replaying && <ReplayDialog ex={ex} def={def} onClose={() => setReplaying(false)} />}
      {confirmRestart && (
        <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="restart-title">
          <h2 id="restart-title">Restart from failed</h2>
          <p>The new execution uses the same snapshot and inputs.</p>
          <div className="row top">
            <div>
              <h3>Reused (SUCCESS, copied)</h3>
              <ul data-testid="restart-reused">{plan.reused.length ? plan.reused.map((k) => <li key={k}>{k}</li>) : <li className="muted">none</li>}</ul>
            </div>
            <div>
              <h3>Run again</h3>
              <ul data-testid="restart-again">{plan.again.length ? plan.again.map((k) => <li key={k}>{k}</li>) : <li className="muted">every task</li>}</ul>
            </div>
          </div>
          <div className="row">
            <Button
              className="primary"
              autoFocus
              onClick={() => {
                setConfirmRestart(false);
                void act.run('restart');
              }}
            >
              Restart
            </Button>
            <Button onClick={() => setConfirmRestart(false)}>Keep as is</Button>
          </div>
        </div>
      )}
    </div>
  );
}

/** Why a QUEUED execution waits: its flow's concurrency limit, held by the executions listed. */
function ExecutionWait({ ex, def }: { ex: Execution; def?: FlowDefinition }) {
  const holders = useLoad(
    async () =>
      ex.flow_id
        ? (await client.all('/api/v1/executions', { params: { query: { namespace: ex.namespace, flow: ex.flow_id } } }, 400)).filter(
            (e) => e.namespace === ex.namespace && (e.state === 'RUNNING' || e.state === 'CANCELLING'),
          )
        : [],
    [ex.id, ex.state],
    3000,
  );
  const limit = def?.concurrency?.limit;
  return (
    <div className="notice" role="status" data-testid="wait-reason">
      <strong>Waiting: </strong>
      {limit !== undefined ? `the flow's concurrency limit (${limit}) is full.` : 'the flow has no free place to run.'}{' '}
      {holders.data?.length ? (
        <>
          Held by{' '}
          {holders.data.map((h, i) => (
            <span key={h.id}>
              {i > 0 && ', '}
              <Link to={`/executions/${h.id}`}>{h.id}</Link>
            </span>
          ))}
          .
        </>
      ) : null}
    </div>
  );
}

/**
 * Why task runs have not started: PENDING ones wait for their dependencies
 * (named, with their states) or for a place under the flow's max_parallel
 * (naming the tasks that hold it); a retry waits out its backoff (when it is
 * due, attempt n of m, and how the last attempt ended); QUEUED ones wait for
 * an instance of their pool and executor, or for a free slot (naming this
 * execution's runs that hold slots of the same pool and executor, if any).
 * A task waiting for approval is the approval banner's, and nothing here
 * while the execution is paused.
 */
function TaskWaits({ runs, def, now, paused }: { runs: TaskRun[]; def?: FlowDefinition; now: number; paused: boolean }) {
  // A paused execution starts nothing: the paused notice says why, not the dependencies, places or slots.
  if (paused) return null;
  const waits = taskWaits(def, runs, now);
  const inBackoff = new Set(waits.filter((w) => w.kind === 'retry_backoff').map((w) => w.task));
  const latest = latestRuns(runs);
  const queued = runs.filter((r) => r.state === 'QUEUED' && latest.get(r.task_key) === r && !inBackoff.has(r.task_key));
  if (!queued.length && !waits.length) return null;
  // A fanned-out task's running items hold slots too: named once, by their task.
  const holders = (r: TaskRun) => [...new Set(runs.filter((x) => x.state === 'RUNNING' && x.pool === r.pool && x.executor_type === r.executor_type).map((x) => x.task_key))];
  return (
    <div className="notice" role="status" data-testid="task-wait">
      {waits.map((w) => (
        <p key={`${w.kind}-${w.task}`} data-wait={w.kind}>
          <WaitText w={w} now={now} />
        </p>
      ))}
      {queued.map((r) => {
        const held = holders(r);
        return (
          <p key={r.id} data-wait={r.reason === 'no_instance_for_pool' ? 'no_instance' : 'slots'}>
            <strong>{r.task_key}</strong> waits since {fmtTime(r.queued_at)}:{' '}
            {r.reason === 'no_instance_for_pool' ? (
              `no online instance serves pool "${r.pool}" with the ${r.executor_type} executor; it runs when one comes online.`
            ) : (
              <>
                every {r.executor_type} slot of pool &quot;{r.pool}&quot; is busy (SVC_WORKER_SLOTS{r.executor_type === 'kubernetes' ? ', SVC_K8S_MAX_JOBS' : ''} per instance); it
                runs when one frees.{' '}
                {held.length ? `Slots are held by this execution's ${held.join(', ')} and maybe by other executions.` : 'The slots are held by other executions.'}
              </>
            )}
          </p>
        );
      })}
    </div>
  );
}

function WaitText({ w, now }: { w: TaskWait; now: number }) {
  switch (w.kind) {
    case 'dependencies':
      return (
        <>
          <strong>{w.task}</strong> waits for its dependencies: {w.waitingFor.map((d) => `${d.task} (${d.state})`).join(', ')}.
        </>
      );
    case 'max_parallel':
      return (
        <>
          <strong>{w.task}</strong> waits for a place: the flow&apos;s max_parallel ({w.limit}) is reached by {w.holders.join(', ')}.
        </>
      );
    case 'retry_backoff':
      return (
        <>
          <strong>{w.task}</strong> retries at {fmtTime(new Date(w.dueAt).toISOString())} (in {fmtDuration(Math.max(0, w.dueAt - now))}): attempt {w.attempt} of {w.maxAttempts},
          after attempt {w.previous.attempt} ended {w.previous.state}
          {w.previous.reason ? ` (${w.previous.reason})` : ''}
          {w.previous.error ? `: ${w.previous.error}` : ''}.
        </>
      );
  }
}

function Progresses({ runs }: { runs: TaskRun[] }) {
  const withProgress = [...latestRuns(runs).values()].filter((r) => r.progress && (r.progress.message || r.progress.percent !== undefined));
  if (!withProgress.length) return null;
  return (
    <ul className="progress-list" aria-label="Task progress">
      {withProgress.map((r) => (
        <li key={r.id}>
          <strong>{r.task_key}</strong> {r.progress!.message}{' '}
          {r.progress!.percent !== undefined && <progress max={100} value={r.progress!.percent} aria-label={`${r.task_key} progress`} />}
          <span className="muted small"> {fmtTime(r.progress!.at)}</span>
        </li>
      ))}
    </ul>
  );
}

function Outputs({ ex }: { ex: Execution }) {
  const latest = [...latestRuns(ex.task_runs).values()].filter((r) => r.outputs && Object.keys(r.outputs).length);
  return (
    <>
      <h3>Flow outputs</h3>
      {ex.outputs ? <Json value={ex.outputs} /> : <p className="muted">None{ENDED.includes(ex.state) ? '' : ' yet'}.</p>}
      <h3>Task outputs</h3>
      {latest.length ? (
        latest.map((r) => (
          <div key={r.id}>
            <h4>{r.task_key}</h4>
            <Json value={r.outputs} />
          </div>
        ))
      ) : (
        <p className="muted">No task has outputs.</p>
      )}
    </>
  );
}

function Metrics({ id }: { id: string }) {
  const list = useLoad(() => client.all('/api/v1/executions/{executionId}/metrics', { params: { path: { executionId: id } } }), [id]);
  if (list.error) return <ErrorBox error={list.error} />;
  if (!list.data) return <Loading what="metrics" />;
  if (!list.data.length) return <p className="muted">No metrics.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>Task</th>
          <th>Metric</th>
          <th>Value</th>
          <th>Tags</th>
        </tr>
      </thead>
      <tbody>
        {list.data.map((m, i) => (
          <tr key={i}>
            <td>{m.task_key}</td>
            <td>{m.name}</td>
            <td>{m.value}</td>
            <td>
              {Object.entries(m.tags)
                .map(([k, v]) => `${k}=${v}`)
                .join(', ')}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
