// What an alert says: what failed (the rule, the event, the execution's state
// and error), where (the execution's URL in the UI), the failing task and its
// last log lines. Built from stored rows, which the engine and the runner
// already masked, and masked again here against the values of the secrets
// the execution used (its secret_keys_used, resolved in its namespace), so a
// value that slipped past is still replaced. A secret that cannot be
// resolved any more cannot be masked against: its key is named instead.
import type pg from 'pg';
import { Masker } from '@svc/masking';
import type { SecretStore } from '@svc/secrets';
import { executionSummary, logTail, taskRunApproval, taskRunOfInterest } from '@svc/engine/read-models';
import type { DeliveryJob } from './delivery-queue.js';

/** Log lines of the failing task an alert quotes. */
export const LOG_LINES = 20;

export interface AlertMessage {
  event: string;
  rule: { id: string; name: string };
  execution: { id: string; namespace: string; flow_id: string | null; state: string; error: string; url: string; started_at: string | null; ended_at: string | null } | null;
  schedule: { namespace: string; flow_id: string; trigger_id: string; due_at: string } | null;
  task: { key: string; state: string; error: string; last_log_lines: string[] } | null;
  subject: string;
  text: string;
}

const EVENT_WORDS: Record<string, string> = { failed: 'failed', timed_out: 'timed out', recovered: 'recovered', late: 'is late', approval_requested: 'waits for approval' };

export async function buildMessage(
  pool: pg.Pool,
  d: DeliveryJob,
  rule: { id: string; name: string },
  o: { publicUrl: string; secrets: Pick<SecretStore, 'valuesOf'> },
): Promise<AlertMessage> {
  const what = EVENT_WORDS[d.event] ?? d.event;
  if (!d.execution_id) {
    // A schedule that did not fire: subject `schedule:<ns>/<flow>/<trigger>@<time>`.
    const m = /^schedule:([^/]*)\/([^/]*)\/(.*)@([^@]*)$/.exec(d.subject);
    const s = { namespace: m?.[1] ?? d.namespace, flow_id: m?.[2] ?? d.flow_id ?? '', trigger_id: m?.[3] ?? '', due_at: m?.[4] ?? '' };
    const subject = `[svc] schedule ${s.namespace}/${s.flow_id} (${s.trigger_id}) did not fire`;
    const text = `Alert rule "${rule.name}": the schedule trigger ${s.trigger_id} of flow ${s.namespace}/${s.flow_id} was due at ${s.due_at} and has not fired.\n${o.publicUrl}/flows/${encodeURIComponent(s.namespace)}/${encodeURIComponent(s.flow_id)}\n`;
    return { event: d.event, rule, execution: null, schedule: s, task: null, subject, text };
  }
  const ex = await executionSummary(pool, d.execution_id);
  if (!ex) throw new Error(`execution ${d.execution_id} no longer exists`);
  // The values of the secrets the execution used, as they resolve now (unresolvable ones skipped).
  const masker = new Masker(ex.secret_keys_used.length ? await o.secrets.valuesOf(ex.namespace, ex.secret_keys_used) : []);
  const mask = (t: string) => masker.text(t);

  let task: AlertMessage['task'] = null;
  let approval = '';
  if (d.event === 'approval_requested') {
    // Subject `approval:<task run id>`: the waiting task and who may approve it, never a log line.
    const tr = await taskRunApproval(pool, d.subject.slice('approval:'.length));
    if (tr) {
      task = { key: tr.task_key, state: tr.state, error: '', last_log_lines: [] };
      const a = (tr.approval ?? {}) as { approvers?: { role?: string; groups?: string[] }; deadline?: string | null };
      const groups = a.approvers?.groups?.length ? ` or a member of ${a.approvers.groups.join(', ')}` : '';
      approval = `Task ${tr.task_key} waits for approval by a ${a.approvers?.role ?? 'operator'} of ${ex.namespace}${groups}${a.deadline ? `, until ${a.deadline}` : ''}. Approve or reject it on the execution page.`;
    }
  } else if (d.event !== 'recovered') {
    const tr = await taskRunOfInterest(pool, ex.id);
    if (tr) {
      const lines = await logTail(pool, tr.id, LOG_LINES);
      task = { key: tr.task_key, state: tr.state, error: mask(tr.error), last_log_lines: lines.map((l) => mask(l.text)) };
    }
  }
  const url = `${o.publicUrl}/executions/${encodeURIComponent(ex.id)}`;
  const name = ex.flow_id ? `${ex.namespace}/${ex.flow_id}` : `${ex.namespace} (file run)`;
  const subject = `[svc] ${name} ${what}`;
  const parts = [`Alert rule "${rule.name}": execution ${ex.id} of ${name} ${what} (state ${ex.state}).`, url];
  if (ex.error) parts.push(`Error: ${mask(ex.error)}`);
  if (approval) parts.push(approval);
  else if (task) {
    parts.push(`Task ${task.key} (${task.state})${task.error ? `: ${task.error}` : ''}`);
    if (task.last_log_lines.length) parts.push(`Last log lines of ${task.key}:`, ...task.last_log_lines.map((l) => `  ${l}`));
  }
  return {
    event: d.event,
    rule,
    execution: {
      id: ex.id,
      namespace: ex.namespace,
      flow_id: ex.flow_id,
      state: ex.state,
      error: mask(ex.error),
      url,
      started_at: ex.started_at?.toISOString() ?? null,
      ended_at: ex.ended_at?.toISOString() ?? null,
    },
    schedule: null,
    task,
    subject: mask(subject),
    text: mask(`${parts.join('\n')}\n`),
  };
}
