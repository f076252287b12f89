import type { Static } from '@sinclair/typebox';
import type { CursorOperationId, OPERATION_CURSORS } from '@svc/api-spec';
import { validationFailed } from './errors.js';

/**
 * What the decoded `cursor` of operation `Op` holds, by its entry in
 * `OPERATION_CURSORS` (@svc/api-spec): `Cursor<'listUsers'>` is `{email: string}`.
 */
export type Cursor<Op extends CursorOperationId> = Static<(typeof OPERATION_CURSORS)[Op]>;

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

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 instant PostgreSQL's timestamptz accepts: a real calendar date
 * (`Date.parse` takes February 30th and rolls it over; PostgreSQL refuses it),
 * a time of day below 24:00 and an offset within a day.
 */
export function isCursorTime(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offH, offM] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59 || offH > 23 || offM > 59) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}

const INT8_MAX = 2n ** 63n - 1n;

/** Decimal text of a value PostgreSQL's int8 holds. */
export function isInt8Text(s: string): boolean {
  if (!/^-?\d{1,19}$/.test(s)) return false;
  const v = BigInt(s);
  return v <= INT8_MAX && v >= -INT8_MAX - 1n;
}
