// Approval gates on the execution page: the banner naming each task that
// waits for a person (always in view, with a button to its panel), and the
// panel of one task's gate. While it waits, the panel says who may decide,
// until when and what the timeout then does, and whether the person who
// started the execution is refused; it holds the gate's form (an input per
// field by its type, required ones marked), a comment, and Approve and
// Reject (approveTaskRun, rejectTaskRun); a refusal (403, 409, 422) shows
// the service's message in the panel. Once decided, it shows the decision:
// status, by whom and when, the form values and the comment; a run that
// ended undecided (its execution cancelled) says so.
import { useState } from 'react';
import { client } from '../api';
import { usePermission, useSession } from '../session';
import type { Execution, TaskRun } from '../types';
import { Button, ErrorBox, KeyValues, Section, fmtDuration, fmtTime, useAction } from '../ui';
import { approvalInputs, approversText, awaitsApproval, mayDecideByRole, mayNotDecide, onTimeoutText, type Approval, type FormField, type FormValues } from './approvals';

/** The tasks waiting for approval, each with a button that opens its panel. */
export function ApprovalBanner({ ex, runs, onReview }: { ex: Execution; runs: TaskRun[]; onReview: (task: string) => void }) {
  const { me } = useSession();
  const { can } = usePermission();
  const waiting = runs.filter(awaitsApproval);
  if (!waiting.length) return null;
  return (
    <div className="notice approval-notice" role="status" data-testid="approval-banner">
      {waiting.map((r) => {
        const a = r.approval!;
        const mine = mayDecideByRole(a, me, ex.created_by, (role) => can(role, ex.namespace));
        return (
          <p key={r.id}>
            <strong>{r.task_key}</strong> waits for {mine ? 'your ' : ''}approval since {fmtTime(a.requested_at)}
            {a.deadline ? `, until ${fmtTime(a.deadline)}` : ''}.{' '}
            <Button onClick={() => onReview(r.task_key)} aria-label={`Review the approval of ${r.task_key}`}>
              Review
            </Button>
          </p>
        );
      })}
    </div>
  );
}

/** The approval gate of a task's latest run: the decision to make, or the one made. */
export function ApprovalPanel({ ex, run, now }: { ex: Execution; run: TaskRun; now: number }) {
  const a = run.approval!;
  return (
    <Section title={`Approval of ${run.task_key}`}>
      <div id={`approval-${run.task_key}`} data-testid="approval-panel">
        {awaitsApproval(run) ? (
          <Decide key={run.id} ex={ex} run={run} a={a} now={now} />
        ) : a.status === 'pending' ? (
          <p className="muted" data-testid="approval-undecided">
            Nobody decided: the task run is {run.state}
            {run.reason ? ` (${run.reason})` : ''}, so there is nothing left to approve.
          </p>
        ) : (
          <Decided a={a} />
        )}
      </div>
    </Section>
  );
}

function Rules({ ex, a, now }: { ex: Execution; a: Approval; now: number }) {
  return (
    <dl className="approval-rules">
      <dt>Who may approve</dt>
      <dd data-testid="approval-approvers">
        {approversText(a)} ({ex.namespace})
      </dd>
      <dt>Deadline</dt>
      <dd data-testid="approval-deadline">
        {a.deadline ? (
          <>
            {fmtTime(a.deadline)} (in {fmtDuration(Math.max(0, Date.parse(a.deadline) - now))}); then {onTimeoutText(a.on_timeout)}.
          </>
        ) : (
          'None: it waits until someone decides or the execution is cancelled.'
        )}
      </dd>
      {a.forbid_self_approval && (
        <>
          <dt>Self approval</dt>
          <dd data-testid="approval-self">The person who started it ({ex.created_by}) may not approve.</dd>
        </>
      )}
    </dl>
  );
}

