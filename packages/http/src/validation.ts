import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Operation } from '@svc/api-spec';
import { isCursorTime, isInt8Text, tryDecodeCursor } from './cursor.js';
import { validationFailed, type ErrorDetail } from './errors.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is the module object.
type FormatsPlugin = typeof addFormatsModule.default;
const addFormats: FormatsPlugin = (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

type Part = 'params' | 'query' | 'body';

/** Result of validating one part: the (coerced, defaulted) value or the failing fields. */
export type PartResult = { ok: true; value: unknown } | { ok: false; details: ErrorDetail[] };
export type PartValidator = (value: unknown) => PartResult;

export interface ValidatedRequest {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  /** The decoded `cursor` query parameter, when the operation has one and it was sent. */
  cursor?: Record<string, unknown>;
}

export interface CompiledOperation {
  params?: PartValidator;
  query?: PartValidator;
  /** Absent when the operation has no body, or a non-JSON one (read by its handler). */
  body?: PartValidator;
  /** Whether a JSON body must be sent. */
  bodyRequired: boolean;
  /**
   * Validates every part and throws one 422 listing every failing field
   * (parameters first, then the body). Inputs are not mutated.
   */
  validateRequest(input: { params?: unknown; query?: unknown; body?: unknown }): ValidatedRequest;
}

export interface RequestValidator {
  compileOperation(op: Pick<Operation, 'operationId' | 'request'>): CompiledOperation;
}

/**
 * Two ajv instances: parameters arrive as strings, so they are coerced (and a
 * single value may fill an array parameter) and get their defaults; bodies are
 * JSON and are taken as sent.
 */
export function createRequestValidator(): RequestValidator {
  const paramAjv = new Ajv({ allErrors: true, coerceTypes: 'array', useDefaults: true, strict: true, allowUnionTypes: true });
  const bodyAjv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(paramAjv);
  addFormats(bodyAjv);
  // Decoded cursors: values as the database columns take them (@svc/api-spec schemas/cursors.ts).
  const cursorAjv = new Ajv({ allErrors: false, strict: true });
  cursorAjv.addFormat('cursor-time', { type: 'string', validate: isCursorTime });
  cursorAjv.addFormat('cursor-int8', { type: 'string', validate: isInt8Text });

  const part = (ajv: Ajv, schema: object, which: Part): PartValidator => {
    const fn: ValidateFunction = ajv.compile(schema);
    return (value) => {
      // Coercion and defaults write into the data: work on a copy.
      const data = which === 'body' ? value : { ...(value as object) };
      return fn(data) ? { ok: true, value: data } : { ok: false, details: toDetails(fn.errors ?? [], which) };
    };
  };

  return {
    compileOperation(op) {
      const { request } = op;
      const jsonBody = request.body !== undefined && (request.bodyContentType ?? 'application/json') === 'application/json';
      const params = request.params ? part(paramAjv, request.params, 'params') : undefined;
      const query = request.query ? part(paramAjv, request.query, 'query') : undefined;
      const body = jsonBody ? part(bodyAjv, request.body!, 'body') : undefined;
      const bodyRequired = jsonBody && request.bodyRequired !== false;
      const hasCursor = Boolean((request.query as { properties?: Record<string, unknown> } | undefined)?.properties?.cursor);
      const cursorShape = request.cursor ? cursorAjv.compile(request.cursor) : undefined;

      return {
        ...(params ? { params } : {}),
        ...(query ? { query } : {}),
        ...(body ? { body } : {}),
        bodyRequired,
        validateRequest(input) {
          const details: ErrorDetail[] = [];
          const run = (v: PartValidator | undefined, value: unknown) => {
            if (!v) return value;
            const r = v(value);
            if (r.ok) return r.value;
            details.push(...r.details);
            return value;
          };
          // PostgreSQL text cannot hold U+0000: a NUL in an id, name or key could only end in a database error.
          for (const [name, value] of [...Object.entries(input.params ?? {}), ...Object.entries(input.query ?? {})]) {
            if (hasNul(name) || (Array.isArray(value) ? value : [value]).some((v) => typeof v === 'string' && hasNul(v))) {
              details.push({ field: hasNul(name) ? 'query' : name, message: 'must not contain a NUL character' });
            }
          }
          const nulAt = input.body === undefined ? undefined : nulPath(input.body, []);
          if (nulAt) details.push({ field: fieldName(nulAt, 'body'), message: 'must not contain a NUL character (send binary content as base64)' });
          if (details.length > 0) throw validationFailed(details);
          const outParams = run(params, input.params ?? {}) as Record<string, unknown>;
          const outQuery = run(query, input.query ?? {}) as Record<string, unknown>;
          let cursor: Record<string, unknown> | undefined;
          const rawCursor = outQuery?.cursor;
          if (hasCursor && typeof rawCursor === 'string' && !details.some((d) => d.field === 'cursor')) {
            cursor = tryDecodeCursor(rawCursor);
            if (cursor !== undefined && cursorShape && !cursorShape(cursor)) cursor = undefined;
            if (cursor === undefined) details.push({ field: 'cursor', message: 'is not a valid cursor' });
          }
          let outBody = input.body;
          if (body) {
            if (input.body === undefined) {
              if (bodyRequired) details.push({ field: 'body', message: 'is required' });
            } else {
              outBody = run(body, input.body);
            }
          }
          if (details.length > 0) throw validationFailed(details);
          return { params: outParams, query: outQuery, body: outBody, ...(cursor ? { cursor } : {}) };
        },
      };
    },
  };
}

const hasNul = (s: string) => s.includes('\u0000');

/** Where the first string or key holding U+0000 sits in a JSON value (pointer segments), or undefined. */
function nulPath(value: unknown, at: string[]): string[] | undefined {
  if (typeof value === 'string') return hasNul(value) ? at : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (hasNul(k)) return at;
    const found = nulPath(v, [...at, k]);
    if (found) return found;
  }
  return undefined;
}

