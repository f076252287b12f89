// What runners send while a task runs besides log lines (log-appender.ts):
// artifacts, heartbeats (whose answer tells the runner to stop when its
// execution is being cancelled or has ended) and runner events.
import crypto from 'node:crypto';
import type pg from 'pg';
import { newId } from '@svc/db';
import type { MasterKey } from '@svc/config';
import { CHANNELS } from '../channels.js';
import type { EngineStorage } from '../resources.js';
import { artifactTaskRun, heartbeat, recordProgress, runSecrets, upsertArtifact } from '../sql/runner-io.js';
import type { IncomingLogLine, RunnerEvent, TaskRunIdentity } from '../types.js';
import { LogAppender } from './log-appender.js';
import { recordedValues, SecretMasker } from './secret-masking.js';

export type { IncomingLogLine, RunnerEvent, TaskRunIdentity } from '../types.js';

/**
 * Object key of an artifact. Artifact names are the task's relative paths and
 * may hold any character; object keys may not, so the key uses a hash of the
 * name (the name itself is kept in the row).
 */
export const artifactKey = (executionId: string, taskRunId: string, name: string) =>
  `artifacts/${executionId}/${taskRunId}/${crypto.createHash('sha256').update(name).digest('hex').slice(0, 40)}`;

/** What runners send while a task runs: log lines, artifacts, heartbeats, events. */
export class RunnerIo {
  /** Batches of one execution share their statements (log-appender.ts). */
  private readonly logs: LogAppender;

  constructor(
    private readonly pool: pg.Pool,
    private readonly storage: Pick<EngineStorage, 'put'>,
    private readonly masterKeys: readonly MasterKey[],
  ) {
    this.logs = new LogAppender(pool);
  }

  /**
   * Stores a batch of log lines (see LogAppender): resolves once they are
   * committed, with the lines newly stored (a line already stored under its
   * `n` is skipped, so a retried batch is stored once).
   */
  appendLogs(taskRunId: string, lines: IncomingLogLine[], who?: TaskRunIdentity): Promise<number> {
    return this.logs.append(taskRunId, lines, who);
  }

  /**
   * Stores one artifact (streamed to the object store) and its row. Idempotent
   * per (task run, name): the object key derives from both, and a repeated
   * upload (a retry after a failure the uploader could not see succeed)
   * replaces the object and updates the one row, keeping its id.
   */
  async storeArtifact(taskRunId: string, name: string, body: Buffer, contentType = 'application/octet-stream'): Promise<{ id: string; size: number }> {
    const tr = await artifactTaskRun(this.pool, { taskRunId });
    if (!tr) throw new Error(`no task run ${taskRunId}`);
    const key = artifactKey(tr.execution_id, taskRunId, name);
    await this.storage.put(key, body, { contentType, size: body.length });
    const id = await upsertArtifact(this.pool, {
      id: newId(),
      executionId: tr.execution_id,
      taskRunId,
      name,
      objectKey: key,
      size: body.length,
      contentType,
      sha256: crypto.createHash('sha256').update(body).digest('hex'),
    });
    return { id, size: body.length };
  }

  /**
   * Records a runner heartbeat; `cancel` is true when the task run should stop.
   * @param now a test's clock; default the database's (the watchdog judges the heartbeat against it).
   */
  async heartbeat(taskRunId: string, now?: Date): Promise<{ cancel: boolean; known: boolean }> {
    const row = await heartbeat(this.pool, { taskRunId, now: now ?? null });
    if (!row) return { cancel: true, known: false };
    return { cancel: row.state !== 'RUNNING' || !['RUNNING'].includes(row.ex_state), known: true };
  }

  /**
   * Records a runner event: a heartbeat counts as one; `started` and `progress`
   * become the task run's `progress` and wake the execution's event streams.
   * Returns false when the run is not RUNNING (the event is dropped).
   */
  async event(taskRunId: string, e: RunnerEvent): Promise<boolean> {
    if (e.type === 'heartbeat') return (await this.heartbeat(taskRunId)).known;
    let message = e.message?.slice(0, 1000);
    if (message) {
      // The message comes from the task's side: masked against the secrets its run resolved, as its completion is.
      const rec = await runSecrets(this.pool, { taskRunId, running: false });
      if (rec) {
        const values = await recordedValues(this.pool, taskRunId, rec, this.masterKeys);
        message = values ? new SecretMasker(values).text(message) : '(withheld: the secrets of this run cannot be read to mask it)';
      }
    }
    const progress = { type: e.type, ...(message !== undefined ? { message } : {}), ...(e.percent !== undefined ? { percent: e.percent } : {}) };
    return recordProgress(this.pool, { taskRunId, progress, channel: CHANNELS.changed });
  }
}
