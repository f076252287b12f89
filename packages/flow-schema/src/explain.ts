import type { ErrorObject } from 'ajv';
import { fieldPath, isRecord, valueAt } from './field-path.js';
import type { FlowError } from './flow-error.js';
import { escapePointerToken, type SourcePositions } from './positions.js';
import { PATTERN_HINTS } from './schema/patterns.js';
import { allFields, EXECUTOR_FAMILY, INPUT_FAMILY, TASK_FAMILY, TRIGGER_FAMILY, typesTaking, withArticle, type VariantFamily } from './schema/variants.js';

/**
 * One reworded ajv error before grouping. `subject` starts the sentence and
 * `predicate` finishes it, so several predicates about one field can share
 * one subject.
 */
interface Problem {
  pointer: string;
  /** `pointer` written as a path; filled in by {@link explainErrors}. */
  field?: string;
  subject: string;
  predicate: string;
  /** Where to look the position up: the node itself, or (for a missing field) its parent. */
  locate: { pointer: string; at: 'key' | 'value' };
  /** An unknown or misplaced property: dropped when the same node has another error. */
  unknownProperty?: boolean;
}

/**
 * Turns ajv's errors (run with `allErrors` and `verbose`) into one
 * {@link FlowError} per failing field, in source order.
 *
 * Collapsing rules, because if/then schemas make ajv repeat itself:
 * - `if` errors ("must match then schema") are dropped: the error inside the
 *   `then` says what is wrong.
 * - When an object's `type` is missing or not one of its family's types, no
 *   `then` applies, so ajv calls every type-specific field "unevaluated";
 *   those are dropped and only the `type` error (plus truly unknown fields)
 *   remains.
 * - A failing `then` drops the annotations that mark its fields evaluated,
 *   so ajv then calls fields the type does take "unevaluated": those are
 *   dropped, and so is any unknown-property error on a node that has an
 *   error of its own.
 * - `propertyNames` produces a pattern error and a wrapper error; they
 *   become one message about the offending key.
 */
export function explainErrors(ajvErrors: readonly ErrorObject[], root: unknown, positions: SourcePositions | undefined): FlowError[] {
  const errors = ajvErrors.filter((e) => e.keyword !== 'if');
  const badType = objectsWithBadType(errors);
  const problems: Problem[] = [];
  for (const e of errors) {
    const p = explainOne(e, errors, root, badType);
    if (p !== undefined) problems.push({ ...p, field: fieldPath(p.pointer, root) });
  }
  const pointersWithOwnError = new Set(problems.filter((p) => !p.unknownProperty).map((p) => p.pointer));
  const kept = problems.filter((p) => !p.unknownProperty || ![...pointersWithOwnError].some((q) => q === p.pointer || q.startsWith(`${p.pointer}/`)));
  return group(kept, positions);
}

/** Pointers of family objects whose `type` is missing or invalid. */
function objectsWithBadType(errors: readonly ErrorObject[]): Set<string> {
  const out = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'required' && e.params.missingProperty === 'type') out.add(e.instancePath);
    if (e.instancePath.endsWith('/type') && (e.keyword === 'enum' || e.keyword === 'type')) {
      out.add(e.instancePath.slice(0, -'/type'.length));
    }
  }
  return out;
}

/** The family of the object at `pointer`, read from where the schema puts each family. */
function familyAt(pointer: string): VariantFamily | undefined {
  if (/^\/tasks\/\d+$/.test(pointer)) return TASK_FAMILY;
  if (/^\/triggers\/\d+$/.test(pointer)) return TRIGGER_FAMILY;
  if (/^\/inputs\/\d+$/.test(pointer)) return INPUT_FAMILY;
  if (pointer === '/executor' || /^\/tasks\/\d+\/executor$/.test(pointer)) return EXECUTOR_FAMILY;
  return undefined;
}

/** The object's `type` when it is one its family knows. */
function knownType(family: VariantFamily, obj: unknown): string | undefined {
  if (!isRecord(obj) || typeof obj.type !== 'string') return undefined;
  return Object.hasOwn(family.variants, obj.type) ? obj.type : undefined;
}

