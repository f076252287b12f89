// The flow page's task graph of the definition: the execution page's graph
// (TaskGraph on the dagre layout of graph-layout.ts) drawn with no runs, each
// node naming its task's kind instead of a state: the command, script file,
// HTTP call, or for a subflow the child flow it starts. A click (or Enter)
// on a task shows what it is below the graph: its dependencies, when it runs,
// retries, and a subflow's child flow as a link. Flow triggers (the flows
// whose end starts this one) are listed as its upstream.
import { useState } from 'react';
import { Link } from '../router';
import { isConditionExpression } from '@svc/flow-schema/templates';
import type { FlowDefinition, FlowTask } from '../types';
import { Dag } from './Dag';
import type { NodeText } from './TaskGraph';

/**
 * A task of the definition with the type-specific fields the graph names.
 * The generated `FlowFile` types lose them (types.ts says why); the flow
 * schema (@svc/flow-schema's flow-definition.ts) is their source.
 */
export type DefinitionTask = FlowTask & {
  file?: string;
  command?: string[];
  method?: string;
  url?: string;
  /** subflow: `<namespace>/<flow_id>`. */
  flow?: string;
  /** subflow: wait for the child to end; default true. */
  wait?: boolean;
  timeout?: string;
};

type DefinitionTrigger = { id: string; type: string; flow?: string; states?: string[] };

/** What a task does, in a few words: the graph node's second line. */
export function taskSummary(t: DefinitionTask): string {
  switch (t.type) {
    case 'subflow':
      return `subflow → ${t.flow ?? '?'}${t.wait === false ? ' (no wait)' : ''}`;
    case 'script':
      return `script ${t.file ?? ''}`.trim();
    case 'command':
      return `command ${(t.command ?? []).join(' ')}`.trim();
    case 'http':
      return `http ${t.method ?? 'GET'} ${t.url ?? ''}`.trim();
    default:
      return t.type;
  }
}

export function describeTask(t: FlowTask): NodeText {
  const d = t as DefinitionTask;
  const onlyIf = d.run_if && d.run_if !== 'success' ? (isConditionExpression(d.run_if) ? `condition ${d.run_if.trim()}` : d.run_if) : undefined;
  const deps = d.depends_on?.length ? `, after ${d.depends_on.join(', ')}` : '';
  return {
    kind: d.type,
    sub: `${taskSummary(d)}${onlyIf ? ` · on ${onlyIf}` : ''}`,
    label: `Task ${d.id}: ${taskSummary(d)}${deps}${onlyIf ? `, runs on ${onlyIf}` : ''}`,
  };
}

/** `ns/flow` as a link to that flow's page. */
function FlowLink({ path }: { path: string }) {
  const i = path.lastIndexOf('/');
  if (i <= 0) return <code>{path}</code>;
  return (
    <Link to={`/flows/${path.slice(0, i)}/${path.slice(i + 1)}`}>
      <code>{path}</code>
    </Link>
  );
}

function TaskDetails({ task, tasks }: { task: DefinitionTask; tasks: DefinitionTask[] }) {
  const dependents = tasks.filter((t) => t.depends_on?.includes(task.id)).map((t) => t.id);
  return (
    <dl className="task-def" aria-label={`Task ${task.id}`} data-testid="task-definition">
      <dt>Task</dt>
      <dd>
        <code>{task.id}</code> ({task.type})
      </dd>
      {task.type === 'subflow' && task.flow && (
        <>
          <dt>Starts the flow</dt>
          <dd>
            <FlowLink path={task.flow} /> {task.wait === false ? 'and goes on without waiting for it' : 'and waits for it to end'}
          </dd>
        </>
      )}
      {task.type !== 'subflow' && (
        <>
          <dt>Does</dt>
          <dd>
            <code>{taskSummary(task)}</code>
          </dd>
        </>
      )}
      <dt>Depends on</dt>
      <dd>{task.depends_on?.length ? task.depends_on.join(', ') : 'nothing: it starts first'}</dd>
      <dt>Needed by</dt>
      <dd>{dependents.length ? dependents.join(', ') : 'no task'}</dd>
      <dt>Runs if</dt>
      <dd>{isConditionExpression(task.run_if) ? `${task.run_if.trim()} holds, once its dependencies succeeded` : `${task.run_if ?? 'success'} of its dependencies`}</dd>
      {task.retry?.max_attempts !== undefined && (
        <>
          <dt>Retry</dt>
          <dd>
            up to {task.retry.max_attempts} attempts{task.retry.backoff ? `, ${task.retry.backoff} backoff` : ''}
          </dd>
        </>
      )}
      {task.timeout && (
        <>
          <dt>Timeout</dt>
          <dd>{task.timeout}</dd>
        </>
      )}
    </dl>
  );
}

export function DefinitionGraph({ definition }: { definition: FlowDefinition | undefined }) {
  const [selected, setSelected] = useState<string>();
  const tasks = (definition?.tasks ?? []) as DefinitionTask[];
  const upstream = ((definition as { triggers?: DefinitionTrigger[] } | undefined)?.triggers ?? []).filter((t) => t.type === 'flow' && t.flow);
  const subflows = tasks.filter((t) => t.type === 'subflow' && t.flow);
  if (!tasks.length) return <p className="muted">The definition has no tasks.</p>;
  const task = tasks.find((t) => t.id === selected);
  return (
    <>
      {upstream.length > 0 && (
        <p className="small" data-testid="upstream-flows">
          Starts when{' '}
          {upstream.map((t, i) => (
            <span key={t.id}>
              {i > 0 && (i === upstream.length - 1 ? ' or ' : ', ')}
              <FlowLink path={t.flow!} /> ends in {(t.states ?? []).join(' or ') || 'any state'}
            </span>
          ))}
          .
        </p>
      )}
      <Dag tasks={tasks} runs={[]} selected={selected} onSelect={setSelected} describe={describeTask} />
      {subflows.length > 0 && (
        <ul className="subflows" aria-label="Subflows">
          {subflows.map((t) => (
            <li key={t.id}>
              <code>{t.id}</code> starts <FlowLink path={t.flow!} />
              {t.wait === false ? ' without waiting' : ''}
            </li>
          ))}
        </ul>
      )}
      {task ? <TaskDetails task={task} tasks={tasks} /> : <p className="muted small">Select a task to see what it does and what it waits for.</p>}
    </>
  );
}
