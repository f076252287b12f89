/** What `stat` and `list` report about one object. */
export interface ObjectInfo {
  key: string;
  /** Bytes. */
  size: number;
  lastModified: Date;
  /** Set by `stat` when the object was stored with one; `list` never reads it. */
  contentType?: string;
}

/**
 * Accepted object bodies: a stream or async iterable is consumed once and not
 * buffered whole; an error it throws fails the put, which then keeps nothing.
 */
export type ObjectBody = Buffer | string | NodeJS.ReadableStream | AsyncIterable<Buffer | string>;

export interface PutOptions {
  /** Stored with the object and returned by `stat`. Default: none (readers assume `application/octet-stream`). */
  contentType?: string;
  /**
   * Expected length in bytes. When given, a body of another length fails with
   * `ObjectSizeMismatchError` and nothing is stored. Default: unknown (any length).
   */
  size?: number;
}

/**
 * Keys are `/`-separated relative paths of safe segments (see `validateObjectKey`);
 * every method throws `InvalidObjectKeyError` for another key before any I/O.
 */
export interface ObjectStore {
  readonly kind: 'file' | 's3';
  /**
   * Stores `body` under `key`, replacing any object there. All or nothing: a
   * failed put leaves no partial object. A stream body is consumed, and
   * destroyed if the put fails.
   */
  put(key: string, body: ObjectBody, opts?: PutOptions): Promise<{ size: number }>;
  /** Throws `ObjectNotFoundError`. */
  get(key: string): Promise<NodeJS.ReadableStream>;
  /** Throws `ObjectNotFoundError`. Reads the whole object into memory: small objects only. */
  getBuffer(key: string): Promise<Buffer>;
  stat(key: string): Promise<ObjectInfo | null>;
  exists(key: string): Promise<boolean>;
  /** Idempotent: deleting a missing key is fine. */
  delete(key: string): Promise<void>;
  /**
   * Every object whose key starts with `prefix`, at any depth. Order is not part
   * of the contract: the file store and AWS S3 give ascending key order, but some
   * S3-compatible servers (s3rver) do not.
   */
  list(prefix: string): AsyncIterable<ObjectInfo>;
  /** Releases connections; the store is not used afterwards. */
  close?(): Promise<void>;
}