function explainOne(e: ErrorObject, all: readonly ErrorObject[], root: unknown, badType: ReadonlySet<string>): Problem | undefined {
  const at = e.instancePath;
  const field = fieldPath(at, root);
  const subject = field === '' ? 'the flow file' : field;
  const data = valueAt(root, at);
  const here = { pointer: at, at: 'value' as const };
  const simple = (predicate: string): Problem => ({ pointer: at, subject, predicate, locate: here });
  const schema = isRecord(e.parentSchema) ? e.parentSchema : {};

  if (e.schemaPath.includes('/propertyNames/')) return undefined; // folded into the propertyNames error

  switch (e.keyword) {
    case 'required': {
      const missing = String(e.params.missingProperty);
      const pointer = `${at}/${escapePointerToken(missing)}`;
      const family = familyAt(at);
      const type = family && knownType(family, valueAt(root, at));
      const forType =
        family && type !== undefined && e.schemaPath.includes('/then/') && family.variants[type]?.required.includes(missing) ? ` for ${withArticle(`${type} ${family.noun}`)}` : '';
      return { pointer, subject: fieldPath(pointer, root), predicate: `is required${forType}`, locate: here };
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const prop = String(e.params.additionalProperty ?? e.params.unevaluatedProperty);
      const pointer = `${at}/${escapePointerToken(prop)}`;
      const locate = { pointer, at: 'key' as const };
      const family = familyAt(at);
      const obj = valueAt(root, at);
      if (family !== undefined) {
        const known = allFields(family).includes(prop);
        if (known && badType.has(at)) return undefined;
        const type = knownType(family, obj);
        if (known && type !== undefined) {
          const takers = typesTaking(family, prop);
          // A field this type takes is only "unevaluated" because a failing `then` dropped its
          // annotations; the failure itself is reported on its own.
          if (takers.includes(type)) return undefined;
          const predicate = `is not allowed for ${withArticle(`${type} ${family.noun}`)} ` + `(only ${listWords(takers)} ${family.noun}s take it)`;
          return mark({ pointer, subject: fieldPath(pointer, root), predicate, locate });
        }
        const allowed = type !== undefined ? [...family.common, ...(family.variants[type]?.fields ?? [])] : allFields(family);
        return mark({ pointer, subject, predicate: `has unknown property ${JSON.stringify(prop)}${didYouMean(prop, allowed)}`, locate });
      }
      const allowed = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
      return mark({ pointer, subject, predicate: `has unknown property ${JSON.stringify(prop)}${didYouMean(prop, allowed)}`, locate });
    }
    case 'dependentRequired': {
      // `fail_fast` without `for_each`: blame the field that is there, not the object.
      const prop = String(e.params.property);
      const pointer = `${at}/${escapePointerToken(prop)}`;
      return { pointer, subject: fieldPath(pointer, root), predicate: `is allowed only together with ${String(e.params.missingProperty)}`, locate: { pointer, at: 'key' } };
    }
    case 'propertyNames': {
      const name = String(e.params.propertyName);
      const inner = all.find((x) => x.instancePath === at && x.schemaPath.startsWith(`${e.schemaPath}/`));
      const hint = inner?.keyword === 'pattern' ? patternHint(String(inner.params.pattern)) : 'be a valid name';
      const pointer = `${at}/${escapePointerToken(name)}`;
      return {
        pointer,
        subject,
        predicate: `has an invalid key ${JSON.stringify(name)}: a key must ${hint}`,
        locate: { pointer, at: 'key' },
      };
    }
    case 'type':
      return simple(`must be ${typeWords(e.params.type)}, got ${describe(data)}${quoteHint(e.params.type, data)}`);
    case 'enum': {
      const allowed = (e.params.allowedValues as unknown[]) ?? [];
      const suggestion =
        typeof data === 'string'
          ? didYouMean(
              data,
              allowed.filter((v): v is string => typeof v === 'string'),
            )
          : '';
      return simple(`must be one of ${allowed.map((v) => String(v)).join(', ')}, got ${describe(data)}${suggestion}`);
    }
    case 'const':
      return simple(`must be ${describe(e.params.allowedValue)}, got ${describe(data)}`);
    case 'pattern':
      return simple(`must ${patternHint(String(e.params.pattern))}, got ${describe(data)}`);
    case 'minLength':
      return simple(e.params.limit === 1 ? 'must not be empty' : `must be at least ${String(e.params.limit)} characters long, got ${lengthOf(data)}`);
    case 'maxLength':
      return simple(`must be at most ${String(e.params.limit)} characters long, got ${lengthOf(data)}`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return simple(rangeWords(schema, 'minimum', 'maximum', e, String(data), ''));
    case 'minItems':
    case 'maxItems':
      return simple(rangeWords(schema, 'minItems', 'maxItems', e, String(Array.isArray(data) ? data.length : '?'), 'items'));
    case 'minProperties':
    case 'maxProperties':
      return simple(rangeWords(schema, 'minProperties', 'maxProperties', e, String(isRecord(data) ? Object.keys(data).length : '?'), 'entries'));
    case 'uniqueItems': {
      const i = Number(e.params.i);
      const j = Number(e.params.j);
      const list = Array.isArray(data) ? data : [];
      return {
        pointer: at,
        subject,
        predicate: `must not repeat a value: items ${Math.min(i, j)} and ${Math.max(i, j)} are both ${describe(list[i])}`,
        locate: { pointer: `${at}/${Math.max(i, j)}`, at: 'value' },
      };
    }
    case 'false schema':
      return simple('is not allowed here');
    case 'not':
      // A field one type of a family refuses says why in its description (a file input's default).
      return simple(typeof schema.description === 'string' ? `is not allowed: ${schema.description}` : 'is not allowed here');
    default:
      return simple(e.message ?? `is invalid (${e.keyword})`);
  }
}

function mark(p: Problem): Problem {
  return { ...p, unknownProperty: true };
}

/** Merges problems of one pointer into one error, placed in the source, in source order. */
function group(problems: readonly Problem[], positions: SourcePositions | undefined): FlowError[] {
  const byPointer = new Map<string, Problem[]>();
  for (const p of problems) {
    const list = byPointer.get(p.pointer);
    if (list) list.push(p);
    else byPointer.set(p.pointer, [p]);
  }
  const out: FlowError[] = [];
  for (const [pointer, list] of byPointer) {
    const first = list[0];
    const sameSubject = list.every((p) => p.subject === first.subject);
    const message = sameSubject
      ? `${first.subject} ${[...new Set(list.map((p) => p.predicate))].join(', and ')}`
      : [...new Set(list.map((p) => `${p.subject} ${p.predicate}`))].join('; ');
    const error: FlowError = { pointer, field: first.field ?? '', message };
    const pos = positions?.locate(first.locate.pointer, first.locate.at);
    if (pos) {
      error.line = pos.line;
      error.column = pos.column;
    }
    out.push(error);
  }
  return out
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.line ?? Infinity) - (b.e.line ?? Infinity) || (a.e.column ?? 0) - (b.e.column ?? 0) || a.i - b.i)
    .map(({ e }) => e);
}

