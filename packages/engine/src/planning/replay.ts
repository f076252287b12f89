// Pure planning of a replay (an extension, docs/using/executions.md#replay):
// which tasks of the chosen definition are reused from the original and
// which run, the inputs and labels of the new execution, and which inputs
// changed. No I/O: systems/replay.ts reads the original, the flow and the
// original's task runs, and Starts copies the reused runs at the start.
import type { FlowDefinition } from '@svc/flow-schema';
import { ReplayInvalidError } from '../errors.js';
import { resolveInputs } from './inputs.js';
import type { ReusedRun } from './start-rows.js';
import { secretInputsOf } from './trigger-date.js';

/** The trigger payload keys of a replay: the original's id, and the task it replays from (absent: every task runs). */
export const REPLAY_OF_KEY = 'replay_of';
export const REPLAY_FROM_KEY = 'replay_from';

/** The replay a new execution is, from its trigger payload: the original and the task replayed from; null when it reuses nothing. */
export function replayOf(payload: Record<string, unknown> | null | undefined): { of: string; from: string } | null {
  const of = payload?.[REPLAY_OF_KEY];
  const from = payload?.[REPLAY_FROM_KEY];
  return typeof of === 'string' && typeof from === 'string' ? { of, from } : null;
}

/** Task `from` and every task that depends on it, directly or through others (depends_on). */
export function fromAndDownstream(def: FlowDefinition, from: string): Set<string> {
  const out = new Set([from]);
  for (let grew = true; grew;) {
    grew = false;
    for (const t of def.tasks) {
      if (out.has(t.id) || !(t.depends_on ?? []).some((d) => out.has(d))) continue;
      out.add(t.id);
      grew = true;
    }
  }
  return out;
}

/**
 * The original's SUCCESS runs (latest attempt, by task key) that a replay
 * from `from` copies: those of tasks of `def` that are neither `from` nor
 * downstream of it. Without `from`, none (every task runs).
 */
export function replayReuse(def: FlowDefinition, from: string | undefined, success: ReadonlyMap<string, ReusedRun>): Map<string, ReusedRun> {
  if (from === undefined) return new Map();
  const runAgain = fromAndDownstream(def, from);
  const out = new Map<string, ReusedRun>();
  for (const t of def.tasks) {
    const r = success.get(t.id);
    if (r && !runAgain.has(t.id)) out.set(t.id, r);
  }
  return out;
}

/** Checks that `from` names a task of `def` (422 on `from` otherwise). */
export function checkFrom(def: FlowDefinition, from: string | undefined): void {
  if (from === undefined || def.tasks.some((t) => t.id === from)) return;
  throw new ReplayInvalidError([{ field: 'from', message: `${from} is not a task of this flow (tasks: ${def.tasks.map((t) => t.id).join(', ')})` }]);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The inputs of a replay: the original's (those the chosen definition still
 * declares) with `given` merged over them, validated and coerced like a
 * trigger's (resolveInputs: a wrong type is a 422 on `inputs.<id>`). An
 * input the original read from secret() is stored masked: kept as it is (not
 * validated again) with its recipe carried, unless `given` replaces it.
 * `changed`: the input ids whose value differs from the original's.
 */
export function replayInputs(
  def: FlowDefinition,
  original: { inputs: Record<string, unknown>; trigger_payload: Record<string, unknown> },
  given: Record<string, unknown> | undefined,
): { inputs: Record<string, unknown>; secretInputs: Record<string, string>; changed: string[] } {
  const declared = new Set((def.inputs ?? []).map((d) => d.id));
  const recipes = secretInputsOf(original.trigger_payload);
  const kept = Object.fromEntries(Object.entries(recipes).filter(([k]) => declared.has(k) && (given === undefined || !Object.hasOwn(given, k))));
  const merged: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(original.inputs)) if (declared.has(k) && !Object.hasOwn(kept, k)) merged[k] = v;
  for (const [k, v] of Object.entries(given ?? {})) merged[k] = v;
  // A kept secret input is left out of the check (declared, so never "not an input of this flow").
  const resolved = resolveInputs(
    (def.inputs ?? []).filter((d) => !Object.hasOwn(kept, d.id)),
    merged,
  );
  const inputs = { ...resolved, ...Object.fromEntries(Object.keys(kept).map((k) => [k, original.inputs[k]])) };
  const keys = new Set([...Object.keys(inputs), ...Object.keys(original.inputs)]);
  const changed = [...keys].filter((k) => !same(inputs[k], original.inputs[k])).sort();
  return { inputs, secretInputs: kept, changed };
}

/** The labels of a replay: the original's with `given` merged over them; a label given null is removed. */
export function replayLabels(original: Record<string, string>, given: Record<string, string | null> | undefined): Record<string, string> {
  const out = { ...original };
  for (const [k, v] of Object.entries(given ?? {})) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}
