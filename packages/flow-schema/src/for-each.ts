// `for_each`: the list a fan-out task runs over (docs/using/flows.md,
// "Fan-out: for_each"). A literal list is taken as written; a template is one
// `{{ expression }}` evaluated to the value it names (a list stays a list),
// and an upstream output written as JSON text (`'["a", "b"]'`) is read as the
// list it holds. The engine calls renderForEach as the task becomes ready, so
// every failure is a message for the task run, never a throw.
import type { FlowTask } from './flow-definition.js';
import { FOR_EACH_MAX_ITEMS } from './schema/defs-task.js';
import { parseTemplate, renderTemplateValue, SecretNotFoundError, soleExpression, TemplateError, TemplateSyntaxError } from './templates/index.js';

/** The items of a fan-out, or why there are none to run. */
export type ForEachItems = { ok: true; items: unknown[] } | { ok: false; error: string };

/** At most this many characters of a value's JSON in an error about it. */
const SHOWN = 80;

/** `null`, `object`, `string`, `number`, `boolean`: the JSON type of a value that is not a list. */
function typeName(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

/**
 * The items of `task`'s `for_each` over `scope` (the scope of the task's
 * templates; `item` and `item_index` are not read, since `for_each` may not
 * use them). `secret()` is refused at save time, so none is looked up here.
 */
export function renderForEach(task: FlowTask, scope: object): ForEachItems {
  const spec = task.for_each;
  const fail = (error: string): ForEachItems => ({ ok: false, error });
  if (spec === undefined) return fail(`task ${task.id} has no for_each`);
  let value: unknown = spec;
  if (typeof spec === 'string') {
    try {
      const parsed = parseTemplate(spec);
      if (soleExpression(parsed) === undefined)
        return fail(`for_each of task ${task.id}: must be one {{ expression }} that gives a list, got ${JSON.stringify(spec).slice(0, SHOWN)}`);
      // The renderer reads only own data of plain objects, so any object the engine passes is safe as a scope.
      value = renderTemplateValue(parsed, scope).value;
    } catch (err) {
      if (err instanceof TemplateError || err instanceof SecretNotFoundError || err instanceof TemplateSyntaxError) return fail(`for_each of task ${task.id}: ${err.message}`);
      throw err;
    }
    if (typeof value === 'string') value = listInText(value) ?? value;
  }
  if (!Array.isArray(value)) {
    const json = JSON.stringify(value) ?? String(value);
    return fail(`for_each of task ${task.id} must be a list; got ${typeName(value)} ${json.slice(0, SHOWN)}`);
  }
  if (value.length > FOR_EACH_MAX_ITEMS) return fail(`for_each of task ${task.id} has ${value.length} items; at most ${FOR_EACH_MAX_ITEMS}`);
  return { ok: true, items: value };
}

/** The list a string holds as JSON text (an output written by a script), or undefined. */
function listInText(text: string): unknown[] | undefined {
  if (!text.trimStart().startsWith('[')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
