import { assertNever } from '@svc/assert';
import type { Expr, ParsedTemplate, TemplateRef } from './ast.js';
import { SecretNotFoundError, TemplateError } from './errors.js';
import { parseTemplate, soleExpression } from './parse.js';
import { keyText, listText, pathText } from './path-text.js';
import type { RenderResult, SecretLookup, TemplateScope } from './scope.js';

/*
 * Values are looked up only as own data properties of plain objects (prototype
 * Object.prototype or null) and as in-range indexes of arrays, so a member
 * named `constructor`, `__proto__` or `prototype` reaches user data or
 * nothing, never a JS internal. Nothing is ever called.
 */

interface Context {
  scope: TemplateScope;
  secrets: SecretLookup | undefined;
  used: string[];
  expression: string;
}

/** Where a lookup failed, for the message: `<owner> has no <noun> "<key>" (<nouns>: a, b)`. */
interface Step {
  /** The value looked into, as written: `tasks.extract.outputs`. */
  owner: string;
  /** Name of one entry in messages about the first level, e.g. `output` for `task "x" has no output "y"`. */
  noun: string;
  /** Subject in messages, e.g. `task "extract"` instead of `tasks.extract.outputs`. */
  subject: string;
}

/**
 * Renders a template against a scope at dispatch.
 * @throws {TemplateError} when a path does not resolve (reason `template_error`).
 * @throws {SecretNotFoundError} when `secret('KEY')` has no value (reason `secret_not_found`).
 * @throws {TemplateSyntaxError} when `t` is a string that does not parse.
 */
export function renderTemplate(t: ParsedTemplate | string, scope: TemplateScope, secrets?: SecretLookup): RenderResult {
  const used: string[] = [];
  return { text: renderInto(t, scope, secrets, used), secretKeysUsed: used };
}

/** Renders every value of a map (env, headers, inputs, files), keeping its keys. */
export function renderTemplateMap(
  map: Record<string, string | ParsedTemplate>,
  scope: TemplateScope,
  secrets?: SecretLookup,
): { values: Record<string, string>; secretKeysUsed: string[] } {
  const used: string[] = [];
  const values: Record<string, string> = {};
  for (const [key, t] of Object.entries(map)) {
    const text = renderInto(t, scope, secrets, used);
    // A `__proto__` key (YAML and JSON loaders make it an own key) must stay a
    // key: plain assignment would try to replace the prototype instead.
    if (key === '__proto__') Object.defineProperty(values, key, { value: text, enumerable: true, writable: true, configurable: true });
    else values[key] = text;
  }
  return { values, secretKeysUsed: used };
}

/** Renders every item of a list (command, args). */
export function renderTemplateList(list: readonly (string | ParsedTemplate)[], scope: TemplateScope, secrets?: SecretLookup): { values: string[]; secretKeysUsed: string[] } {
  const used: string[] = [];
  const values = list.map((t) => renderInto(t, scope, secrets, used));
  return { values, secretKeysUsed: used };
}

/**
 * The value a template names when the whole template is one `{{ expr }}`
 * (blank text around it allowed): a list stays a list, a number a number,
 * where {@link renderTemplate} would write them as text. Any other template
 * gives its rendered text.
 * @throws {TemplateError}, {@link SecretNotFoundError} and {@link TemplateSyntaxError} as renderTemplate does.
 */
export function renderTemplateValue(t: ParsedTemplate | string, scope: TemplateScope, secrets?: SecretLookup): { value: unknown; secretKeysUsed: string[] } {
  const parsed = typeof t === 'string' ? parseTemplate(t) : t;
  const used: string[] = [];
  const only = soleExpression(parsed);
  if (only === undefined) return { value: renderInto(parsed, scope, secrets, used), secretKeysUsed: used };
  return { value: evaluate(only.expr, { scope, secrets, used, expression: only.expression }), secretKeysUsed: used };
}

function renderInto(t: ParsedTemplate | string, scope: TemplateScope, secrets: SecretLookup | undefined, used: string[]): string {
  if (typeof t === 'string') {
    if (!t.includes('{{')) return t;
    t = parseTemplate(t);
  }
  let text = '';
  for (const seg of t.segments) {
    if (seg.kind === 'text') {
      text += seg.text;
      continue;
    }
    const ctx: Context = { scope, secrets, used, expression: seg.expression };
    text += toText(evaluate(seg.expr, ctx), ctx);
  }
  return text;
}

/**
 * How a value is written into text: strings as they are, numbers and booleans
 * by `String`, null as '' (as Pebble does in Kestra; `json()` writes `null`),
 * arrays and objects as compact JSON.
 */
function toText(value: unknown, ctx: Context): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'object':
      return value === null ? '' : toJson(value, ctx);
    case 'function':
    case 'symbol':
    case 'undefined':
      throw new TemplateError(ctx.expression, `value of type ${typeof value} cannot be written as text`);
  }
}

function toJson(value: unknown, ctx: Context): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new TemplateError(ctx.expression, `value cannot be written as JSON (${(cause as Error).message})`, { cause });
  }
  if (text === undefined) throw new TemplateError(ctx.expression, `value of type ${typeof value} cannot be written as JSON`);
  return text;
}

