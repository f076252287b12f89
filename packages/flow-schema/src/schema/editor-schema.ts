// The flow schema as editors read it. The schema closes the task, trigger,
// executor and input objects with `unevaluatedProperties: false` (a field
// counts only when the `then` of its `type` declares it), a draft 2019-09
// keyword. Editors built on draft-07 validators, VS Code's YAML extension
// (yaml-language-server) among them, skip that keyword, so a typo in a task
// key went unflagged there. This copy adds to each such object a
// `propertyNames` enum of every field some type of it takes (draft-06, known
// to those validators). It evaluates no property, so it never makes
// `unevaluatedProperties` accept more, and it rejects only names that
// `unevaluatedProperties` rejects already: what a full validator accepts is
// unchanged, and a draft-07 one now flags unknown keys (a field of another
// type, e.g. `url` on a command task, still needs the full validator).
import type { SchemaNode } from './builders.js';
import { flowSchema } from './flow-schema.js';

/** Every property name a `type`-discriminated object declares: its own and each `then`'s. */
function declaredNames(node: SchemaNode): string[] {
  const names = new Set(Object.keys((node.properties as Record<string, unknown> | undefined) ?? {}));
  for (const rule of (node.allOf as SchemaNode[] | undefined) ?? []) {
    const then = rule.then as SchemaNode | undefined;
    for (const k of Object.keys((then?.properties as Record<string, unknown> | undefined) ?? {})) names.add(k);
  }
  return [...names];
}

/** `schema` with a `propertyNames` enum beside every `unevaluatedProperties: false` of its `$defs`. */
export function withPropertyNames(schema: SchemaNode): SchemaNode {
  const copy = structuredClone(schema);
  const defs = copy.$defs as Record<string, SchemaNode>;
  for (const def of Object.values(defs)) {
    if (def.unevaluatedProperties !== false) continue;
    def.propertyNames = { enum: declaredNames(def).sort() };
  }
  return copy;
}

/**
 * The schema served at GET /api/v1/schemas/flow.json: {@link flowSchema} with
 * `propertyNames` for draft-07 editors. The service validates flows with
 * {@link flowSchema} itself.
 */
export const editorFlowSchema: SchemaNode = withPropertyNames(flowSchema);
