// Completion inside `{{ … }}` of a flow file: the roots, functions and fields
// of the template language as @svc/flow-schema defines them (the same lists
// its validator checks, so the editor offers exactly what saves), plus the
// flow's own input and task ids read from the text. `item` and `item_index`
// are offered only in a task with `for_each`, outside its `for_each` value,
// the one place the validator accepts them.
import type { CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { APPROVAL_FIELDS, EXECUTION_FIELDS, FLOW_FIELDS, isForEachRoot, TASK_FIELDS, TEMPLATE_FUNCTIONS, TEMPLATE_ROOTS, TRIGGER_FIELDS } from '@svc/flow-schema/templates';

export interface TemplateOption {
  label: string;
  /** 'variable' for a root, 'function' for a call, 'property' for a field or id. */
  type: 'variable' | 'function' | 'property';
  detail?: string;
  /** Text inserted instead of the label (a call's opening parenthesis). */
  apply?: string;
}

const DETAILS: Record<string, string> = {
  'execution.id': "the execution's id",
  'execution.namespace': "the execution's namespace",
  'execution.flow_id': "the execution's flow id",
  'execution.start_date': 'when the execution started, RFC 3339 (UTC)',
  'trigger.date': "the schedule's fire time the execution is for, RFC 3339 with the schedule's offset",
  'trigger.body': "a webhook's request body",
  'trigger.headers': "a webhook's request headers (lower-case names)",
  'trigger.outputs': "the upstream execution's outputs (flow trigger)",
  'flow.id': 'the flow id',
  'flow.namespace': "the flow's namespace",
  item: 'the for_each item this task run is for (any JSON value)',
  item_index: "the item's 0-based index in the for_each list",
  'tasks.approval': 'a task with an approval gate: its decision (status, by, at, comment, inputs)',
  'tasks.files': "an upstream task's output files by path, as local paths: tasks.<id>.files['out/a.csv']",
  'approval.status': 'pending, approved, rejected or timed_out',
  'approval.by': 'who decided (an email; empty when the timeout did)',
  'approval.at': 'when the decision was made, RFC 3339 (UTC)',
  'approval.comment': "the approver's comment",
  'approval.inputs': "the gate's form values, by field id",
};

const FIELDS: Record<string, readonly string[]> = { execution: EXECUTION_FIELDS, flow: FLOW_FIELDS, trigger: TRIGGER_FIELDS };

/** Ids declared in the flow's `inputs` and `tasks` lists (`- id: x` or `- {id: x, …}`), in order. */
export function declaredIds(doc: string): { inputs: string[]; tasks: string[] } {
  const out = { inputs: [] as string[], tasks: [] as string[] };
  let list: 'inputs' | 'tasks' | null = null;
  for (const line of doc.split('\n')) {
    const top = /^([A-Za-z_][\w-]*):/.exec(line);
    if (top) list = top[1] === 'inputs' || top[1] === 'tasks' ? top[1] : null;
    const item = list && /^\s*-\s*(?:\{\s*)?id:\s*["']?([A-Za-z0-9_][\w-]*)/.exec(line);
    if (list && item && !out[list].includes(item[1])) out[list].push(item[1]);
  }
  return out;
}

const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * Whether line `at` (0-based) of `doc` lies in an item of the top-level
 * `tasks` list that has a `for_each` key (block or flow style). Reads the
 * text as the editor holds it, so a half-typed file still answers.
 */
export function inForEachTask(doc: string, at: number): boolean {
  const lines = doc.split('\n');
  if (at < 0 || at >= lines.length) return false;
  let tasks = -1;
  for (let i = at; i >= 0; i--) {
    const top = /^([A-Za-z_][\w-]*):/.exec(lines[i]);
    if (top) {
      tasks = top[1] === 'tasks' ? i : -1;
      break;
    }
  }
  if (tasks < 0) return false;
  // The list's items start with `-` at the indent of its first item.
  const first = lines.slice(tasks + 1).find((l) => /^\s*-(\s|$)/.test(l));
  if (first === undefined) return false;
  const indent = indentOf(first);
  const isItemStart = (l: string) => indentOf(l) === indent && /^\s*-(\s|$)/.test(l);
  let start = at;
  while (start > tasks && !isItemStart(lines[start])) start--;
  if (start === tasks) return false;
  let end = start + 1;
  while (end < lines.length && !isItemStart(lines[end]) && !/^[A-Za-z_][\w-]*:/.test(lines[end])) end++;
  return /(^|[\s{,])for_each\s*:/m.test(lines.slice(start, end).join('\n'));
}

/** The key whose value the cursor is in on its line (`for_each` in `  for_each: "{{ `), if the line has one. */
function keyBefore(before: string): string | undefined {
  let key: string | undefined;
  for (const m of before.matchAll(/([A-Za-z_][\w-]*)\s*:(?=\s|$)/g)) key = m[1];
  return key;
}

/**
 * What to offer with the cursor after `before` (the document up to the
 * cursor, on its line): null outside a template expression. `from` is the
 * offset in `before` where the word being completed starts. `line` is the
 * cursor's line in `doc` (0-based): `item` and `item_index` are offered
 * when it is in a task with `for_each`, and not in that `for_each` itself.
 */
export function templateCompletions(before: string, doc = '', line = -1): { from: number; options: TemplateOption[] } | null {
  const open = before.lastIndexOf('{{');
  if (open < 0 || before.lastIndexOf('}}') > open) return null;
  const m = /((?:[A-Za-z_][\w-]*\.)*)([A-Za-z_]\w*)?$/.exec(before);
  if (!m) return null;
  const word = m[2] ?? '';
  const from = before.length - word.length;
  const path = m[1] ? m[1].slice(0, -1).split('.') : [];
  // A path right after the braces or an operator-free position: roots and functions.
  if (!path.length) {
    if (before[from - 1] === '.') return null;
    const items = keyBefore(before) !== 'for_each' && inForEachTask(doc, line);
    return {
      from,
      options: [
        ...TEMPLATE_ROOTS.filter((r) => items || !isForEachRoot(r)).map((r): TemplateOption => ({ label: r, type: 'variable', ...(DETAILS[r] ? { detail: DETAILS[r] } : {}) })),
        ...TEMPLATE_FUNCTIONS.map((f): TemplateOption => ({ label: f, type: 'function', apply: `${f}(` })),
      ],
    };
  }
  const [root, ...rest] = path as [string, ...string[]];
  const ids = declaredIds(doc);
  const fields = (names: readonly string[], owner: string): TemplateOption[] =>
    names.map((n) => ({ label: n, type: 'property', ...(DETAILS[`${owner}.${n}`] ? { detail: DETAILS[`${owner}.${n}`] } : {}) }));
  if (rest.length === 0) {
    if (FIELDS[root]) return { from, options: fields(FIELDS[root], root) };
    if (root === 'inputs') return { from, options: ids.inputs.map((i) => ({ label: i, type: 'property' })) };
    if (root === 'tasks') return { from, options: ids.tasks.map((i) => ({ label: i, type: 'property' })) };
    return null;
  }
  if (root === 'tasks' && rest.length === 1) return { from, options: fields(TASK_FIELDS, 'tasks') };
  // A task's approval gate (an extension): the decision's fields.
  if (root === 'tasks' && rest.length === 2 && rest[1] === 'approval') return { from, options: fields(APPROVAL_FIELDS, 'approval') };
  return null;
}

/** The CodeMirror completion source of templateCompletions. */
export function templateCompletionSource(ctx: CompletionContext): CompletionResult | null {
  const line = ctx.state.doc.lineAt(ctx.pos);
  const r = templateCompletions(ctx.state.sliceDoc(line.from, ctx.pos), ctx.state.doc.toString(), line.number - 1);
  if (!r) return null;
  if (r.from === ctx.pos - line.from && !ctx.explicit && !/[.{\s]$/.test(ctx.state.sliceDoc(line.from, ctx.pos))) return null;
  return { from: line.from + r.from, options: r.options, validFor: /^\w*$/ };
}
