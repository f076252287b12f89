// `run_if` as an expression: `run_if: "{{ inputs.env == 'prod' && tasks.check.outputs.rows > 0 }}"`.
// Inside the braces is a CEL expression (the Common Expression Language of
// Kubernetes admission rules and Google's IAM conditions), evaluated by
// @marcbachmann/cel-js: no `eval`, no access to prototypes or to anything
// but the values passed in, no loops (CEL is not Turing complete), and parse
// limits on its size and depth, so one evaluation is bounded by the size of
// the expression and of the data it reads. Docs: docs/using/conditions.md.
//
// It reads the roots below. JSON numbers that are whole become CEL `int`s
// (so `rows > 0` and `rows + 1` type-check as a user expects) and the others
// `double`s; a condition must evaluate to a bool.
import { Environment, ParseError, TypeError as CelTypeError, type ParseResult } from '@marcbachmann/cel-js';
import { EXPRESSION_FORM } from './run-if.js';

/** The roots a condition may read; `vars` is not one (the planner decides conditions without reading the namespace's variables). */
export const CONDITION_ROOTS = ['inputs', 'tasks', 'trigger', 'execution', 'flow', 'labels'] as const;
export type ConditionRoot = (typeof CONDITION_ROOTS)[number];

export { isConditionExpression, RUN_IF_KEYWORDS } from './run-if.js';

/** A condition that does not parse or type-check: its message and where in the `run_if` value (1-based line and column). */
export class ConditionError extends Error {
  override readonly name = 'ConditionError';
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

/** A condition ready to evaluate. */
export interface Condition {
  /** The expression between the braces, trimmed. */
  readonly text: string;
  /** Task ids the expression names as `tasks.<id>` or `tasks['<id>']`. */
  readonly taskRefs: readonly string[];
  /** The compiled expression. */
  readonly run: ParseResult;
}

const env = new Environment({
  unlistedVariablesAreDyn: false,
  limits: { maxAstNodes: 500, maxDepth: 32, maxListElements: 100, maxMapEntries: 100, maxCallArguments: 8 },
});
for (const root of CONDITION_ROOTS) env.registerVariable(root, 'map');

const compiled = new Map<string, Condition>();
const CACHE_MAX = 1000;

/** 1-based line and column of `offset` in `source`. */
function lineColumn(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, Math.max(0, offset));
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** The first line of a cel-js message (the rest repeats the source with a caret, which our error gives as line and column). */
const summaryOf = (err: Error & { summary?: string }) => (err.summary ?? err.message).split('\n')[0];

/**
 * Compiles the expression form of `run_if` (cached by its text). Throws
 * ConditionError with the line and column in `runIf` of a syntax error, an
 * unknown root, or an expression that is not a bool.
 */
export function compileCondition(runIf: string): Condition {
  const cached = compiled.get(runIf);
  if (cached) return cached;
  const m = EXPRESSION_FORM.exec(runIf);
  if (!m) throw new ConditionError(`run_if must be success, failure, always or one {{ expression }}`, 1, 1);
  const inner = m[1];
  const start = runIf.indexOf('{{') + 2;
  const at = (offset: number) => lineColumn(runIf, start + offset);
  if (!inner.trim()) {
    const { line, column } = at(0);
    throw new ConditionError('the expression is empty', line, column);
  }
  let run: ParseResult;
  try {
    run = env.parse(inner);
  } catch (err) {
    if (!(err instanceof ParseError || err instanceof CelTypeError)) throw err;
    const { line, column } = at((err as ParseError & { range?: { start: number } }).range?.start ?? 0);
    throw new ConditionError(summaryOf(err), line, column);
  }
  const checked = run.check();
  if (!checked.valid) {
    const e = checked.error as (Error & { range?: { start: number } }) | undefined;
    const { line, column } = at(e?.range?.start ?? 0);
    throw new ConditionError(e ? summaryOf(e) : 'the expression does not type-check', line, column);
  }
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    const { line, column } = at(inner.length - inner.trimStart().length);
    throw new ConditionError(`the expression is of type ${checked.type}, not bool (compare it: e.g. == 'prod', > 0)`, line, column);
  }
  const taskRefs = new Set<string>();
  for (const r of inner.matchAll(/\btasks\s*(?:\.\s*([a-z][a-z0-9_]*)|\[\s*(['"])([a-z][a-z0-9_]*)\2\s*\])/g)) taskRefs.add(r[1] ?? r[3]);
  const condition: Condition = { text: inner.trim(), taskRefs: [...taskRefs], run };
  if (compiled.size >= CACHE_MAX) compiled.delete(compiled.keys().next().value!);
  compiled.set(runIf, condition);
  return condition;
}

/** `value` with whole numbers as BigInt (CEL ints) and the rest as is, recursively (plain data only). */
function celValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(celValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = celValue(v);
    return out;
  }
  return value;
}

/** What a condition decided: true or false, or why it could not be evaluated. */
export type ConditionOutcome = { ok: true; value: boolean } | { ok: false; error: string };

/** Evaluates a compiled condition over the template scope's roots (absent roots are empty maps). */
export function evaluateCondition(c: Condition, scope: Partial<Record<ConditionRoot, unknown>>): ConditionOutcome {
  const context: Record<string, unknown> = {};
  for (const root of CONDITION_ROOTS) context[root] = celValue(scope[root] ?? {});
  try {
    const value: unknown = c.run(context);
    if (typeof value !== 'boolean')
      return { ok: false, error: `run_if {{ ${c.text} }} gave ${typeof value === 'bigint' ? String(value) : JSON.stringify(value)}, not true or false` };
    return { ok: true, value };
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    return { ok: false, error: `run_if {{ ${c.text} }}: ${summaryOf(err)}` };
  }
}
