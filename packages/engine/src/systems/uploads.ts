// File inputs (docs/using/files.md): a file is uploaded to a namespace first
// (createUpload), streamed to the object store with its size and sha256
// computed on the way, then named by its id as the value of an input of
// `type: file`. Unused uploads expire.
import type pg from 'pg';
import { newId } from '@svc/db';
import type { EngineStorage } from '../resources.js';
import { insertUpload, type UploadRow } from '../sql/uploads.js';
import { metered } from './runner-io.js';

/** How long an upload waits for the execution that uses it. */
export const UPLOAD_TTL_MS = 24 * 3_600_000;

/** Object key of an upload: the name is kept in the row only. */
export const uploadKey = (namespace: string, id: string) => `uploads/${encodeURIComponent(namespace)}/${id}`;

export interface CreateUploadOptions {
  /** SVC_MAX_INPUT_FILE_BYTES: past it ArtifactTooLargeError, and nothing is kept. */
  maxBytes: number;
  /** The sha256 (hex) the sender declared: other bytes are ArtifactChecksumMismatchError, and nothing is kept. */
  sha256?: string;
  /** The user who uploaded it. */
  by?: string | null;
}

export class Uploads {
  constructor(
    private readonly pool: pg.Pool,
    private readonly storage: Pick<EngineStorage, 'put'>,
  ) {}

  /** Stores an upload of `namespace` named `name`, streamed; its row once the object is stored. */
  async create(namespace: string, name: string, body: AsyncIterable<Buffer | string>, opts: CreateUploadOptions): Promise<UploadRow> {
    const id = newId();
    const key = uploadKey(namespace, id);
    const seen = { size: 0, sha256: '' };
    await this.storage.put(key, metered(name, body, { maxBytes: opts.maxBytes, limitSetting: 'SVC_MAX_INPUT_FILE_BYTES', ...(opts.sha256 ? { sha256: opts.sha256 } : {}) }, seen), {
      contentType: 'application/octet-stream',
    });
    return insertUpload(this.pool, {
      id,
      namespace,
      name,
      objectKey: key,
      size: seen.size,
      sha256: seen.sha256,
      createdBy: opts.by ?? null,
      ttlMs: UPLOAD_TTL_MS,
    });
  }
}
