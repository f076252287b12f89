// The runner protocol (/api/runner/v1/task-runs/{id}/...): what `svc exec`
// uses from inside a container. Each call carries a run token scoped to its
// task run and checked by signature alone.
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import type { Operation, RunnerCompletion, RunnerHeartbeatResponse, RunnerLogsRequest, RunnerSpec } from '@svc/api-spec';
import type { Db } from '@svc/db';
import {
  appendLogs,
  completeTaskRun,
  DispatchError,
  heartbeatTaskRun,
  prepareTask,
  runFollowUps,
  storeArtifact,
  verifyRunToken,
  type SpecDeps,
  type StartDeps,
} from '@svc/engine';
import { HttpError, notFound, reply, unauthorized, type HandlerContext, type OperationHandlers } from '@svc/http';
import { ensureBundle } from '@svc/namespaces';
import type { ObjectStore } from '@svc/storage';

export interface RunnerRouteDeps {
  db: Db;
  storage: ObjectStore;
  now: () => Date;
  runTokenKey: () => Promise<Buffer>;
  spec: Omit<SpecDeps, 'pool' | 'storage'>;
  engine: StartDeps;
}

export function runnerAuthenticator(deps: Pick<RunnerRouteDeps, 'runTokenKey' | 'now'>) {
  return async (req: Request, _op: Operation) => {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const taskRunId = req.params.taskRunId ?? '';
    if (!m || !verifyRunToken(await deps.runTokenKey(), m[1]!, String(taskRunId), deps.now())) throw unauthorized('invalid run token');
    return { role: 'viewer' as const, taskRunId };
  };
}

type Ctx = HandlerContext<{ taskRunId: string }>;

async function readRaw(req: Request, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > limit) throw new HttpError(413, 'too_large', `the artifact is over SVC_MAX_ARTIFACT_BYTES (${limit} bytes)`);
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

export function runnerHandlers(deps: RunnerRouteDeps): OperationHandlers<{ taskRunId: string }> {
  const { db } = deps;
  const snapshotOf = async (taskRunId: string) => {
    const r = await db.pool.query<{ snapshot_id: string }>(`SELECT e.snapshot_id FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE t.id = $1`, [taskRunId]);
    if (!r.rows[0]) throw notFound(`no task run ${taskRunId}`);
    return r.rows[0].snapshot_id;
  };
  return {
    async runnerGetSpec({ params }: Ctx): Promise<RunnerSpec> {
      const id = params.taskRunId as string;
      const snap = await snapshotOf(id);
      try {
        const prepared = await prepareTask({ ...deps.spec, pool: db.pool, storage: deps.storage }, id, async () => (await ensureBundle(db.pool, deps.storage, snap, deps.now())).hash);
        return prepared.spec;
      } catch (err) {
        if (err instanceof DispatchError) {
          const r = await completeTaskRun(db.pool, id, { state: 'FAILED', reason: err.reason, error: err.message, exitCode: null }, deps.now);
          await runFollowUps(db.pool, deps.engine, r.followUps);
          throw new HttpError(409, 'conflict', `the task run cannot start: ${err.message}`);
        }
        throw err;
      }
    },

    async runnerGetBundle({ params, res }: Ctx) {
      const b = await ensureBundle(db.pool, deps.storage, await snapshotOf(params.taskRunId as string), deps.now());
      res.setHeader('Content-Type', 'application/gzip');
      res.setHeader('Content-Length', String(b.size));
      // The handler writes the response itself: finish it before returning.
      await pipeline(await deps.storage.get(b.key), res);
    },

    async runnerHeartbeat({ params }: Ctx): Promise<RunnerHeartbeatResponse> {
      // The database's clock: the watchdog judges the heartbeat against it, not against this gateway's clock.
      const hb = await heartbeatTaskRun(db.pool, params.taskRunId as string);
      return { cancel: hb.cancel };
    },

    async runnerPostLogs({ params, body }: Ctx) {
      // The body was validated against RunnerLogsRequest by the operation's schema.
      const { lines } = body as RunnerLogsRequest;
      const stored = await appendLogs(
        db.pool,
        params.taskRunId as string,
        lines.map((l, i) => ({ n: l.n ?? i + 1, ts: l.ts ?? String(BigInt(Date.now()) * 1_000_000n), stream: l.stream, text: l.text })),
      );
      return { stored };
    },

    runnerPostEvents: () => reply(202, { accepted: true }),

    async runnerPutArtifact({ params, req }: Ctx) {
      const body = await readRaw(req, deps.spec.maxArtifactBytes);
      const a = await storeArtifact(db.pool, deps.storage, params.taskRunId as string, String(params.name), body, String(req.headers['content-type'] ?? 'application/octet-stream'));
      return reply(201, a);
    },

    async runnerComplete({ params, body }: Ctx) {
      // The body was validated against RunnerCompleteRequest by the operation's schema.
      const c = body as RunnerCompletion;
      const state = c.state ?? (c.exit_code === 0 ? 'SUCCESS' : 'FAILED');
      const r = await completeTaskRun(db.pool, params.taskRunId as string, { state, reason: c.reason ?? '', error: c.error ?? '', exitCode: c.exit_code ?? null, outputs: c.outputs, metrics: c.metrics }, deps.now, { storage: deps.storage, masking: { masterKeys: deps.spec.masterKeys } });
      await runFollowUps(db.pool, deps.engine, r.followUps);
      return { accepted: r.ended };
    },
  };
}
