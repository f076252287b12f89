import { assertNever } from '@svc/assert';
import type { TemplateRoot } from './ast.js';
import { keyText, listText, pathText } from './path-text.js';

/** One member of a path as parsed, with where it was written. */
export interface PathMember {
  key: string | number;
  /** Offset in the template source. */
  offset: number;
}

/** A path the roots do not allow, found at save time. */
export interface PathProblem {
  /** e.g. `unknown field "foo" of execution`. */
  what: string;
  /** Shown in parentheses after the expression, e.g. `fields: id, namespace`. */
  hint?: string;
  offset: number;
}

export const EXECUTION_FIELDS = ['id', 'namespace', 'flow_id', 'start_date'] as const;
export const FLOW_FIELDS = ['id', 'namespace'] as const;
export const TASK_FIELDS = ['outputs', 'state', 'approval', 'files'] as const;
/** What `tasks.<id>.approval` holds once the task's approval gate (an extension) was reached; `inputs` are the form's values. */
export const APPROVAL_FIELDS = ['status', 'by', 'at', 'comment', 'inputs'] as const;
export const TRIGGER_FIELDS = ['body', 'headers', 'outputs', 'date'] as const;

/**
 * Checks the members after a root against docs/using/flows.md ("Templates"). The
 * shapes fixed by the service (execution, flow, tasks, trigger, item_index, and
 * string maps whose values have no members) are checked here so a typo fails
 * at save time; data shaped by users (inputs, bodies, outputs, a for_each
 * item) is only checked at dispatch. Lower-cases header names in place, since `trigger.headers` holds
 * lower-case names and HTTP header names are case-insensitive.
 */
export function checkRootPath(root: TemplateRoot, members: PathMember[], rootOffset: number): PathProblem | undefined {
  switch (root) {
    case 'inputs':
    case 'item':
      return undefined;
    case 'item_index': {
      const extra = members[0];
      return extra === undefined ? undefined : { what: `item_index is a number and has no member ${keyText(extra.key)}`, offset: extra.offset };
    }
    case 'vars':
    case 'labels':
      return leafAt(root, members, 1);
    case 'execution':
      return field(root, members, 0, EXECUTION_FIELDS, rootOffset) ?? leafAt(root, members, 1);
    case 'flow':
      return field(root, members, 0, FLOW_FIELDS, rootOffset) ?? leafAt(root, members, 1);
    case 'tasks': {
      const id = members[0];
      if (id === undefined) {
        return { what: 'tasks needs a task id and a field', hint: 'e.g. tasks.extract.outputs.rows', offset: rootOffset };
      }
      if (typeof id.key !== 'string') {
        return { what: `a task id is a name, not ${keyText(id.key)}`, hint: 'e.g. tasks.extract.outputs.rows', offset: id.offset };
      }
      const problem = field(root, members, 1, TASK_FIELDS, id.offset);
      if (problem !== undefined) return problem;
      if (members[1]?.key === 'approval') {
        // tasks.<id>.approval.<field>; the form's values (inputs) are shaped by the flow's author.
        const f = field(root, members, 2, APPROVAL_FIELDS, members[1].offset);
        if (f !== undefined) return f;
        return members[2]?.key === 'inputs' ? undefined : leafAt(root, members, 3);
      }
      if (members[1]?.key === 'files') {
        // tasks.<id>.files['out/a.csv']: the local path of an output file of the task (docs/using/files.md).
        const file = members[2];
        const hint = "e.g. tasks.extract.files['out/a.csv']";
        if (file === undefined) return { what: `tasks.${String(id.key)}.files needs a file path`, hint, offset: members[1].offset };
        if (typeof file.key !== 'string') return { what: `a file path is a string, not ${keyText(file.key)}`, hint, offset: file.offset };
        return leafAt(root, members, 3);
      }
      return members[1]?.key === 'state' ? leafAt(root, members, 2) : undefined;
    }
    case 'trigger': {
      const problem = field(root, members, 0, TRIGGER_FIELDS, rootOffset);
      if (problem !== undefined) return problem;
      if (members[0]?.key === 'date') return leafAt(root, members, 1);
      if (members[0]?.key !== 'headers') return undefined;
      const header = members[1];
      if (header !== undefined && typeof header.key === 'string') header.key = header.key.toLowerCase();
      return leafAt(root, members, 2);
    }
    default:
      return assertNever(root, 'root');
  }
}

/** `members[index]` must be one of `fields`. */
function field(root: TemplateRoot, members: PathMember[], index: number, fields: readonly string[], previousOffset: number): PathProblem | undefined {
  const owner = pathText(
    root,
    members.map((m) => m.key),
    index,
  );
  const member = members[index];
  if (member === undefined) {
    return { what: `${owner} needs a field`, hint: `fields: ${fields.join(', ')}`, offset: previousOffset };
  }
  if (typeof member.key === 'string' && fields.includes(member.key)) return undefined;
  return { what: `unknown field ${keyText(member.key)} of ${owner}`, hint: `fields: ${listText(fields)}`, offset: member.offset };
}

/** The value at depth `depth` is a string: nothing may follow it. */
function leafAt(root: TemplateRoot, members: PathMember[], depth: number): PathProblem | undefined {
  const extra = members[depth];
  if (extra === undefined) return undefined;
  const keys = members.map((m) => m.key);
  return { what: `${pathText(root, keys, depth)} is a string and has no member ${keyText(extra.key)}`, offset: extra.offset };
}
