// The inline executor, always on: `http` tasks (a request from the
// dispatcher, through the address guard of http-task-guard.ts) and
// `subflow` tasks (a child execution).
import type { ClaimedRun, TaskCompletion } from '@svc/engine';
import { RefusedTarget, type Resolve } from '@svc/net-guard';
import type { DispatcherContext } from '../context.js';
import { httpTaskGuard } from './http-task-guard.js';
import { fetchFollowing } from './redirects.js';
import type { Executor } from './types.js';

/** Response bodies kept in outputs (bytes); longer ones are cut and flagged. */
export const HTTP_BODY_LIMIT = 64 * 1024;

function expected(status: number, expect: number[] | null): boolean {
  return expect ? expect.includes(status) : status >= 200 && status <= 299;
}

/** The RefusedTarget behind a failed request (fetch wraps a connection's error as its cause), if it was one. */
function refusalOf(err: unknown): RefusedTarget | undefined {
  for (let e = err; e instanceof Error; e = (e as Error & { cause?: unknown }).cause) if (e instanceof RefusedTarget) return e;
  return undefined;
}

/** `resolve`: the host name lookup of the address guard (tests map their own names); default the system's. */
export function inlineExecutor(ctx: DispatcherContext, opts: { resolve?: Resolve } = {}): Executor {
  const guard = httpTaskGuard(ctx.config, opts.resolve);
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
        dispatcher: guard.agent,
        policy: guard.policy,
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
      const refused = refusalOf(err);
      if (refused) {
        // The host and the address, never the URL's path or query (a rendered secret may sit there).
        return { state: 'FAILED', reason: 'http_error', error: `${String(f.method)} to host ${hostOf(String(f.url))} refused: ${refused.message}`, exitCode: null };
      }
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
    close() {
      void guard.agent.close();
    },
    async run(run: ClaimedRun, signal: AbortSignal) {
      const prepared = await ctx.engine.dispatch.prepare(run);
      if (!prepared) return;
      const f = prepared.inline;
      const done =
        prepared.task.type === 'http'
          ? await http(run, f, prepared.spec.timeout_seconds, signal)
          : await ctx.engine.dispatch.startSubflow(run, { flow: String(f.flow), inputs: f.inputs as Record<string, unknown>, wait: Boolean(f.wait) }, prepared.execution);
      // What an http task returns is the remote server's: masked like a task's own report.
      if (done) await ctx.engine.runner.complete(run.id, done, { fromTask: true });
    },
  };
}

/** The host[:port] of a URL, or the text when it is no URL. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
