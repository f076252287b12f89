// The state guards of the engine's state-changing statements, derived from
// the state machine's transition tables (packages/state-machine), so the SQL
// never restates which states an event may leave: a statement that ends a
// task run acts only `WHERE state IN (<the states 'succeed', 'fail',
// 'time_out', 'lose' and 'shutdown' leave>)`, and a change to the table
// changes the statement.
import { executionStatesFor, taskRunStatesFor, type ExecutionEvent, type ExecutionState, type TaskRunEvent, type TaskRunState } from '@svc/state-machine';

const quoted = (states: readonly string[]): string => {
  if (!states.length) throw new Error('a guard needs at least one state');
  // States are the tables' own identifiers (upper-case letters and _), never input.
  for (const s of states) if (!/^[A-Z_]+$/.test(s)) throw new Error(`not a state: ${s}`);
  return `(${states.map((s) => `'${s}'`).join(', ')})`;
};

/** The states every one of these events may leave (their intersection). */
function common<S extends string>(lists: S[][]): S[] {
  return lists.reduce((acc, l) => acc.filter((s) => l.includes(s)));
}

/** SQL `('A', 'B')`: the states from which every one of these task run events is allowed. */
export const taskRunFrom = (...events: TaskRunEvent[]): string => quoted(common(events.map(taskRunStatesFor)));

/** SQL `('A', 'B')`: the states from which every one of these execution events is allowed. */
export const executionFrom = (...events: ExecutionEvent[]): string => quoted(common(events.map(executionStatesFor)));

/** The states as a typed list (for guards checked in code). */
export const taskRunStates = (...events: TaskRunEvent[]): TaskRunState[] => common(events.map(taskRunStatesFor));
export const executionStates = (...events: ExecutionEvent[]): ExecutionState[] => common(events.map(executionStatesFor));

/** A task run ends only from RUNNING: what its runner, the watchdog and a stopping dispatcher report. */
export const ENDS_TASK_RUN = taskRunFrom('succeed', 'fail', 'time_out', 'lose', 'shutdown');
/** A claim takes QUEUED runs. */
export const CLAIMS_TASK_RUN = taskRunFrom('claim');
/** The planner queues PENDING runs. */
export const QUEUES_TASK_RUN = taskRunFrom('skip');
/** The planner skips or cancels runs that have not started: those a cancel may leave, but not the running ones (their runner reports the end). */
export const STOPS_UNSTARTED_TASK_RUN = quoted(taskRunStatesFor('cancel').filter((s) => !taskRunStatesFor('succeed').includes(s)));
/** An execution ends (succeed, fail, time out, or the end of a cancel) only while RUNNING or CANCELLING. */
export const ENDS_EXECUTION = quoted([...new Set([...executionStatesFor('succeed'), ...executionStatesFor('fail'), ...executionStatesFor('cancel_done')])]);
/** A QUEUED execution starts when a place frees. */
export const DEQUEUES_EXECUTION = executionFrom('dequeue');
