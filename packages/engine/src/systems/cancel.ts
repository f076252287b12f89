// Cancel, per the spec's table: QUEUED → CANCELLED at once; RUNNING →
// CANCELLING (pending and queued task runs are cancelled, running ones are
// stopped by their dispatchers, then CANCELLED); CANCELLING → no change; an
// ended execution → ExecutionEndedError (409 execution_ended). The children a
// cancelled execution waits for are cancelled too.
import { nextExecutionState, type ExecutionState } from '@svc/state-machine';
import { advance, endExecution, lockExecution, type FollowUp } from './advance.js';
import { CHANNELS, history, inTx, notify, type Conn } from '../db.js';
import { recordFollowUps } from './outbox.js';
import { REQUEST_CANCEL_SQL, WAITED_CHILDREN_SQL } from '../sql/cancel.js';
import { EXECUTION_STATE_SQL } from '../sql/read-executions.js';

export { ExecutionEndedError, ExecutionNotFoundError } from '../errors.js';
import { ExecutionEndedError, ExecutionNotFoundError } from '../errors.js';

export async function cancelExecution(pool: Conn, id: string, actor: string, now: () => Date): Promise<{ state: ExecutionState; followUps: FollowUp[] }> {
  return inTx(pool, async (c) => {
    const ex = await lockExecution(c, id);
    if (!ex) throw new ExecutionNotFoundError(`no execution ${id}`);
    const t = nextExecutionState(ex.state, 'cancel');
    if (!t.ok) throw new ExecutionEndedError(`execution ${id} has ended (${ex.state})`);
    const at = now();
    if (ex.state === 'CANCELLING') return { state: 'CANCELLING', followUps: [] };
    if (ex.state === 'QUEUED') return { state: 'CANCELLED', followUps: await endExecution(c, ex, { state: 'CANCELLED', reason: 'cancelled', error: '' }, at) };
    await c.query(REQUEST_CANCEL_SQL, [id, at, actor]);
    await history(c, [{ executionId: id, from: ex.state, to: 'CANCELLING', actor }], at);
    await notify(c, CHANNELS.stop, id);
    const follow = await advance(c, { ...ex, state: 'CANCELLING' }, at);
    const state = (await c.query<{ state: ExecutionState }>(EXECUTION_STATE_SQL, [id])).rows[0].state;
    return { state, followUps: [...follow, ...(await recordFollowUps(c, [{ kind: 'stop_children', executionId: id }]))] };
  });
}

/** Children this execution waits for (their subflow task run is RUNNING) that have not ended. */
export async function waitedChildren(pool: Conn, id: string): Promise<string[]> {
  const r = await pool.query<{ id: string }>(WAITED_CHILDREN_SQL, [id]);
  return r.rows.map((x) => x.id);
}