function evaluate(expr: Expr, ctx: Context): unknown {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'secret': {
      const value = ctx.secrets?.(expr.key);
      if (value === undefined) throw new SecretNotFoundError(expr.key, ctx.expression);
      if (!ctx.used.includes(expr.key)) ctx.used.push(expr.key);
      return value;
    }
    case 'json':
      return toJson(evaluate(expr.arg, ctx), ctx);
    case 'default': {
      // Only a path that does not resolve falls back; a missing secret stays
      // `secret_not_found`, so a typo in a key is never silently replaced.
      let value: unknown;
      try {
        value = evaluate(expr.value, ctx);
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        return evaluate(expr.fallback, ctx);
      }
      return value === null ? evaluate(expr.fallback, ctx) : value;
    }
    case 'path':
      return resolve(expr.ref, ctx);
    default:
      return assertNever(expr, 'expression');
  }
}

function resolve(ref: TemplateRef, ctx: Context): unknown {
  const { scope } = ctx;
  const { path } = ref;
  const fail = (detail: string): never => {
    throw new TemplateError(ctx.expression, detail);
  };
  switch (ref.root) {
    case 'inputs':
      return walk(scope.inputs, path, 0, { owner: 'inputs', noun: 'input', subject: 'inputs' }, ctx);
    case 'vars':
      return walk(scope.vars, path, 0, { owner: 'vars', noun: 'variable', subject: 'vars' }, ctx);
    case 'labels':
      return walk(scope.labels, path, 0, { owner: 'labels', noun: 'label', subject: 'labels' }, ctx);
    case 'execution':
      return walk(scope.execution, path, 0, { owner: 'execution', noun: 'field', subject: 'execution' }, ctx);
    case 'flow':
      return walk(scope.flow, path, 0, { owner: 'flow', noun: 'field', subject: 'flow' }, ctx);
    case 'tasks': {
      const taskId = path[0] as string;
      const task = own(scope.tasks, taskId);
      const subject = `task ${JSON.stringify(taskId)}`;
      if (task === undefined || task === null || typeof task !== 'object') {
        const known = isPlainObject(scope.tasks) ? Object.keys(scope.tasks) : [];
        return fail(`${subject} is not available: it is not an upstream task that has ended (available: ${listText(known)})`);
      }
      const field = path[1] as 'outputs' | 'state' | 'files';
      const value = own(task, field);
      if (field === 'files' && value === undefined) return fail(`${subject} kept no output files`);
      if (value === undefined || (field === 'outputs' && value === null)) return fail(`${subject} has no ${field}`);
      const owner = pathText('tasks', path, 2);
      return walk(value, path, 2, { owner, noun: field === 'files' ? 'output file' : 'output', subject }, ctx);
    }
    case 'trigger': {
      const field = path[0] as 'body' | 'headers' | 'outputs' | 'date';
      if (!isPlainObject(scope.trigger)) return fail('trigger is not available: the execution was not started by a trigger');
      const value = own(scope.trigger, field);
      if (value === undefined) {
        return fail(field === 'date' ? 'trigger.date is not available: the execution was not started by a schedule' : `trigger.${field} is not available for this trigger`);
      }
      const noun = field === 'headers' ? 'header' : field === 'outputs' ? 'output' : 'key';
      return walk(value, path, 1, { owner: `trigger.${field}`, noun, subject: `trigger.${field}` }, ctx);
    }
    case 'item':
    case 'item_index':
      // Absent from the scope of any task run that is not an item of a for_each task (null is an item's value).
      if (scope[ref.root] === undefined) return fail(`${ref.root} is only defined in a task with for_each`);
      return walk(scope[ref.root], path, 0, { owner: ref.root, noun: 'key', subject: ref.root }, ctx);
    default:
      return assertNever(ref.root, 'root');
  }
}

/** Follows `path` from `start` into `value`; the first level uses `step` wording, deeper levels plain `key`. */
function walk(value: unknown, path: readonly (string | number)[], start: number, step: Step, ctx: Context): unknown {
  let current = value;
  let owner = step.owner;
  if (current === undefined) throw new TemplateError(ctx.expression, `${owner} is not available here`);
  for (let i = start; i < path.length; i++) {
    const key = path[i];
    const first = i === start;
    const subject = first ? step.subject : owner;
    const noun = first ? step.noun : 'key';
    if (Array.isArray(current)) {
      if (typeof key !== 'number') {
        throw new TemplateError(ctx.expression, `${owner} is a list: use an index such as ${owner}[0], not ${keyText(key)}`);
      }
      if (key >= current.length) {
        throw new TemplateError(ctx.expression, `${owner} has ${current.length} item${current.length === 1 ? '' : 's'}, no index ${key}`);
      }
      current = current[key];
    } else if (isPlainObject(current)) {
      const next = own(current, String(key));
      if (next === undefined) {
        const keys = Object.keys(current);
        throw new TemplateError(ctx.expression, `${subject} has no ${noun} ${keyText(key)} (${noun}s: ${listText(keys)})`);
      }
      current = next;
    } else {
      throw new TemplateError(ctx.expression, `${owner} is ${describe(current)}, it has no ${noun} ${keyText(key)}`);
    }
    owner += memberSuffix(key);
  }
  return current;
}

function memberSuffix(key: string | number): string {
  return pathText('', [key]);
}

/** An own data property of a plain object, else undefined. Getters are never run. */
function own(container: unknown, key: string): unknown {
  if (!isPlainObject(container)) return undefined;
  const desc = Object.getOwnPropertyDescriptor(container, key);
  return desc !== undefined && 'value' in desc ? desc.value : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      // Not plain data (a Map, a Date...): nothing is read from it, not even its class name.
      return 'not plain data';
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
    default: // not reached, but TypeScript cannot tell here
      return `of type ${typeof value}`;
  }
}
