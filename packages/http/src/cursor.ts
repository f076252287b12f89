import { validationFailed } from './errors.js';

/** Longest cursor accepted; a cursor holds one sort key, so anything longer is not ours. */
const MAX_CURSOR_LENGTH = 2048;

/** Opaque page cursor: base64url of the JSON of the last row's sort key. */
export function encodeCursor(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** Like `decodeCursor`, but returns undefined instead of throwing. */
export function tryDecodeCursor(cursor: string): Record<string, unknown> | undefined {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Decodes a cursor made by `encodeCursor`; anything else is 422 `validation_failed` on field `cursor`. */
export function decodeCursor(cursor: string): Record<string, unknown> {
  const value = tryDecodeCursor(cursor);
  if (value === undefined) throw validationFailed([{ field: 'cursor', message: 'is not a valid cursor' }]);
  return value;
}
