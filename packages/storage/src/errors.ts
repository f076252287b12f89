/** `get`/`getBuffer` of a key that holds no object. */
export class ObjectNotFoundError extends Error {
  override readonly name = 'ObjectNotFoundError';
  readonly key: string;

  constructor(key: string, options?: { cause?: unknown }) {
    super(`object not found: ${key}`, options);
    this.key = key;
  }
}

/** A key or list prefix that breaks the key rules (see `validateObjectKey`). */
export class InvalidObjectKeyError extends Error {
  override readonly name = 'InvalidObjectKeyError';
  readonly key: string;
  /** Which rule the key breaks, phrased for a log line. */
  readonly reason: string;

  constructor(key: string, reason: string) {
    // JSON.stringify so a NUL byte or newline in the key shows up escaped in logs.
    super(`invalid object key ${JSON.stringify(key.length > 200 ? `${key.slice(0, 200)}...` : key)}: ${reason}`);
    this.key = key;
    this.reason = reason;
  }
}

/**
 * The file store cannot hold both `a` and `a/b`: a path is either a file or a
 * directory. S3 allows both, so code that works on the file store also works on S3.
 */
export class ObjectKeyConflictError extends Error {
  override readonly name = 'ObjectKeyConflictError';
  readonly key: string;

  constructor(key: string, options?: { cause?: unknown }) {
    super(`object key ${key} conflicts with an existing object or key prefix (a key cannot be both an object and a folder)`, options);
    this.key = key;
  }
}

/** `put` was told `size` and the body had another length; nothing was stored. */
export class ObjectSizeMismatchError extends Error {
  override readonly name = 'ObjectSizeMismatchError';
  readonly key: string;
  readonly expected: number;
  readonly actual: number;

  constructor(key: string, expected: number, actual: number) {
    super(`object ${key}: expected ${expected} bytes, the body had ${actual}`);
    this.key = key;
    this.expected = expected;
    this.actual = actual;
  }
}

/** `createObjectStore` was given a URL it cannot use. The message never contains the secret key. */
export class InvalidStorageUrlError extends Error {
  override readonly name = 'InvalidStorageUrlError';
  /** The URL with any password replaced by `***`. */
  readonly url: string;
  /** Every problem found, so the operator fixes them in one go. */
  readonly problems: readonly string[];

  constructor(url: string, problems: readonly string[]) {
    super(`invalid storage URL ${url}: ${problems.join('; ')}`);
    this.url = url;
    this.problems = problems;
  }
}

/** An S3 or file-system failure other than "not found", wrapped with the key it concerned. */
export class ObjectStoreError extends Error {
  override readonly name = 'ObjectStoreError';
  readonly key: string;
  readonly operation: 'put' | 'get' | 'stat' | 'delete' | 'list' | 'init';

  constructor(operation: ObjectStoreError['operation'], key: string, cause: unknown) {
    super(`object store ${operation} ${key || '(bucket)'} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.key = key;
    this.operation = operation;
  }
}

/** True for the errors this package throws on purpose; anything else gets wrapped. */
export function isStorageError(err: unknown): boolean {
  return (
    err instanceof ObjectNotFoundError ||
    err instanceof InvalidObjectKeyError ||
    err instanceof ObjectKeyConflictError ||
    err instanceof ObjectSizeMismatchError ||
    err instanceof InvalidStorageUrlError ||
    err instanceof ObjectStoreError
  );
}

/**
 * Carries an error of the caller's body stream through `put`, which rethrows the
 * original error unchanged instead of blaming the store for it.
 */
export class BodySourceFailure extends Error {
  constructor(readonly error: unknown) {
    super('the body of a put failed', { cause: error });
    this.name = 'BodySourceFailure';
  }
}

/**
 * Our own errors and the body's own failure pass through unchanged; anything
 * else (file system, S3 client) gets the key and operation attached.
 */
export function wrapStoreError(operation: ObjectStoreError['operation'], key: string, err: unknown): unknown {
  if (err instanceof BodySourceFailure) return err.error;
  if (isStorageError(err)) return err;
  return new ObjectStoreError(operation, key, err);
}
