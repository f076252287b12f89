/** One problem of a flow file, worded for a person and placed in the source. */
export interface FlowError {
  /** JSON pointer (RFC 6901) of the failing node in the loaded value; `''` for the whole file. */
  pointer: string;
  /** The same place written as a path, e.g. `tasks[3].retry.max_attempts`; `''` for the whole file. */
  field: string;
  /** Sentence naming the field, e.g. `tasks[3].retry.max_attempts must be between 1 and 20, got 25`. */
  message: string;
  /** 1-based line of the failing node in the YAML source, when known. */
  line?: number;
  /** 1-based column (UTF-16 code units) of the failing node, when known. */
  column?: number;
}

/**
 * Thrown by {@link assertValidFlow} (and usable by callers that prefer
 * exceptions) when a flow file does not parse or does not match the schema.
 */
export class FlowInvalidError extends Error {
  override readonly name = 'FlowInvalidError';

  constructor(
    /** Every problem found, in source order. */
    readonly errors: readonly FlowError[],
    /** Name of the file, when the caller knows it (used in the message only). */
    readonly path?: string,
  ) {
    const first = errors[0];
    const where = first?.line !== undefined ? `:${first.line}:${first.column ?? 1}` : '';
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    super(`${path ?? 'flow file'}${where}: ${first?.message ?? 'invalid flow'}${more}`);
  }
}
