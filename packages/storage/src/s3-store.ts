import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { Client, type BucketItem } from 'minio';
import { bodyBytes, bodyChunks, guardedPut } from './body.js';
import { wrapStoreError, ObjectNotFoundError, ObjectSizeMismatchError, ObjectStoreError } from './errors.js';
import { PartReader } from './part-reader.js';
import { isValidObjectKey, validateListPrefix, validateObjectKey } from './keys.js';
import type { ObjectBody, ObjectInfo, ObjectStore, PutOptions } from './types.js';

const MiB = 1024 * 1024;
/** S3's limits on multipart uploads. */
const MIN_PART_SIZE = 5 * MiB;
const MAX_PART_SIZE = 5 * 1024 * MiB;
const MAX_PARTS = 10_000;
// AWS's bucket naming rules, which MinIO enforces too.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** 3 to 63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit. */
export function isValidBucketName(bucket: string): boolean {
  return BUCKET.test(bucket) && !bucket.includes('..');
}

export interface S3ObjectStoreOptions {
  /** Host name or IP address of the S3 endpoint. */
  endPoint: string;
  /** Default 443 with TLS, 80 without. */
  port?: number;
  /** Default true. */
  useSSL?: boolean;
  accessKey: string;
  secretKey: string;
  /** Created at first use when missing. */
  bucket: string;
  /** Default `us-east-1`; giving it spares the client a GetBucketLocation round trip. */
  region?: string;
  /**
   * Bytes held in memory per upload: a body up to this size goes up in one PUT,
   * a larger one as a multipart upload of parts this big (raised when a known
   * `size` needs more than 10,000 parts). At least 5 MiB. Default 16 MiB, which
   * allows streams of unknown size up to 160 GiB.
   */
  partSize?: number;
}

/**
 * Objects in one S3 bucket through the `minio` client, path-style.
 *
 * Uploads do not go through `Client.putObject` for streams: for a stream of
 * unknown size or one larger than its part size, minio first lists incomplete
 * multipart uploads (ListMultipartUploads) to resume one, and it would buffer a
 * known-size stream of up to 64 MiB whole. Instead `put` reads the body part by
 * part: a body that ends within the first part goes up in a single PUT, a longer
 * one as a multipart upload driven here (initiate, upload parts, complete) and
 * aborted if the body or a request fails, so no partial object ever appears
 * under the key. Memory per upload is bounded by about two parts. That avoids
 * both a temporary spool file and the ListMultipartUploads call, which some
 * S3-compatible servers (s3rver among them) do not implement. If an abort itself
 * fails, the orphaned parts are invisible to readers; a bucket lifecycle rule for
 * incomplete multipart uploads removes them.
 */
/**
 * Idle time after which a pooled connection to the store is closed by us.
 * Without it Node's Agent keeps idle sockets until the server closes them, and
 * a request sent as the server's keep-alive timer fires (5 s for Node-based
 * stores and many proxies) meets a closing socket: ECONNRESET, which minio-js
 * does not retry, so a save answered 500. Shorter than those 5 s; a store that
 * announces a shorter `Keep-Alive: timeout` is honoured less 1 s (the Agent
 * does that once a timeout is set). Active requests are not limited by it:
 * the Agent only destroys free sockets on this timeout.
 */
const IDLE_SOCKET_MS = 4_000;