/** `value` with every U+0000 in its strings and keys replaced by U+FFFD (what a task printed, kept readable and storable). */
export function replaceNul(value: unknown): unknown {
  if (typeof value === 'string') return hasNul(value) ? value.replace(/\u0000/g, '\ufffd') : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(replaceNul);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [replaceNul(k) as string, replaceNul(v)]));
}

/** Convenience for a single operation; servers should share one `createRequestValidator()`. */
export function compileOperation(op: Pick<Operation, 'operationId' | 'request'>): CompiledOperation {
  return createRequestValidator().compileOperation(op);
}

// ---- ajv errors -> details ------------------------------------------------

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * A JSON pointer as a person reads it: `/changes/3/path` → `changes[3].path`.
 * Parameters are named by the parameter alone (spec: "A query or path
 * parameter uses its own name as the field").
 */
export function fieldName(pointerSegments: string[], which: Part): string {
  if (which !== 'body') return pointerSegments[0] ?? which;
  if (pointerSegments.length === 0) return 'body';
  let out = '';
  for (const seg of pointerSegments) {
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function describeType(type: unknown): string {
  // Ajv names a type, or several, as strings.
  const list: unknown[] = Array.isArray(type) ? type : typeof type === 'string' ? type.split(',') : [type];
  return list.map((t) => (typeof t === 'string' ? (TYPE_NAMES[t] ?? t) : JSON.stringify(t))).join(' or ');
}

const plural = (n: number, word: string, words = `${word}s`) => `${n} ${n === 1 ? word : words}`;

/** A message for a person, without JSON Schema vocabulary. */
export function messageFor(e: ErrorObject): string {
  // Ajv's params of the keywords below: numbers for the limits, a string for the format.
  const p = e.params as { type?: unknown; allowedValues?: unknown[]; allowedValue?: unknown; limit?: number; multipleOf?: number; format?: string };
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not allowed';
    case 'type':
      return `must be ${describeType(p.type)}`;
    case 'enum':
      return `must be one of: ${(p.allowedValues ?? []).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'maximum':
      return `must be at most ${p.limit}`;
    case 'minimum':
      return `must be at least ${p.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${p.limit}`;
    case 'exclusiveMinimum':
      return `must be greater than ${p.limit}`;
    case 'multipleOf':
      return `must be a multiple of ${p.multipleOf}`;
    case 'maxLength':
      return `must be at most ${plural(Number(p.limit), 'character')}`;
    case 'minLength':
      return Number(p.limit) === 1 ? 'must not be empty' : `must be at least ${plural(Number(p.limit), 'character')}`;
    case 'maxItems':
      return `must have at most ${plural(Number(p.limit), 'item')}`;
    case 'minItems':
      return `must have at least ${plural(Number(p.limit), 'item')}`;
    case 'maxProperties':
      return `must have at most ${plural(Number(p.limit), 'entry', 'entries')}`;
    case 'minProperties':
      return `must have at least ${plural(Number(p.limit), 'entry', 'entries')}`;
    case 'uniqueItems':
      return 'must not contain duplicates';
    case 'pattern':
      return 'has an invalid format';
    case 'format':
      return `must be a valid ${p.format}`;
    case 'anyOf':
    case 'oneOf':
      return 'does not match any allowed form';
    default:
      return e.message ?? 'is invalid';
  }
}

/** One detail per failing field; an `anyOf`/`oneOf` summary wins over its branches' noise. */
export function toDetails(errors: ErrorObject[], which: Part): ErrorDetail[] {
  const byField = new Map<string, { message: string; summary: boolean }>();
  for (const e of errors) {
    const segments = e.instancePath === '' ? [] : e.instancePath.slice(1).split('/').map(unescapePointer);
    const p = e.params as Record<string, unknown>;
    if (e.keyword === 'required') segments.push(String(p.missingProperty));
    if (e.keyword === 'additionalProperties') segments.push(String(p.additionalProperty));
    const field = fieldName(segments, which);
    const summary = e.keyword === 'anyOf' || e.keyword === 'oneOf';
    const seen = byField.get(field);
    if (seen === undefined || (summary && !seen.summary)) byField.set(field, { message: messageFor(e), summary });
  }
  return [...byField].map(([field, { message }]) => ({ field, message }));
}
