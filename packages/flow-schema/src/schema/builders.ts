import type { VariantFamily } from './variants.js';

/** One JSON Schema object; kept loose because the schema is data, checked by ajv's meta-schema in tests. */
export type SchemaNode = { [keyword: string]: unknown };

/**
 * The annotation on a field or a form of a field that the interface
 * specification does not have (svc's extensions of the flow format): its
 * value says what is extended. `svc flow validate --spec-only` refuses them
 * (extensions.ts lists the ones a flow uses).
 */
export const EXTENSION_KEYWORD = 'x-svc-extension';

/** `$ref` to a definition of the flow schema. */
export function ref(def: string, extra: SchemaNode = {}): SchemaNode {
  // 2020-12 allows siblings next to $ref, so a use site can carry its own description.
  return { $ref: `#/$defs/${def}`, ...extra };
}

/** An object of string to string, with a description of what the keys and values are. */
export function stringMap(description: string, extra: SchemaNode = {}): SchemaNode {
  // `type` repeats the ref's so that ajv's strictTypes accepts object keywords (maxProperties...) at the use site.
  return ref('StringMap', { type: 'object', description, ...extra });
}

function pick(from: Readonly<Record<string, SchemaNode>>, keys: readonly string[], context: string): Record<string, SchemaNode> {
  const out: Record<string, SchemaNode> = {};
  for (const k of keys) {
    const node = from[k];
    if (node === undefined) throw new Error(`flow schema: no definition for field "${k}" of ${context}`);
    out[k] = node;
  }
  return out;
}

/** Inputs of {@link discriminated}. */
export interface DiscriminatedSpec {
  family: VariantFamily;
  title: string;
  description: string;
  /** Schemas of the fields every type takes; must include `type`. */
  common: Readonly<Record<string, SchemaNode>>;
  /** Fields required whatever the type. */
  required: readonly string[];
  /** Schemas of the fields only some types take. */
  specific: Readonly<Record<string, SchemaNode>>;
  /** Additions to the `then` of one type, for rules that are not "takes field X". */
  thenExtras?: Readonly<Record<string, SchemaNode>>;
  /** More `if/then` rules appended to `allOf`. */
  moreRules?: readonly SchemaNode[];
  /** Other keywords of the object itself (e.g. `dependentRequired`), beside `properties` and `allOf`. */
  keywords?: Readonly<SchemaNode>;
  /**
   * When `type` may be absent, the schema that applies then. Default: none,
   * so a missing `type` leaves only the common fields evaluated.
   */
  untyped?: SchemaNode;
  examples?: readonly unknown[];
}

/**
 * An object told apart by its `type`: common fields in `properties`, and one
 * `if (type == X) then (X's required fields and X's own properties)` per type.
 * `unevaluatedProperties: false` then rejects both unknown fields and fields
 * of another type, because a property only counts as evaluated when the
 * matching `then` declared it.
 */
export function discriminated(spec: DiscriminatedSpec): SchemaNode {
  const rules: SchemaNode[] = [];
  for (const [name, variant] of Object.entries(spec.family.variants)) {
    const then: SchemaNode = { ...(spec.thenExtras?.[name] ?? {}) };
    if (variant.required.length > 0) then.required = [...variant.required];
    if (variant.fields.length > 0) {
      const extraProps = (then.properties as Record<string, SchemaNode> | undefined) ?? {};
      then.properties = { ...pick(spec.specific, variant.fields, `${name} ${spec.family.noun}`), ...extraProps };
    }
    if (Object.keys(then).length === 0) continue;
    rules.push({ if: { properties: { type: { const: name } }, required: ['type'] }, then });
  }
  if (spec.untyped) rules.push({ if: { not: { required: ['type'] } }, then: spec.untyped });
  rules.push(...(spec.moreRules ?? []));
  const node: SchemaNode = {
    title: spec.title,
    description: spec.description,
    type: 'object',
    properties: pick(spec.common, spec.family.common, spec.family.noun),
  };
  if (spec.required.length > 0) node.required = [...spec.required];
  Object.assign(node, spec.keywords);
  node.allOf = rules;
  node.unevaluatedProperties = false;
  if (spec.examples) node.examples = [...spec.examples];
  return node;
}
