// Approval gates (a task's `approval`, an extension) as the execution page
// reads them: a task run waiting for a person (PENDING, reason
// `awaiting_approval`, its `approval.status` pending) and the decision once
// made (who, when, the form values, the comment). Pure, so it is unit-tested
// (ui-logic.test.ts); ApprovalPanel.tsx draws it.
import { ROLES, type Role, type TaskRun } from '../types';

export type Approval = NonNullable<TaskRun['approval']>;
export type FormField = Approval['form'][number];
/** What the form's inputs hold: text for string and number fields (as typed), a flag for boolean ones. */
export type FormValues = Record<string, string | boolean>;

/** The task run waits for a person's decision. */
export function awaitsApproval(r: TaskRun): boolean {
  return r.reason === 'awaiting_approval' && r.approval?.status === 'pending';
}

/** What a task's node says beside its state: the wait for approval, or how the gate ended the task. */
export function approvalNote(r: TaskRun | undefined): string | undefined {
  if (!r) return undefined;
  if (awaitsApproval(r)) return 'awaiting approval';
  if (r.reason === 'rejected') return 'rejected';
  if (r.reason === 'approval_timed_out') return 'approval timed out';
  return undefined;
}

/** "the operator role or above on the namespace, or a member of release-managers or qa". */
export function approversText(a: Approval): string {
  const role = a.approvers.role === 'admin' ? 'the admin role on the namespace' : `the ${a.approvers.role} role or above on the namespace`;
  const groups = a.approvers.groups;
  if (!groups.length) return role;
  const names = groups.length === 1 ? groups[0] : `${groups.slice(0, -1).join(', ')} or ${groups[groups.length - 1]}`;
  return `${role}, or a member of ${names}`;
}

/** What the gate's timeout decides, said as what happens to the task. */
export function onTimeoutText(onTimeout: Approval['on_timeout']): string {
  switch (onTimeout) {
    case 'fail':
      return 'the task fails (FAILED, approval_timed_out)';
    case 'skip':
      return 'the task is skipped (SKIPPED, approval_timed_out)';
    case 'approve':
      return 'the task runs as if approved';
  }
}

/** The signed-in user may decide by their role (not only perhaps through a group), and is not refused as the one who started it. */
export function mayDecideByRole(a: Approval, me: { email: string }, createdBy: string, can: (role: Role) => boolean): boolean {
  const role = ROLES.find((r) => r === a.approvers.role);
  return !!role && can(role) && !(a.forbid_self_approval && me.email === createdBy);
}

/**
 * Why the signed-in user may not decide, when the page can tell: the person
 * who started the execution when self approval is forbidden, or a role on
 * the namespace below the gate's when it names no group (group membership
 * comes from the identity provider and only the service knows it: with
 * groups, the buttons stay and the service's answer says).
 */
export function mayNotDecide(a: Approval, me: { email: string }, createdBy: string, can: (role: Role) => boolean): string | null {
  if (a.forbid_self_approval && me.email === createdBy) return 'You started this execution, and the person who started it may not approve';
  const role = ROLES.find((r) => r === a.approvers.role);
  if (role && !can(role) && !a.approvers.groups.length) return `Needs the ${role} role on the namespace`;
  return null;
}

/**
 * The form's values as approveTaskRun takes them: text as typed, numbers as
 * numbers, flags as booleans. An empty field is left out, so a required one
 * missing is the service's to refuse (422, naming `inputs.<id>`); a number
 * that does not parse is sent as typed, for the service to say so.
 */
export function approvalInputs(form: FormField[], values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of form) {
    const v = values[f.id];
    if (f.type === 'boolean') {
      out[f.id] = v === true;
      continue;
    }
    if (typeof v !== 'string' || v.trim() === '') continue;
    if (f.type === 'number') {
      const n = Number(v);
      out[f.id] = Number.isFinite(n) ? n : v;
    } else out[f.id] = v;
  }
  return out;
}
