// The parts of a flow that the interface specification does not define: svc's
// extensions of the flow format (marked `x-svc-extension` in the served JSON
// Schema). A flow that uses none is portable to any implementation of the
// specification; `svc flow validate --spec-only` refuses the ones listed here.
import { isConditionExpression } from './conditions.js';
import type { FlowDefinition } from './flow-definition.js';
import { fieldPath } from './field-path.js';
import type { SourcePositions } from './positions.js';

/** One use of an extension: where (JSON pointer and field path) and what. */
export interface ExtensionUse {
  pointer: string;
  field: string;
  /** e.g. `run_if as an expression`. */
  what: string;
  /** Where in the source, when its positions were given. */
  line?: number;
  column?: number;
}

/** The extensions `flow` uses, in task order (with their places in the source when `positions` is given). */
export function flowExtensions(flow: FlowDefinition, positions?: SourcePositions): ExtensionUse[] {
  const out: ExtensionUse[] = [];
  const add = (pointer: string, what: string) => {
    const at = positions?.locate(pointer);
    out.push({ pointer, field: fieldPath(pointer, flow), what, ...(at ? { line: at.line, column: at.column } : {}) });
  };
  flow.tasks.forEach((t, i) => {
    if (isConditionExpression(t.run_if)) add(`/tasks/${i}/run_if`, 'run_if as an {{ expression }}');
    if (t.for_each !== undefined) add(`/tasks/${i}/for_each`, 'for_each (a fan-out over a list)');
    if (t.for_each_concurrency !== undefined) add(`/tasks/${i}/for_each_concurrency`, 'for_each_concurrency');
    if (t.fail_fast !== undefined) add(`/tasks/${i}/fail_fast`, 'fail_fast');
    if (t.approval !== undefined) add(`/tasks/${i}/approval`, 'approval (an approval gate)');
    if ((t.type === 'script' || t.type === 'command') && t.output_files !== undefined) add(`/tasks/${i}/output_files`, 'output_files (files kept after the task)');
  });
  return out;
}
