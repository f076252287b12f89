// What runners send while a task runs besides log lines (log-appender.ts):
// artifacts, heartbeats (whose answer tells the runner to stop when its
// execution is being cancelled or has ended) and runner events.
import crypto from 'node:crypto';
import type pg from 'pg';
import { newId } from '@svc/db';
import type { MasterKey } from '@svc/config';
import { CHANNELS } from '../channels.js';
import { ArtifactChecksumMismatchError, ArtifactTooLargeError } from '../errors.js';
import type { EngineStorage } from '../resources.js';
import { artifactTaskRun, heartbeat, recordProgress, runnerFile, runSecrets, upsertArtifact } from '../sql/runner-io.js';
import type { IncomingLogLine, RunnerEvent, TaskRunIdentity } from '../types.js';
import { LogAppender } from './log-appender.js';
import { recordedValues, SecretMasker } from './secret-masking.js';

export type { IncomingLogLine, RunnerEvent, TaskRunIdentity } from '../types.js';

/**
 * Object key of an artifact. Artifact names are the task's relative paths and
 * may hold any character; object keys may not, so the key uses a hash of the
 * name (the name itself is kept in the row).
 */
export const artifactKey = (executionId: string, taskRunId: string, name: string, kind: ArtifactKind = 'artifact') =>
  `artifacts/${executionId}/${taskRunId}/${crypto
    .createHash('sha256')
    .update(kind === 'artifact' ? name : `${kind}:${name}`)
    .digest('hex')
    .slice(0, 40)}`;

/** `artifact`: left in $SVC_ARTIFACTS_DIR; `output`: matched by the task's `output_files` (docs/using/files.md). */
export type ArtifactKind = 'artifact' | 'output';
export const ARTIFACT_KINDS: readonly ArtifactKind[] = ['artifact', 'output'];

export interface StoreArtifactOptions {
  /** Stored with the object and the row. Default `application/octet-stream`. */
  contentType?: string;
  /** Default `artifact`. */
  kind?: ArtifactKind;
  /** Largest body in bytes: a longer one fails with ArtifactTooLargeError as soon as it passes, and nothing is stored. Default: no limit. */
  maxBytes?: number;
  /** The setting `maxBytes` comes from, named in the error. Default `SVC_MAX_ARTIFACT_BYTES`. */
  limitSetting?: string;
  /** The sha256 (hex) the sender declared: bytes with another fail with ArtifactChecksumMismatchError, and nothing is stored. Default: not checked. */
  sha256?: string;
}

/**
 * The body as it passes to the object store, counted and hashed on the way.
 * Its failures are thrown from inside the body, so the store's all-or-nothing
 * put (packages/storage) keeps nothing of it: the limit as soon as it is
 * passed, the checksum after the last byte and before the put commits.
 */
export async function* metered(name: string, body: Buffer | AsyncIterable<Buffer | string>, opts: StoreArtifactOptions, seen: { size: number; sha256: string }) {
  const hash = crypto.createHash('sha256');
  const limit = opts.maxBytes !== undefined && opts.maxBytes > 0 ? opts.maxBytes : Infinity;
  for await (const piece of Buffer.isBuffer(body) ? [body] : body) {
    const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
    seen.size += chunk.length;
    if (seen.size > limit) throw new ArtifactTooLargeError(name, limit, opts.limitSetting ?? 'SVC_MAX_ARTIFACT_BYTES');
    hash.update(chunk);
    yield chunk;
  }
  seen.sha256 = hash.digest('hex');
  if (opts.sha256 !== undefined && opts.sha256.toLowerCase() !== seen.sha256) throw new ArtifactChecksumMismatchError(name, opts.sha256, seen.sha256);
}

/** What runners send while a task runs: log lines, artifacts, heartbeats, events. */
export class RunnerIo {
  /** Batches of one execution share their statements (log-appender.ts). */
  private readonly logs: LogAppender;

  constructor(
    private readonly pool: pg.Pool,
    private readonly storage: Pick<EngineStorage, 'put'> & Partial<Pick<EngineStorage, 'get'>>,
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
   * Stores one artifact or output file, streamed to the object store with its
   * size and sha256 computed on the way (memory stays flat whatever its
   * size), and then its row. Idempotent per (task run, kind, name): the object
   * key derives from them, and a repeated upload (a retry after a failure the
   * uploader could not see succeed) replaces the object and updates the one
   * row, keeping its id. Over `maxBytes` or with another sha256 than the
   * sender declared, nothing is stored (ArtifactTooLargeError,
   * ArtifactChecksumMismatchError).
   */
  async storeArtifact(
    taskRunId: string,
    name: string,
    body: Buffer | AsyncIterable<Buffer | string>,
    opts: StoreArtifactOptions = {},
  ): Promise<{ id: string; size: number; sha256: string }> {
    const tr = await artifactTaskRun(this.pool, { taskRunId });
    if (!tr) throw new Error(`no task run ${taskRunId}`);
    const kind = opts.kind ?? 'artifact';
    const contentType = opts.contentType ?? 'application/octet-stream';
    const key = artifactKey(tr.execution_id, taskRunId, name, kind);
    const seen = { size: 0, sha256: '' };
    await this.storage.put(key, metered(name, body, opts, seen), { contentType });
    const id = await upsertArtifact(this.pool, {
      id: newId(),
      executionId: tr.execution_id,
      taskRunId,
      name,
      objectKey: key,
      size: seen.size,
      contentType,
      sha256: seen.sha256,
      kind,
    });
    return { id, size: seen.size, sha256: seen.sha256 };
  }

  /**
   * A file task run `taskRunId` may read (runnerGetFile): an output file or a
   * file input of its own execution, streamed from the object store with the
   * size and sha256 recorded when it was stored; null for any other id (of
   * another execution or namespace, an artifact, unknown). A missing object
   * is ObjectNotFoundError from the store.
   */
  async file(taskRunId: string, artifactId: string): Promise<{ name: string; size: number; sha256: string; stream: NodeJS.ReadableStream } | null> {
    const row = await runnerFile(this.pool, { taskRunId, artifactId });
    if (!row) return null;
    if (!this.storage.get) throw new Error('no object store to read files from');
    return { name: row.name, size: Number(row.size), sha256: row.sha256, stream: await this.storage.get(row.object_key) };
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
