// Turns log metadata into plain JSON-safe data. JSON.stringify alone would
// print an Error as {} (its fields are not enumerable), throw on a BigInt or a
// cycle, and spell out a Buffer byte by byte.

/** Key under which a repeated reference is replaced. */
const CIRCULAR = '[Circular]';

/** An Error as it appears in a log line. */
export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  /** Structured fields of named error classes (`code`, `problems`, ...). */
  [field: string]: unknown;
}

const SPECIAL = new Set(['name', 'message', 'stack', 'cause']);

export function serializeError(err: Error, seen: WeakSet<object> = new WeakSet()): SerializedError {
  seen.add(err);
  try {
    const out: SerializedError = { name: err.name, message: err.message };
    for (const [key, value] of Object.entries(err)) {
      if (!SPECIAL.has(key) && !(key === 'errors' && err instanceof AggregateError)) out[key] = toPlain(value, seen);
    }
    if (err.stack !== undefined) out.stack = err.stack;
    // `cause` is non-enumerable when set through the constructor option, enumerable when assigned.
    if (err.cause !== undefined) out.cause = toPlain(err.cause, seen);
    if (err instanceof AggregateError) out.errors = err.errors.map((e: unknown) => toPlain(e, seen));
    return out;
  } finally {
    seen.delete(err);
  }
}

/** A JSON-safe copy of `value`. */
export function toPlain(value: unknown, seen: WeakSet<object> = new WeakSet()): unknown {
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'function':
      return `[Function ${value.name || 'anonymous'}]`;
    case 'symbol':
      return value.toString();
    case 'undefined':
    case 'string':
    case 'number':
    case 'boolean':
      return value;
    case 'object':
      break;
  }
  if (value === null) return null;
  const object = value;
  if (seen.has(object)) return CIRCULAR;
  if (object instanceof Error) return serializeError(object, seen);
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
  if (Buffer.isBuffer(object)) return `[Buffer ${object.length} bytes]`;
  seen.add(object);
  try {
    if (Array.isArray(object)) return object.map((item) => toPlain(item, seen));
    if (object instanceof Map) return Object.fromEntries([...object].map(([k, v]) => [String(k), toPlain(v, seen)]));
    if (object instanceof Set) return [...object].map((item) => toPlain(item, seen));
    if (typeof (object as { toJSON?: unknown }).toJSON === 'function') return toPlain((object as { toJSON(): unknown }).toJSON(), seen);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(object)) out[key] = toPlain(item, seen);
    return out;
  } finally {
    // Only ancestors count as cycles; the same object twice side by side is printed twice.
    seen.delete(object);
  }
}
