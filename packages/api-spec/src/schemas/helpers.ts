import { Type, type TSchema, type TUnsafe, type Static } from '@sinclair/typebox';

/**
 * Nullable in the OpenAPI 3.1 / JSON Schema style: `type: ['string', 'null']`
 * rather than an `anyOf`, so generated clients and ajv both read it plainly.
 * Only for schemas with a single `type` (strings, integers, objects...).
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, ...rest } = schema as unknown as { type?: unknown } & Record<string, unknown>;
  if (typeof type !== 'string') throw new TypeError('Nullable() needs a schema with a single type');
  // The copy is a different schema (it admits null): it must not pose as the component it came from.
  delete (rest as Record<symbol, unknown>)[COMPONENT];
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] });
}

/** RFC 3339 date-time string. */
export const DateTime = (options: { description?: string } = {}) => Type.String({ format: 'date-time', ...options });

/** 64-bit integer (JSON numbers above 2^53 lose precision; the service never gets there). */
export const Int64 = (options: { description?: string; minimum?: number; maximum?: number } = {}) => Type.Integer({ format: 'int64', ...options });

/** Object of string to string. */
export const StringMap = (options: { description?: string; maxProperties?: number } = {}) =>
  // Not Type.Record: that emits `patternProperties`, which reads poorly in OpenAPI.
  Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string' }, ...options });

/** Free-form JSON object (fields not shown by the spec). */
export const FreeObject = (description?: string) => Type.Object({}, { additionalProperties: true, ...(description ? { description } : {}) });

/**
 * A named component, or null: `anyOf` the component's `$ref` and `null` in the
 * document (Nullable() copies a schema, so it would inline the component).
 */
export function NullableRef<T extends TSchema>(schema: T, description?: string): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ anyOf: [schema, { type: 'null' }], ...(description ? { description } : {}) });
}

/** Shape of every list response: `{ items, next_cursor? }`. */
export function Page<T extends TSchema>(item: T, description?: string) {
  return Type.Object(
    {
      items: Type.Array(item),
      next_cursor: Type.Optional(Type.String({ description: 'Present when more rows follow; pass it back as `cursor`.' })),
    },
    { additionalProperties: false, ...(description ? { description } : {}) },
  );
}

/** Binary payload in a non-JSON body (OpenAPI 3.1 describes it by media type). */
export const Binary = (mediaType = 'application/octet-stream') => Type.Unsafe<Uint8Array>({ type: 'string', contentMediaType: mediaType });

/**
 * String enum as a plain `enum` keyword (TypeBox's literal unions become
 * `anyOf` lists, which read poorly in OpenAPI and in validation messages).
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * Marks a schema as a named OpenAPI component. The OpenAPI builder replaces
 * every occurrence of a marked schema by a `$ref`, so a schema is declared once
 * and used as is by ajv and by the document. The marker is an enumerable symbol
 * so TypeBox's `Type.Optional` (which copies the schema) keeps it; JSON output
 * and ajv ignore symbol keys.
 */
export const COMPONENT: unique symbol = Symbol.for('svc.api-spec.component');

export function component<T extends TSchema>(name: string, schema: T): T {
  (schema as unknown as Record<symbol, string>)[COMPONENT] = name;
  return schema;
}

export function componentName(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const name = (schema as Record<symbol, unknown>)[COMPONENT];
  return typeof name === 'string' ? name : undefined;
}

/**
 * A parsed flow file: in the document, a `$ref` to the `FlowFile` component
 * (the flow schema of @svc/flow-schema, published by the OpenAPI builder);
 * here a free object, since the flow is checked against its schema when it
 * is saved. (A `$ref` carries no description in the document.)
 */
export const FlowFileRef = (description?: string) => component('FlowFile', FreeObject(description));
