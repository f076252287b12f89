import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pc from 'picocolors';
import type { TaskRun } from '../api/types.js';
import { approvalText, approversText, awaitingText, decisionText, latestRun, pausedText, type Approval } from './approval.js';

const gate = (extra: Partial<Approval> = {}): Approval => ({
  status: 'pending',
  requested_at: '2026-12-06T18:00:00.000Z',
  deadline: '2026-12-07T18:00:00.000Z',
  on_timeout: 'fail',
  approvers: { role: 'operator', groups: ['release-managers'] },
  forbid_self_approval: false,
  form: [
    { id: 'ticket', type: 'string', required: true, description: 'Change ticket' },
    { id: 'canary', type: 'number', required: false },
  ],
  by: null,
  at: null,
  inputs: {},
  comment: '',
  ...extra,
});
const run = (extra: Partial<TaskRun>) => ({ id: 'r', task_key: 'deploy', attempt: 1, state: 'PENDING', reason: '', ...extra }) as TaskRun;
const plain = pc.createColors(false);

describe('approval gates in the CLI', () => {
  it('says who may decide: a role or above, and the groups', () => {
    assert.equal(approversText(gate()), 'operator or above, or a member of release-managers');
    assert.equal(approversText(gate({ approvers: { role: 'admin', groups: [] } })), 'admin');
  });
  it("puts a waiting gate, or its decision, on the task's line", () => {
    assert.equal(approvalText(run({ approval: gate() })), 'awaiting approval by operator or above, or a member of release-managers; deadline 2026-12-07 18:00:00 (then fail)');
    assert.equal(approvalText(run({ approval: gate({ deadline: null }) })), 'awaiting approval by operator or above, or a member of release-managers; no deadline');
    assert.equal(
      approvalText(run({ approval: gate({ status: 'approved', by: 'ops@example.com', at: '2026-12-06T18:05:00Z' }) })),
      'approved by ops@example.com at 2026-12-06 18:05:00',
    );
    assert.equal(approvalText(run({ approval: gate({ status: 'timed_out', on_timeout: 'skip' }) })), 'timed out at 2026-12-07 18:00:00 (skip)');
    assert.equal(approvalText(run({ approval: null })), '');
    assert.equal(approvalText(run({})), '');
  });
  it('lists the form and the commands that decide under the table', () => {
    const text = awaitingText('e1', run({ approval: gate({ forbid_self_approval: true }) }), plain);
    assert.equal(
      text,
      [
        'deploy awaits approval',
        'approvers: operator or above, or a member of release-managers (not whoever started the execution)',
        'deadline:  2026-12-07 18:00:00 UTC, then fail',
        'form:      ticket (string, required): Change ticket',
        '           canary (number)',
        'approve:   svc executions approve e1 --task deploy --input ticket=...',
        'reject:    svc executions reject e1 --task deploy',
        '',
      ].join('\n'),
    );
  });
  it('says what was decided and the state the task is in now', () => {
    const approved = run({ state: 'QUEUED', approval: gate({ status: 'approved', by: 'ops@example.com', inputs: { canary: 10, extra: 'x', ticket: 'CHG-1' }, comment: 'go' }) });
    assert.equal(decisionText('deploy', approved, 'approved'), 'task deploy approved by ops@example.com (ticket=CHG-1, canary=10, extra=x, comment "go"): now QUEUED');
    const rejected = run({ state: 'FAILED', reason: 'rejected', approval: gate({ status: 'rejected', by: 'ops@example.com' }) });
    assert.equal(decisionText('deploy', rejected, 'rejected'), 'task deploy rejected by ops@example.com: now FAILED (rejected)');
  });
  it("takes a task's latest own run, never an item of a fan-out", () => {
    const runs = [run({ id: 'a' }), run({ id: 'b', attempt: 2 }), run({ id: 'i', attempt: 3, item_index: 0 }), run({ id: 'x', task_key: 'other', attempt: 5 })];
    assert.equal(latestRun(runs, 'deploy')?.id, 'b');
    assert.equal(latestRun(runs, 'nope'), undefined);
  });
  it('says who paused an execution and since when', () => {
    assert.equal(pausedText({ paused: true, paused_by: 'ops@example.com', paused_at: '2026-12-06T18:00:00.000Z' }), 'paused by ops@example.com since 2026-12-06 18:00:00');
    assert.equal(pausedText({ paused: false, paused_by: null, paused_at: null }), '');
  });
});
