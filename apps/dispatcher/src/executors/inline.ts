// The inline executor, always on: `http` tasks (a request from the
// dispatcher) and `subflow` tasks (a child execution).
import type { ClaimedRun, TaskCompletion } from '@svc/engine';
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
    // A string template of the flow schema, rendered by the engine.
    const body = f.body as string | undefined;
    try {
      const res = await fetchFollowing(String(f.url), {
        method: String(f.method),
        headers: f.headers as Record<string, string>,
        body: body === undefined || f.method === 'GET' || f.method === 'HEAD' ? undefined : body,
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
      return {
        state: 'FAILED',
        reason: 'unexpected_status',
        error: `HTTP ${res.status} from ${String(f.method)} ${String(f.url)} is not an expected status`,
        exitCode: null,
        outputs,
      };
    } catch (err) {
      if (timeout.aborted) return { state: 'TIMED_OUT', reason: 'timeout', error: `no answer within ${timeoutSeconds} s`, exitCode: null };
      if (signal.aborted) return { state: 'CANCELLED', reason: 'cancelled', error: '', exitCode: null };
      return {
        state: 'FAILED',
        reason: 'http_error',
        error: `${String(f.method)} ${String(f.url)} failed: ${(err as Error).cause ? String((err as Error & { cause: Error }).cause.message) : (err as Error).message}`,
        exitCode: null,
      };
    }
  }

  return {
    type: 'inline',
    async run(run: ClaimedRun, signal: AbortSignal) {
      const prepared = await ctx.engine.prepare(run);
      if (!prepared) return;
      const f = prepared.inline;
      const done =
        prepared.task.type === 'http'
          ? await http(run, f, prepared.spec.timeout_seconds, signal)
          : await ctx.engine.startSubflow(run, { flow: String(f.flow), inputs: f.inputs as Record<string, unknown>, wait: Boolean(f.wait) }, prepared.execution);
      // What an http task returns is the remote server's: masked like a task's own report.
      if (done) await ctx.engine.complete(run.id, done, { fromTask: true });
    },
  };
}