export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3' as const;
  readonly bucket: string;
  private readonly region: string;
  private readonly partSize: number;
  private readonly agent: http.Agent;
  private readonly client: Client;
  private ready: Promise<void> | undefined;

  constructor(options: S3ObjectStoreOptions) {
    const useSSL = options.useSSL ?? true;
    if (!isValidBucketName(options.bucket)) throw new RangeError(`invalid S3 bucket name ${JSON.stringify(options.bucket)}`);
    this.bucket = options.bucket;
    this.region = options.region ?? 'us-east-1';
    this.partSize = options.partSize ?? 16 * MiB;
    if (!Number.isSafeInteger(this.partSize) || this.partSize < MIN_PART_SIZE || this.partSize > MAX_PART_SIZE) {
      throw new RangeError(`partSize must be an integer from ${MIN_PART_SIZE} to ${MAX_PART_SIZE}, got ${this.partSize}`);
    }
    // Our own agent so that close() can drop its keep-alive sockets, and one
    // that drops an idle socket before the store does (IDLE_SOCKET_MS).
    const agentOptions = { keepAlive: true, timeout: IDLE_SOCKET_MS };
    this.agent = useSSL ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.client = new Client({
      endPoint: options.endPoint,
      port: options.port ?? (useSSL ? 443 : 80),
      useSSL,
      accessKey: options.accessKey,
      secretKey: options.secretKey,
      region: this.region,
      pathStyle: true,
      transportAgent: this.agent,
    });
  }

  /** Checks the bucket, creating it if missing. Every operation does this once on first use. */
  async init(): Promise<void> {
    this.ready ??= this.ensureBucket().catch((err: unknown) => {
      this.ready = undefined; // the next call tries again
      throw new ObjectStoreError('init', '', err);
    });
    return this.ready;
  }

  async put(key: string, body: ObjectBody, opts: PutOptions = {}): Promise<{ size: number }> {
    return guardedPut(key, body, opts, () => this.putOwned(key, body, opts));
  }

  private async putOwned(key: string, body: ObjectBody, opts: PutOptions): Promise<{ size: number }> {
    await this.init();
    const headers: Record<string, string> = opts.contentType === undefined ? {} : { 'Content-Type': opts.contentType };
    const bytes = bodyBytes(body);
    if (bytes !== null) {
      if (opts.size !== undefined && opts.size !== bytes.length) throw new ObjectSizeMismatchError(key, opts.size, bytes.length);
      await this.putSingle(key, bytes, headers);
      return { size: bytes.length };
    }
    const reader = new PartReader(bodyChunks(key, body, opts.size), this.partSizeFor(opts.size));
    try {
      const first = await reader.next();
      if (reader.done) {
        const single = first ?? Buffer.alloc(0);
        await this.putSingle(key, single, headers);
        return { size: single.length };
      }
      return await this.putMultipart(key, first!, reader, headers);
    } catch (err) {
      await reader.cancel();
      throw wrapStoreError('put', key, err);
    }
  }

  async get(key: string): Promise<NodeJS.ReadableStream> {
    validateObjectKey(key);
    await this.init();
    try {
      return await this.client.getObject(this.bucket, key);
    } catch (err) {
      if (isNotFound(err)) throw new ObjectNotFoundError(key, { cause: err });
      throw wrapStoreError('get', key, err);
    }
  }

  async getBuffer(key: string): Promise<Buffer> {
    const stream = await this.get(key);
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    } catch (err) {
      throw wrapStoreError('get', key, err);
    }
    return Buffer.concat(chunks);
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    validateObjectKey(key);
    await this.init();
    try {
      const st = await this.client.statObject(this.bucket, key);
      const contentType = st.metaData['content-type'] as unknown;
      return {
        key,
        size: st.size,
        lastModified: st.lastModified,
        ...(typeof contentType === 'string' ? { contentType } : {}),
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw wrapStoreError('stat', key, err);
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async delete(key: string): Promise<void> {
    validateObjectKey(key);
    await this.init();
    try {
      await this.client.removeObject(this.bucket, key);
    } catch (err) {
      if (!isNotFound(err)) throw wrapStoreError('delete', key, err);
    }
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    validateListPrefix(prefix);
    await this.init();
    try {
      // The stream's items, which its type leaves untyped.
      const items = this.client.listObjectsV2(this.bucket, prefix, true) as AsyncIterable<BucketItem>;
      for await (const item of items) {
        // Objects written by other tools under names we could not address are skipped, as the file store does.
        if (item.name === undefined || !isValidObjectKey(item.name)) continue;
        yield { key: item.name, size: item.size, lastModified: item.lastModified };
      }
    } catch (err) {
      throw wrapStoreError('list', prefix, err);
    }
  }

  close(): Promise<void> {
    this.agent.destroy();
    return Promise.resolve();
  }

  private async ensureBucket(): Promise<void> {
    if (await this.client.bucketExists(this.bucket)) return;
    try {
      await this.client.makeBucket(this.bucket, this.region);
    } catch (err) {
      // Another instance may have created it between our check and our create.
      if (await this.client.bucketExists(this.bucket).catch(() => false)) return;
      throw err;
    }
  }

  private partSizeFor(size: number | undefined): number {
    if (size === undefined || size <= this.partSize * MAX_PARTS) return this.partSize;
    const needed = Math.ceil(Math.ceil(size / MAX_PARTS) / MiB) * MiB;
    if (needed > MAX_PART_SIZE) throw new RangeError(`size ${size} exceeds what S3 can store in one object`);
    return needed;
  }

  private async putSingle(key: string, bytes: Buffer, headers: Record<string, string>): Promise<void> {
    try {
      await this.client.putObject(this.bucket, key, bytes, bytes.length, headers);
    } catch (err) {
      throw wrapStoreError('put', key, err);
    }
  }

  private async putMultipart(key: string, first: Buffer, reader: PartReader, headers: Record<string, string>): Promise<{ size: number }> {
    const uploadId = await this.client.initiateNewMultipartUpload(this.bucket, key, headers);
    try {
      const etags: { part: number; etag: string }[] = [];
      let size = 0;
      for (let part: Buffer | null = first, partNumber = 1; part !== null; part = await reader.next(), partNumber++) {
        if (partNumber > MAX_PARTS) {
          throw new RangeError(`body exceeds ${MAX_PARTS} parts of ${reader.partSize} bytes; pass size or raise partSize`);
        }
        const { etag } = await this.client.uploadPart(
          {
            bucketName: this.bucket,
            objectName: key,
            uploadID: uploadId,
            partNumber,
            headers: { 'Content-MD5': createHash('md5').update(part).digest('base64') },
          },
          part,
        );
        etags.push({ part: partNumber, etag });
        size += part.length;
      }
      await this.client.completeMultipartUpload(this.bucket, key, uploadId, etags);
      return { size };
    } catch (err) {
      await this.client.abortMultipartUpload(this.bucket, key, uploadId).catch(() => undefined);
      throw err;
    }
  }
}

function isNotFound(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  return code === 'NoSuchKey' || code === 'NotFound';
}
