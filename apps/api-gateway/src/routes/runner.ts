// The runner protocol (/api/runner/v1/task-runs/{id}/...): what `svc exec`
// uses from inside a container. Each call carries a run token scoped to its
// task run and checked by signature alone.
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import type { RunnerHeartbeatResponse, RunnerSpec } from '@svc/api-spec';
import type { Engine, IncomingLogLine } from '@svc/engine';
import { HttpError, notFound, reply, unauthorized, type HandlerContext, type OperationHandlers } from '@svc/http';
import { ObjectNotFoundError } from '@svc/storage';
import type { Answer } from '@svc/api-spec';
import { SHA256_HEADER, streamedUpload } from './upload-body.js';

export interface RunnerRouteDeps {
  engine: Engine;
  /** SVC_MAX_ARTIFACT_BYTES: the largest artifact (413 `too_large` beyond). */
  maxArtifactBytes: number;
}

export function runnerAuthenticator(engine: Engine) {
  return async (req: Request) => {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const taskRunId = String(req.params.taskRunId ?? '');
    if (!m || !(await engine.runner.verifyToken(m[1], taskRunId))) throw unauthorized('invalid run token');
    return { role: 'viewer' as const, taskRunId };
  };
}

type Ctx = HandlerContext<{ taskRunId: string }>;

export function runnerHandlers(deps: RunnerRouteDeps) {
  const { engine } = deps;
  /**
   * A run token stays valid until its expiry (the task's timeout plus a grace),
   * but the spec (the rendered env and the secret values to mask) and the
   * bundle are for starting the task: once the run has ended (done, cancelled
   * while a container was still starting, timed out) they are refused.
   */
  const assertRunning = async (taskRunId: string) => {
    if (!(await engine.dispatch.stillRunning([taskRunId])).length) throw new HttpError(409, 'conflict', 'the task run is not running: the runner should stop');
  };
  return {
    // A task run that cannot be prepared is ended FAILED by the engine, and the runner gets 409 (TaskRunNotStartableError).
    async runnerGetSpec({ params }): Promise<RunnerSpec> {
      await assertRunning(params.taskRunId);
      return (await engine.runner.prepare(params.taskRunId)).spec;
    },

    async runnerGetBundle({ params, res }) {
      await assertRunning(params.taskRunId);
      const b = await engine.runner.bundle(await engine.runner.snapshotOfTaskRun(params.taskRunId));
      res.setHeader('Content-Type', 'application/gzip');
      res.setHeader('Content-Length', String(b.size));
      // The handler writes the response itself: finish it before returning.
      await pipeline(b.stream, res);
    },

    // On the database's clock: the watchdog judges the heartbeat against it, not against this gateway's clock.
    runnerHeartbeat: async ({ params }: Ctx): Promise<RunnerHeartbeatResponse> => ({ cancel: (await engine.runner.heartbeat(params.taskRunId)).cancel }),

    async runnerPostLogs({ params, body }) {
      // The body was validated against RunnerLogsRequest by the operation's schema.
      const { lines } = body;
      // The parsed body is this request's own: its lines are completed in place rather than copied (a batch may hold 10,000).
      // A line without `n` gets its position in the batch, one without `ts` the time of arrival.
      let arrival: string | undefined;
      const complete: IncomingLogLine[] = new Array<IncomingLogLine>(lines.length);
      for (let i = 0; i < lines.length; i++) {
        const l = lines[i];
        complete[i] = Object.assign(l, { n: l.n ?? i + 1, ts: l.ts ?? (arrival ??= String(BigInt(Date.now()) * 1_000_000n)) });
      }
      await engine.runner.appendLogs(params.taskRunId, complete);
      // 204 (the catalog's answer): a retried batch is stored once, so the runner needs no count.
      return undefined;
    },

    async runnerPostEvents({ params, body }) {
      // The body was validated against RunnerEventsRequest by the operation's schema.
      const e = body;
      if (!(await engine.runner.event(params.taskRunId, { type: e.type, message: e.message, percent: e.percent }))) {
        throw new HttpError(409, 'conflict', 'the task run is not running: the runner should stop');
      }
      return undefined;
    },

    // Streamed to the object store, counted and hashed on the way (RunnerIo.storeArtifact): the gateway holds
    // one chunk at a time whatever the size. Past the limit (413) or with another sha256 than declared (422), nothing is kept.
    async runnerPutArtifact({ params, req, query }) {
      const limit = deps.maxArtifactBytes;
      const name = String(params.name);
      const { body, sha256 } = streamedUpload(req, { name, limit, setting: 'SVC_MAX_ARTIFACT_BYTES' });
      const stored = await engine.runner.storeArtifact(params.taskRunId, name, body, {
        contentType: String(req.headers['content-type'] ?? 'application/octet-stream'),
        kind: query.kind,
        maxBytes: limit,
        ...(sha256 !== undefined ? { sha256 } : {}),
      });
      return reply(201, stored);
    },

    // Only a file of the run's own execution: any other id (another execution's, another namespace's) is unknown here.
    // Streamed from the object store; the runner checks the size and sha256 against its spec (docs/using/files.md).
    async runnerGetFile({ params, res }) {
      await assertRunning(params.taskRunId);
      let f: Awaited<ReturnType<Engine['runner']['file']>>;
      try {
        f = await engine.runner.file(params.taskRunId, params.artifactId);
      } catch (err) {
        if (err instanceof ObjectNotFoundError) throw notFound(`the content of file ${params.artifactId} is gone from the object store`);
        throw err;
      }
      if (!f) throw notFound(`no file ${params.artifactId} for this task run`);
      res.status(200);
      res.setHeader('Content-Type', 'application/octet-stream');
      res.setHeader('Content-Length', String(f.size));
      res.setHeader(SHA256_HEADER, f.sha256);
      await pipeline(f.stream, res);
    },

    async runnerComplete({ params, body }) {
      // The body was validated against RunnerCompleteRequest by the operation's schema.
      const c = body;
      const state = c.state ?? (c.exit_code === 0 ? 'SUCCESS' : 'FAILED');
      // From the task: masked against the secrets the run resolved.
      const ended = await engine.runner.complete(
        params.taskRunId,
        { state, reason: c.reason ?? '', error: c.error ?? '', exitCode: c.exit_code ?? null, outputs: c.outputs, metrics: c.metrics },
        { fromTask: true },
      );
      return { accepted: ended } satisfies Answer<'runnerComplete'>;
    },
  } satisfies OperationHandlers<{ taskRunId: string }>;
}