function Decide({ ex, run, a, now }: { ex: Execution; run: TaskRun; a: Approval; now: number }) {
  const { me } = useSession();
  const { can } = usePermission();
  const [values, setValues] = useState<FormValues>({});
  const [comment, setComment] = useState('');
  const act = useAction(async (what: 'approve' | 'reject') => {
    const params = { path: { executionId: ex.id, taskKey: run.task_key } };
    const note = comment.trim() ? { comment: comment.trim() } : {};
    if (what === 'approve') await client.post('/api/v1/executions/{executionId}/tasks/{taskKey}/approve', { params, body: { inputs: approvalInputs(a.form, values), ...note } });
    else await client.post('/api/v1/executions/{executionId}/tasks/{taskKey}/reject', { params, body: note });
  });
  const refused = mayNotDecide(a, me, ex.created_by, (role) => can(role, ex.namespace));
  return (
    <>
      <p>
        <strong>{run.task_key}</strong> waits for approval since {fmtTime(a.requested_at)}: it runs once someone approves, and fails (rejected) if someone rejects.
      </p>
      <Rules ex={ex} a={a} now={now} />
      <form
        className="stack approval-form"
        aria-label={`Decide on ${run.task_key}`}
        // The service checks the fields (422 naming the field): the browser's own checks would say it differently.
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void act.run('approve');
        }}
      >
        {a.form.map((f) => (
          <Field key={f.id} f={f} value={values[f.id]} onChange={(v) => setValues({ ...values, [f.id]: v })} />
        ))}
        <label>
          Comment
          <textarea value={comment} onChange={(e) => setComment(e.target.value)} rows={2} maxLength={2000} />
        </label>
        <div className="row wrap">
          <Button type="submit" className="primary" disabledReason={refused} disabled={act.busy}>
            Approve
          </Button>
          <Button disabledReason={refused} disabled={act.busy} onClick={() => void act.run('reject')}>
            Reject
          </Button>
        </div>
        {refused && (
          <p className="muted small" data-testid="approval-refused">
            {refused}.
          </p>
        )}
        <ErrorBox error={act.error} />
      </form>
    </>
  );
}

function Field({ f, value, onChange }: { f: FormField; value: string | boolean | undefined; onChange: (v: string | boolean) => void }) {
  const name = (
    <>
      {f.id}
      {f.required && <span className="required"> (required)</span>}
      {f.description && <span className="muted"> · {f.description}</span>}
    </>
  );
  if (f.type === 'boolean')
    return (
      <label className="check">
        <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} aria-required={f.required} />
        {name}
      </label>
    );
  return (
    <label>
      <span>{name}</span>
      <input
        type={f.type === 'number' ? 'number' : 'text'}
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => onChange(e.target.value)}
        aria-required={f.required}
        data-field={f.id}
      />
    </label>
  );
}

const STATUS_TEXT: Record<Approval['status'], string> = {
  pending: 'waiting',
  approved: 'Approved',
  rejected: 'Rejected',
  timed_out: 'Timed out',
};

function Decided({ a }: { a: Approval }) {
  return (
    <div data-testid="approval-decision">
      <p>
        <span className={`badge approval-${a.status}`} data-testid="approval-status">
          {STATUS_TEXT[a.status]}
        </span>{' '}
        {a.status === 'timed_out' ? (
          <>
            when the deadline passed ({fmtTime(a.deadline)}): {onTimeoutText(a.on_timeout)}.
          </>
        ) : (
          <>
            by <strong data-testid="approval-by">{a.by ?? '—'}</strong> at {fmtTime(a.at)}
          </>
        )}
        <span className="muted small"> · asked {fmtTime(a.requested_at)}</span>
      </p>
      {a.form.length > 0 && a.status !== 'rejected' && (
        <>
          <h3>Form values</h3>
          <KeyValues value={a.inputs} empty="None given." />
        </>
      )}
      <h3>Comment</h3>
      {a.comment ? (
        <p className="approval-comment" data-testid="approval-comment">
          {a.comment}
        </p>
      ) : (
        <p className="muted">No comment.</p>
      )}
    </div>
  );
}
