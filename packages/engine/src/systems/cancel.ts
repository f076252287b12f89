// Cancel, per the spec's table: QUEUED → CANCELLED at once; RUNNING →
// CANCELLING (pending and queued task runs are cancelled, running ones are
// stopped by their dispatchers, then CANCELLED); CANCELLING → no change; an
// ended execution → ExecutionEndedError (409 execution_ended). The children a
// cancelled execution waits for are cancelled too.
import type pg from 'pg';
import { nextExecutionState, type ExecutionState } from '@svc/state-machine';
import { advance, endExecution, lockExecution } from './advance.js';
import { CHANNELS } from '../channels.js';
import { inTx, type Conn } from '../db.js';
import { ExecutionEndedError, ExecutionNotFoundError } from '../errors.js';
import { requestCancel, waitedChildren } from '../sql/cancel.js';
import { insertHistory, notify } from '../sql/history.js';
import { executionState } from '../sql/read-executions.js';
import type { FollowUp } from '../types.js';
import { recordFollowUps } from './outbox.js';

export { ExecutionEndedError, ExecutionNotFoundError } from '../errors.js';

export class Cancels {
  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => Date,
  ) {}

  /** Cancels execution `id` for `actor` (on the pool, or in the caller's transaction): its state after, and the follow-ups to run. */
  async cancel(id: string, actor: string, db: Conn = this.pool): Promise<{ state: ExecutionState; followUps: FollowUp[] }> {
    return inTx(db, async (c) => {
      const ex = await lockExecution(c, id);
      if (!ex) throw new ExecutionNotFoundError(`no execution ${id}`);
      const t = nextExecutionState(ex.state, 'cancel');
      if (!t.ok) throw new ExecutionEndedError(`execution ${id} has ended (${ex.state})`);
      const at = this.now();
      if (ex.state === 'CANCELLING') return { state: 'CANCELLING', followUps: [] };
      if (ex.state === 'QUEUED') return { state: 'CANCELLED', followUps: await endExecution(c, ex, { state: 'CANCELLED', reason: 'cancelled', error: '' }, at) };
      await requestCancel(c, { id, at, actor });
      await insertHistory(c, { rows: [{ executionId: id, from: ex.state, to: 'CANCELLING', actor }], at });
      await notify(c, { channel: CHANNELS.stop, payload: id });
      const follow = await advance(c, { ...ex, state: 'CANCELLING' }, at);
      const state = (await executionState(c, { id }))!;
      return { state, followUps: [...follow, ...(await recordFollowUps(c, [{ kind: 'stop_children', executionId: id }]))] };
    });
  }

  /** Children execution `id` waits for (their subflow task run is RUNNING) that have not ended. */
  waitedChildren(id: string, db: Conn = this.pool): Promise<string[]> {
    return waitedChildren(db, { id });
  }
}
