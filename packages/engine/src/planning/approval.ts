// Pure planning of approval gates (a task's `approval`, an extension of the
// flow format): the object a task run carries once it waits for a decision
// (the gate as the flow declares it, with its deadline), and what a run's
// recorded status means to the planner.
import type { ApprovalGate, FlowDefinition } from '@svc/flow-schema';
import { parseDuration } from '@svc/timing';

/** What a task run's `approval` holds: the gate, then its decision. */
export interface ApprovalRecord {
  status: 'pending' | 'approved' | 'rejected' | 'timed_out';
  requested_at: string;
  deadline: string | null;
  on_timeout: 'fail' | 'skip' | 'approve';
  approvers: { role: string; groups: string[] };
  forbid_self_approval: boolean;
  form: { id: string; type: 'string' | 'number' | 'boolean'; required: boolean; description?: string }[];
  by: string | null;
  at: string | null;
  inputs: Record<string, unknown>;
  comment: string;
}

/** The gate of task `taskKey`, or undefined when it has none. */
export const gateOf = (def: FlowDefinition, taskKey: string): ApprovalGate | undefined => def.tasks.find((t) => t.id === taskKey)?.approval;

/** The record of a gate reached at `now`: pending, with its deadline from the gate's timeout. */
export function pendingApproval(gate: ApprovalGate, now: Date): ApprovalRecord {
  return {
    status: 'pending',
    requested_at: now.toISOString(),
    deadline: gate.timeout ? new Date(now.getTime() + parseDuration(gate.timeout)).toISOString() : null,
    on_timeout: gate.on_timeout ?? 'fail',
    approvers: { role: gate.approvers?.role ?? 'operator', groups: [...(gate.approvers?.groups ?? [])] },
    forbid_self_approval: gate.forbid_self_approval ?? false,
    form: (gate.form ?? []).map((f) => ({ id: f.id, type: f.type ?? 'string', required: f.required ?? false, ...(f.description ? { description: f.description } : {}) })),
    by: null,
    at: null,
    inputs: {},
    comment: '',
  };
}

/**
 * What the planner reads from a run's approval status: `awaiting` while
 * pending, `approved` once decided and the run still PENDING (approved by a
 * person, or by its timeout with on_timeout approve: a rejected or otherwise
 * timed-out run has ended and is not planned); undefined when not reached.
 */
export function gateState(status: string | null | undefined): 'awaiting' | 'approved' | undefined {
  if (status === null || status === undefined) return undefined;
  return status === 'pending' ? 'awaiting' : 'approved';
}
