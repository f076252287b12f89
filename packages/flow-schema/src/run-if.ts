// The two forms of `run_if`, told apart without the expression language (so
// the web UI can import it through `@svc/flow-schema/templates`).

/** The keyword forms of `run_if`. */
export const RUN_IF_KEYWORDS = ['success', 'failure', 'always'] as const;

/** A `run_if` value of the expression form: all of it one `{{ … }}`; group 1 is the expression. */
export const EXPRESSION_FORM = /^\s*\{\{([\s\S]*)\}\}\s*$/;

/** Whether `runIf` is the expression form (a condition, conditions.ts), not one of the keywords. */
export const isConditionExpression = (runIf: string | undefined): runIf is string => runIf !== undefined && EXPRESSION_FORM.test(runIf);
