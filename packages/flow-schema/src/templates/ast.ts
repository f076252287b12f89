/** The names an expression may start with (docs/using/flows.md, "Templates"). */
export const TEMPLATE_ROOTS = ['inputs', 'vars', 'labels', 'execution', 'flow', 'tasks', 'trigger', 'item', 'item_index'] as const;
export type TemplateRoot = (typeof TEMPLATE_ROOTS)[number];

/**
 * The roots defined only in the templates of a task with `for_each` (not in
 * its `for_each` itself): the item's value and its 0-based index. The flow
 * validator refuses them anywhere else.
 */
export const FOR_EACH_ROOTS = ['item', 'item_index'] as const satisfies readonly TemplateRoot[];
export type ForEachRoot = (typeof FOR_EACH_ROOTS)[number];

/** Whether `root` is one of {@link FOR_EACH_ROOTS}. */
export const isForEachRoot = (root: string): root is ForEachRoot => (FOR_EACH_ROOTS as readonly string[]).includes(root);

/** The functions an expression may call. */
export const TEMPLATE_FUNCTIONS = ['secret', 'json', 'default'] as const;
export type TemplateFunction = (typeof TEMPLATE_FUNCTIONS)[number];

/** One path read by a template, e.g. `tasks.extract.outputs.rows`. */
export interface TemplateRef {
  root: TemplateRoot;
  /**
   * Members after the root: names as strings, array indexes as numbers.
   * Header names under `trigger.headers` are already lower-cased.
   */
  path: (string | number)[];
  /** The path as written in the source, e.g. `trigger.headers["X-Signature"]`. */
  text: string;
}

/** A literal value written in an expression. */
export type TemplateLiteral = string | number | boolean | null;

/** The syntax tree of one expression. */
export type Expr =
  | { kind: 'path'; ref: TemplateRef; offset: number }
  | { kind: 'literal'; value: TemplateLiteral }
  | { kind: 'secret'; key: string; offset: number }
  | { kind: 'json'; arg: Expr }
  | { kind: 'default'; value: Expr; fallback: Expr };

/** A piece of a template: literal text or one `{{ expr }}`. */
export type Segment =
  | { kind: 'text'; text: string }
  | {
      kind: 'expression';
      /** Source between the braces, trimmed, e.g. `inputs.name`. */
      expression: string;
      /** Offset of the opening `{{` in the template source. */
      offset: number;
      expr: Expr;
    };

/** A template checked at save time and ready to render at dispatch. */
export interface ParsedTemplate {
  source: string;
  segments: Segment[];
  /** Source of each expression (trimmed, without braces), in order. */
  expressions: string[];
  /** Keys named by `secret('KEY')`, deduplicated, in order of first use. */
  secretKeys: string[];
  /** Tasks referenced through `tasks.<id>`, one entry per distinct (task, expression). */
  taskRefs: { taskId: string; expression: string }[];
  /** Roots used, deduplicated, in order of first use. */
  roots: TemplateRoot[];
  /** Every path read, in order (including those inside `json()` and `default()`). */
  refs: TemplateRef[];
}