function rangeWords(schema: Record<string, unknown>, minKey: string, maxKey: string, e: ErrorObject, got: string, unit: string): string {
  const min = schema[minKey];
  const max = schema[maxKey];
  const u = unit === '' ? '' : ` ${unit}`;
  const verb = unit === '' ? 'must be' : 'must have';
  if (typeof min === 'number' && typeof max === 'number') return `${verb} between ${min} and ${max}${u}, got ${got}`;
  const limit = String(e.params.limit);
  const isMin = e.keyword.startsWith('min') || e.keyword === 'exclusiveMinimum';
  const strict = e.keyword.startsWith('exclusive');
  const word = isMin ? (strict ? 'more than' : 'at least') : strict ? 'less than' : 'at most';
  const singular = unit === 'items' && limit === '1' ? ' item' : unit === 'entries' && limit === '1' ? ' entry' : u;
  return `${verb} ${word} ${limit}${singular}, got ${got}`;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'empty',
};

function typeNames(t: unknown): string[] {
  if (Array.isArray(t)) return t.map(String);
  return String(t).split(',');
}

function typeWords(t: unknown): string {
  return listWords(
    typeNames(t).map((n) => TYPE_WORDS[n] ?? n),
    'or',
  );
}

/** YAML reads `8080` and `true` as a number and a boolean; say how to get a string. */
function quoteHint(t: unknown, data: unknown): string {
  const wantsString = typeNames(t).includes('string');
  return wantsString && (typeof data === 'number' || typeof data === 'boolean') ? ' (put it in quotes to make it a string)' : '';
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'an empty value';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  // What parsed YAML leaves: a number or a boolean.
  const scalar = v as number | boolean;
  return String(scalar);
}

function lengthOf(data: unknown): string {
  return typeof data === 'string' ? String([...data].length) : '?';
}

function patternHint(pattern: string): string {
  return PATTERN_HINTS.get(pattern) ?? `match the pattern ${pattern}`;
}

function listWords(words: readonly string[], conj = 'and'): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${conj} ${words[words.length - 1]}`;
}

/** ` (did you mean "file"?)` when a candidate is a small edit away. */
function didYouMean(word: string, candidates: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const a = word.toLowerCase();
    const b = c.toLowerCase();
    // A truncated name (`stat` for `states`) is as likely a slip as a typo.
    const d = a.length >= 3 && b.startsWith(a) ? 1 : editDistance(a, b);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const tolerance = Math.max(1, Math.floor(word.length / 3));
  return best !== undefined && bestDistance <= tolerance && best !== word ? ` (did you mean ${JSON.stringify(best)}?)` : '';
}

/** Optimal string alignment distance: a swap of two neighbours (`fiel` for `file`) counts as one edit. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => d[i][j];
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, at(i - 2, j - 2) + 1);
      d[i][j] = v;
    }
  }
  return at(a.length, b.length);
}
