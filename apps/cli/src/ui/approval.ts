// Approval gates and paused executions in the CLI's views (an extension:
// docs/using/cli.md). A task run at its gate has `approval` (pending until a
// person approves or rejects it, or its deadline applies `on_timeout`); an
// execution on hold has `paused`, its state staying RUNNING.
import { assertNever } from '@svc/assert';
import type { Execution, TaskRun } from '../api/types.js';
import { isItem } from './fan-out.js';
import { when, type Colors } from './output.js';

export type Approval = NonNullable<TaskRun['approval']>;

/** The latest attempt of task `task`'s own run (not an item of a fan-out); undefined when the task has not been reached. */
export function latestRun(runs: readonly TaskRun[] | undefined, task: string): TaskRun | undefined {
  let latest: TaskRun | undefined;
  for (const r of runs ?? []) if (r.task_key === task && !isItem(r) && (!latest || r.attempt > latest.attempt)) latest = r;
  return latest;
}

/** "operator or above, or a member of release-managers": who may decide. */
export function approversText(a: Pick<Approval, 'approvers'>): string {
  const { role, groups } = a.approvers;
  const byRole = `${role}${role === 'admin' ? '' : ' or above'}`;
  return groups.length ? `${byRole}, or a member of ${groups.join(', ')}` : byRole;
}

/** A task's approval on its line of `svc executions get`: waiting (who, until when) or the decision. '' without a gate. */
export function approvalText(r: Pick<TaskRun, 'approval'>): string {
  const a = r.approval;
  if (!a) return '';
  switch (a.status) {
    case 'pending':
      return `awaiting approval by ${approversText(a)}; ${a.deadline ? `deadline ${when(a.deadline)} (then ${a.on_timeout})` : 'no deadline'}`;
    case 'approved':
    case 'rejected':
      return `${a.status} by ${a.by ?? '?'} at ${when(a.at)}`;
    case 'timed_out':
      return `timed out at ${when(a.at ?? a.deadline)} (${a.on_timeout})`;
    default:
      return assertNever(a.status, 'approval status');
  }
}

/** The form of a gate, one line per field: "ticket (string, required): Change ticket". */
export function formLines(a: Pick<Approval, 'form'>): string[] {
  return a.form.map((f) => `${f.id} (${f.type}${f.required ? ', required' : ''})${f.description ? `: ${f.description}` : ''}`);
}

/**
 * A task waiting at its gate, under the task table of `svc executions get`:
 * who may decide, the deadline, the form, and the two commands that decide.
 */
export function awaitingText(executionId: string, r: TaskRun, c: Colors): string {
  const a = r.approval;
  if (!a) return '';
  const form = formLines(a);
  const required = a.form.filter((f) => f.required).map((f) => ` --input ${f.id}=...`);
  const lines = [
    c.bold(`${r.task_key} awaits approval`),
    `approvers: ${approversText(a)}${a.forbid_self_approval ? ' (not whoever started the execution)' : ''}`,
    `deadline:  ${a.deadline ? `${when(a.deadline)} UTC, then ${a.on_timeout}` : 'none'}`,
    ...(form.length ? [`form:      ${form.join('\n           ')}`] : []),
    `approve:   svc executions approve ${executionId} --task ${r.task_key}${required.join('')}`,
    `reject:    svc executions reject ${executionId} --task ${r.task_key}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** "paused by ops@example.com since 2026-12-06 18:00:00"; '' for an execution that is not paused. */
export function pausedText(e: Pick<Execution, 'paused' | 'paused_by' | 'paused_at'>): string {
  if (!e.paused) return '';
  return `paused${e.paused_by ? ` by ${e.paused_by}` : ''}${e.paused_at ? ` since ${when(e.paused_at)}` : ''}`;
}

/** What an approve or reject decided, said after the call: "task deploy approved by a@b (ticket=CHG-1): now QUEUED". */
export function decisionText(task: string, r: TaskRun | undefined, decided: 'approved' | 'rejected'): string {
  const a = r?.approval;
  // In the form's order (the server may keep the values in another).
  const given = a?.inputs ?? {};
  const order = [...(a?.form ?? []).map((f) => f.id).filter((k) => k in given), ...Object.keys(given).filter((k) => !a?.form.some((f) => f.id === k))];
  const inputs = order.map((k) => {
    const v = given[k];
    return `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`;
  });
  const details = [...inputs, ...(a?.comment ? [`comment "${a.comment}"`] : [])];
  const now = r ? `${r.state}${r.reason ? ` (${r.reason})` : ''}` : 'not found in the execution';
  return `task ${task} ${decided}${a?.by ? ` by ${a.by}` : ''}${details.length ? ` (${details.join(', ')})` : ''}: now ${now}`;
}
