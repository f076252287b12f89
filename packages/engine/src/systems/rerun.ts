// Rerun: a new execution of the same snapshot, definition, inputs and labels,
// every task running again. Restart from failed: the same, with the SUCCESS
// task runs of the original copied (reason `reused`, reused_from_id) and the
// other tasks running.
import type pg from 'pg';
import { canRerun, canRestart } from '@svc/state-machine';
import type { ExecutionRow, FollowUp } from './advance.js';
import { ExecutionNotFoundError } from './cancel.js';
import { createExecution, type StartDeps } from './start.js';

export { NotRestartableError } from '../errors.js';
import { NotRestartableError } from '../errors.js';
import { ORIGINAL_SQL } from '../sql/read-executions.js';
import { carriedPayloadFields } from '../planning/trigger-date.js';

interface Original extends ExecutionRow {
  flow_revision_id: string | null;
  snapshot_id: string;
  snapshot_version: number | null;
  git_sha: string | null;
  trigger_type: string;
}

async function original(pool: pg.Pool, id: string): Promise<Original> {
  const r = await pool.query<Original>(ORIGINAL_SQL, [id]);
  if (!r.rows[0]) throw new ExecutionNotFoundError(`no execution ${id}`);
  return r.rows[0];
}

/** What a rerun and a restart take from the original: its flow revision, snapshot, inputs and labels. */
function sameRun(o: Original) {
  return {
    namespace: o.namespace,
    flowId: o.flow_id,
    flowRevisionId: o.flow_revision_id,
    definition: o.definition,
    snapshotId: o.snapshot_id,
    snapshotVersion: o.snapshot_version,
    gitSha: o.git_sha,
    inputs: o.inputs,
    labels: o.labels,
  };
}

export async function rerunExecution(pool: pg.Pool, deps: StartDeps, id: string, actor: string): Promise<{ id: string; followUps: FollowUp[] }> {
  const o = await original(pool, id);
  if (!canRerun(o.state)) throw new NotRestartableError(`execution ${id} is ${o.state}: rerun needs FAILED, TIMED_OUT, CANCELLED or SUCCESS`);
  return createExecution(pool, deps, {
    ...sameRun(o),
    triggerType: 'rerun',
    triggerPayload: { rerun_of: id, original_trigger_type: o.trigger_type, ...carriedPayloadFields(o.trigger_payload) },
    createdBy: actor,
  });
}

export async function restartExecution(pool: pg.Pool, deps: StartDeps, id: string, actor: string): Promise<{ id: string; followUps: FollowUp[] }> {
  const o = await original(pool, id);
  if (!canRestart(o.state)) throw new NotRestartableError(`execution ${id} is ${o.state}: restart needs FAILED, TIMED_OUT or CANCELLED`);
  return createExecution(pool, deps, {
    ...sameRun(o),
    triggerType: o.trigger_type,
    triggerPayload: { restart_of: id, ...carriedPayloadFields(o.trigger_payload) },
    createdBy: actor,
    restartOfId: id,
  });
}
