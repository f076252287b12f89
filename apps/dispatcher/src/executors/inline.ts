// The inline executor, always on: `http` tasks (a request from the
// dispatcher) and `subflow` tasks (a child execution).
import { MAX_CHAIN_DEPTH, runFollowUps, triggerFlow, type ClaimedRun, type TaskCompletion } from '@svc/engine';
import type { DispatcherContext } from '../context.js';
import { fetchFollowing } from './redirects.js';
import type { Executor } from './types.js';

/** Response bodies kept in outputs (bytes); longer ones are cut and flagged. */
export const HTTP_BODY_LIMIT = 64 * 1024;

function expected(status: number, expect: number[] | null): boolean {
  return expect ? expect.includes(status) : status >= 200 && status <= 299;
}

export function inlineExecutor(ctx: DispatcherContext): Executor {

  async function http(run: ClaimedRun, f: Record<string, unknown>, timeoutSeconds: number, signal: AbortSignal): Promise<TaskCompletion> {
    const timeout = AbortSignal.timeout(timeoutSeconds * 1000);
    const both = AbortSignal.any([signal, timeout]);
    try {
      const res = await fetchFollowing(String(f.url), {
        method: String(f.method),
        headers: f.headers as Record<string, string>,
        body: f.body === undefined || f.method === 'GET' || f.method === 'HEAD' ? undefined : String(f.body),
        signal: both,
      });
      const buf = Buffer.from(await res.arrayBuffer());
      const outputs = {
        status: res.status,
        headers: Object.fromEntries(res.headers.entries()),
        body: buf.subarray(0, HTTP_BODY_LIMIT).toString('utf8'),
        ...(buf.length > HTTP_BODY_LIMIT ? { body_truncated: true } : {}),
      };
      if (expected(res.status, f.expect_status as number[] | null)) return { state: 'SUCCESS', reason: '', error: '', exitCode: null, outputs };
      return { state: 'FAILED', reason: 'unexpected_status', error: `HTTP ${res.status} from ${String(f.method)} ${String(f.url)} is not an expected status`, exitCode: null, outputs };
    } catch (err) {
      if (timeout.aborted) return { state: 'TIMED_OUT', reason: 'timeout', error: `no answer within ${timeoutSeconds} s`, exitCode: null };
      if (signal.aborted) return { state: 'CANCELLED', reason: 'cancelled', error: '', exitCode: null };
      return { state: 'FAILED', reason: 'http_error', error: `${String(f.method)} ${String(f.url)} failed: ${(err as Error).cause ? String((err as Error & { cause: Error }).cause.message) : (err as Error).message}`, exitCode: null };
    }
  }

  async function subflow(run: ClaimedRun, f: Record<string, unknown>, ex: { id: string; chain_depth: number }): Promise<TaskCompletion | null> {
    if (ex.chain_depth + 1 > MAX_CHAIN_DEPTH) {
      return { state: 'FAILED', reason: 'chain_depth_exceeded', error: `subflow nesting would exceed ${MAX_CHAIN_DEPTH} levels (a flow that calls itself?)`, exitCode: null };
    }
    const [ns, flowId] = String(f.flow).split('/');
    let child;
    try {
      child = await triggerFlow(ctx.db.pool, ctx.engine, {
        namespace: ns!, flowId: flowId!, inputs: f.inputs as Record<string, unknown>, triggerType: 'subflow', triggerPayload: { parent_execution_id: ex.id, parent_task_run_id: run.id },
        createdBy: `execution:${ex.id}`, parentExecutionId: ex.id, parentTaskRunId: f.wait ? run.id : undefined, chainDepth: ex.chain_depth + 1,
      });
    } catch (err) {
      return { state: 'FAILED', reason: 'subflow_error', error: `cannot start ${String(f.flow)}: ${(err as Error).message}`, exitCode: null };
    }
    await ctx.db.pool.query(`UPDATE task_runs SET child_execution_id = $2 WHERE id = $1`, [run.id, child.id]);
    await runFollowUps(ctx.db.pool, ctx.engine, child.followUps);
    if (!f.wait) return { state: 'SUCCESS', reason: '', error: '', exitCode: null, outputs: { execution_id: child.id } };
    // wait: the child's end completes this task run (engine follow-up), unless it has ended already.
    const st = (await ctx.db.pool.query<{ state: string }>(`SELECT state FROM executions WHERE id = $1`, [child.id])).rows[0]!.state;
    if (['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'].includes(st)) {
      await runFollowUps(ctx.db.pool, ctx.engine, [{ kind: 'child_ended', parentTaskRunId: run.id, childExecutionId: child.id }]);
    }
    return null;
  }

  return {
    type: 'inline',
    async run(run: ClaimedRun, signal: AbortSignal) {
      const prepared = await ctx.prepare(run);
      if (!prepared) return;
      const done =
        prepared.task.type === 'http'
          ? await http(run, prepared.inline, prepared.spec.timeout_seconds, signal)
          : await subflow(run, prepared.inline, prepared.execution);
      if (done) await ctx.finish(run.id, done);
    },
  };
}
