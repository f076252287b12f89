// Rerun: a new execution of the same snapshot, definition, inputs and labels,
// every task running again. Restart from failed: the same, with the SUCCESS
// task runs of the original copied (reason `reused`, reused_from_id) and the
// other tasks running.
import type pg from 'pg';
import { canRerun, canRestart } from '@svc/state-machine';
import { ExecutionNotFoundError, NotRestartableError } from '../errors.js';
import { carriedPayloadFields } from '../planning/trigger-date.js';
import { original, type OriginalRow } from '../sql/read-executions.js';
import type { FollowUp } from '../types.js';
import type { Starts } from './start.js';

export { NotRestartableError } from '../errors.js';

/** The original's flow revision and snapshot: what a rerun, a restart and a pinned replay run. */
export function pinnedRun(o: OriginalRow) {
  return {
    namespace: o.namespace,
    flowId: o.flow_id,
    flowRevisionId: o.flow_revision_id,
    definition: o.definition,
    snapshotId: o.snapshot_id,
    snapshotVersion: o.snapshot_version,
    gitSha: o.git_sha,
  };
}

/** What a rerun and a restart take from the original: its flow revision, snapshot, inputs and labels. */
function sameRun(o: OriginalRow) {
  return { ...pinnedRun(o), inputs: o.inputs, labels: o.labels };
}

export class Reruns {
  constructor(
    private readonly pool: pg.Pool,
    private readonly starts: Starts,
  ) {}

  private async original(id: string): Promise<OriginalRow> {
    const o = await original(this.pool, { id });
    if (!o) throw new ExecutionNotFoundError(`no execution ${id}`);
    return o;
  }

  async rerun(id: string, actor: string): Promise<{ id: string; followUps: FollowUp[] }> {
    const o = await this.original(id);
    if (!canRerun(o.state)) throw new NotRestartableError(`execution ${id} is ${o.state}: rerun needs FAILED, TIMED_OUT, CANCELLED or SUCCESS`);
    return this.starts.create({
      ...sameRun(o),
      triggerType: 'rerun',
      triggerPayload: { rerun_of: id, original_trigger_type: o.trigger_type, ...carriedPayloadFields(o.trigger_payload) },
      createdBy: actor,
    });
  }

  async restart(id: string, actor: string): Promise<{ id: string; followUps: FollowUp[] }> {
    const o = await this.original(id);
    if (!canRestart(o.state)) throw new NotRestartableError(`execution ${id} is ${o.state}: restart needs FAILED, TIMED_OUT or CANCELLED`);
    return this.starts.create({
      ...sameRun(o),
      triggerType: o.trigger_type,
      triggerPayload: { restart_of: id, ...carriedPayloadFields(o.trigger_payload) },
      createdBy: actor,
      restartOfId: id,
    });
  }
}
