// Completion inside `{{ … }}` of a flow file: the roots, functions and fields
// of the template language as @svc/flow-schema defines them (the same lists
// its validator checks, so the editor offers exactly what saves), plus the
// flow's own input and task ids read from the text.
import type { CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { EXECUTION_FIELDS, FLOW_FIELDS, TASK_FIELDS, TEMPLATE_FUNCTIONS, TEMPLATE_ROOTS, TRIGGER_FIELDS } from '@svc/flow-schema/templates';

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

/**
 * What to offer with the cursor after `before` (the document up to the
 * cursor): null outside a template expression. `from` is the offset in
 * `before` where the word being completed starts.
 */
export function templateCompletions(before: string, doc = ''): { from: number; options: TemplateOption[] } | null {
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
    return {
      from,
      options: [
        ...TEMPLATE_ROOTS.map((r): TemplateOption => ({ label: r, type: 'variable' })),
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
  return null;
}

/** The CodeMirror completion source of templateCompletions. */
export function templateCompletionSource(ctx: CompletionContext): CompletionResult | null {
  const line = ctx.state.doc.lineAt(ctx.pos);
  const r = templateCompletions(ctx.state.sliceDoc(line.from, ctx.pos), ctx.state.doc.toString());
  if (!r) return null;
  if (r.from === ctx.pos - line.from && !ctx.explicit && !/[.{\s]$/.test(ctx.state.sliceDoc(line.from, ctx.pos))) return null;
  return { from: line.from + r.from, options: r.options, validFor: /^\w*$/ };
}
