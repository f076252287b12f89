/** Preparing the run failed before the task started; `reason` becomes the completion's reason. */
export class PrepareError extends Error {
  override readonly name = 'PrepareError';
  constructor(
    readonly reason: 'executor_error' | 'runtime_not_found',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A bundle entry or a spec file would land outside the bundle root. */
export class UnsafePathError extends Error {
  override readonly name = 'UnsafePathError';
  constructor(
    readonly path: string,
    readonly why: string,
  ) {
    super(`unsafe path ${JSON.stringify(path)}: ${why}`);
  }
}

/** The bundle's extracted files exceed `limits.max_bundle_bytes`. */
export class BundleTooLargeError extends Error {
  override readonly name = 'BundleTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`bundle exceeds the limit of ${limitBytes} bytes`);
  }
}

/** A runner protocol request failed for good (a 4xx, or transient failures past the retry window). */
export class RunnerHttpError extends Error {
  override readonly name = 'RunnerHttpError';
  constructor(
    readonly method: string,
    readonly url: string,
    /** HTTP status, or null when no response arrived. */
    readonly status: number | null,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `transport.complete` failed: the service never learnt how the task ended. */
export class CompletionDeliveryError extends Error {
  override readonly name = 'CompletionDeliveryError';
  constructor(
    readonly taskRunId: string,
    options: { cause: unknown },
  ) {
    super(`could not deliver the completion of task run ${taskRunId || '(unknown)'}: ${errorMessage(options.cause)}`, options);
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
