// fast-check arbitraries from the JSON Schemas of the OpenAPI document: values
// that mostly match a request schema (so a fuzzed request gets past the
// validator and reaches the handler), and hostile strings and values that do
// not. Only the keywords the catalog's schemas use are read; anything else is
// taken as "any JSON value".
import fc from 'fast-check';

type Json = Record<string, any>;

/** Strings that have broken parsers, path joins, SQL, templates and terminals before. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '..',
  '../../../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '%2e%2e%2f%2e%2e%2f',
  '....//....//etc/passwd',
  '/etc/passwd',
  'C:\\Windows\\win.ini',
  '\\\\server\\share',
  'a\u0000b',
  'line\r\nX-Injected: 1',
  '\u202etxt.exe',
  '\ud800',
  '💥'.repeat(50),
  "' OR '1'='1' --",
  '"; DROP TABLE executions; --',
  '{{ secret("MASTER") }}',
  '${process.env.SVC_MASTER_KEYS}',
  '__proto__',
  'constructor',
  '-1',
  '0',
  '1e309',
  '9223372036854775808',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  'x'.repeat(5000),
];

export const hostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 600 }) },
  );

/** Any JSON value, hostile strings included. */
export const hostileJson = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
    { weight: 1, arbitrary: hostileString() },
    { weight: 1, arbitrary: fc.constantFrom(-1, 0, 1.5, 2 ** 53, -(2 ** 63), 1e308, null, true, [], {}) },
  );

function resolve(schema: Json, doc: Json): Json {
  let s = schema;
  for (let i = 0; s && typeof s.$ref === 'string' && i < 20; i++) {
    const name = s.$ref.replace('#/components/schemas/', '');
    s = doc.components?.schemas?.[name] ?? {};
  }
  return s ?? {};
}

function stringArb(s: Json): fc.Arbitrary<string> {
  if (s.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  if (typeof s.pattern === 'string') {
    try {
      const re = new RegExp(s.pattern, 'u');
      return fc.stringMatching(re).filter((x) => x.length <= (s.maxLength ?? 10_000) && x.length >= (s.minLength ?? 0));
    } catch {
      // a pattern fast-check cannot generate from: fall back to plain strings
    }
  }
  return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 200) });
}

/**
 * An arbitrary of values valid for `schema` (as far as the generator can
 * tell), with `doc` resolving `$ref`s. `depth` bounds recursive schemas.
 */
export function schemaArbitrary(schema: Json | undefined, doc: Json, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant(null);
  const s = resolve(schema, doc);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const alts = s.anyOf ?? s.oneOf;
  if (Array.isArray(alts) && alts.length) return fc.oneof(...alts.map((a: Json) => schemaArbitrary(a, doc, depth + 1)));
  if (Array.isArray(s.allOf) && s.allOf.length) return schemaArbitrary(Object.assign({}, ...s.allOf.map((a: Json) => resolve(a, doc))), doc, depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return stringArb(s);
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -1000, -(2 ** 31)), max: Math.min(s.maximum ?? 100_000, 2 ** 31) });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schemaArbitrary(s.items, doc, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, 4) });
    case 'object': {
      const props: Record<string, Json> = s.properties ?? {};
      if (!Object.keys(props).length) {
        if (s.additionalProperties && typeof s.additionalProperties === 'object') {
          return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), schemaArbitrary(s.additionalProperties, doc, depth + 1), { maxKeys: 4 });
        }
        return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      }
      const required: string[] = s.required ?? [];
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = schemaArbitrary(v, doc, depth + 1);
      return fc.record(model, { requiredKeys: required.filter((k) => k in props) });
    }
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

/**
 * A value that is mostly valid for `schema` with one hostile twist: a field
 * replaced by a hostile value, an unknown field added, or a required one dropped.
 */
export function mutatedArbitrary(schema: Json | undefined, doc: Json): fc.Arbitrary<unknown> {
  return fc.tuple(schemaArbitrary(schema, doc), fc.nat(), hostileJson(), fc.constantFrom('replace', 'add', 'drop')).map(([value, pick, evil, how]) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return evil;
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(out);
    if (how === 'add' || keys.length === 0) out[`zz_${pick % 7}`] = evil;
    else if (how === 'replace') out[keys[pick % keys.length]!] = evil;
    else delete out[keys[pick % keys.length]!];
    return out;
  });
}
