// Trigger-time inputs: validated and coerced against the flow's inputs.
import type { FlowInput } from '@svc/flow-schema';

import { InputsInvalidError, type EngineErrorDetail } from '../errors.js';

export { InputsInvalidError };
export type InputProblem = EngineErrorDetail;

function coerce(def: FlowInput, v: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  switch (def.type) {
    case 'string':
      if (typeof v === 'string') return { ok: true, value: v };
      if (typeof v === 'number' || typeof v === 'boolean') return { ok: true, value: String(v) };
      return { ok: false, message: 'must be a string' };
    case 'int': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      return typeof n === 'number' && Number.isSafeInteger(n) ? { ok: true, value: n } : { ok: false, message: 'must be an integer' };
    }
    case 'number': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      return typeof n === 'number' && Number.isFinite(n) ? { ok: true, value: n } : { ok: false, message: 'must be a number' };
    }
    case 'boolean':
      if (typeof v === 'boolean') return { ok: true, value: v };
      if (v === 'true' || v === 'false') return { ok: true, value: v === 'true' };
      return { ok: false, message: 'must be true or false' };
    case 'select': {
      const match = def.values.find((x) => x === v || String(x) === String(v));
      return match !== undefined ? { ok: true, value: match } : { ok: false, message: `must be one of: ${def.values.map((x) => JSON.stringify(x)).join(', ')}` };
    }
    case 'json':
      if (typeof v === 'string') {
        try {
          return { ok: true, value: JSON.parse(v) };
        } catch {
          return { ok: true, value: v };
        }
      }
      return { ok: true, value: v };
    case 'file':
      // The id of an upload (createUpload); that it exists in the namespace is checked as the execution starts (file-inputs.ts).
      return typeof v === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(v) ? { ok: true, value: v } : { ok: false, message: 'must be the id of an upload (createUpload)' };
    default:
      return { ok: false, message: 'has an unknown type' };
  }
}

/**
 * The inputs of a new execution: declared inputs coerced to their type,
 * defaults applied; a required input without value or default, a value of the
 * wrong type, or an undeclared input is an error naming `inputs.<id>`.
 */
export function resolveInputs(defs: readonly FlowInput[] | undefined, given: Record<string, unknown> | undefined): Record<string, unknown> {
  const problems: InputProblem[] = [];
  const out: Record<string, unknown> = {};
  const declared = new Set((defs ?? []).map((d) => d.id));
  for (const key of Object.keys(given ?? {})) if (!declared.has(key)) problems.push({ field: `inputs.${key}`, message: 'is not an input of this flow' });
  for (const def of defs ?? []) {
    const has = given !== undefined && Object.hasOwn(given, def.id) && given[def.id] !== null;
    if (!has) {
      if (def.default !== undefined) out[def.id] = def.default;
      else if (def.required) problems.push({ field: `inputs.${def.id}`, message: 'is required' });
      continue;
    }
    const r = coerce(def, given[def.id]);
    if (r.ok) out[def.id] = r.value;
    else problems.push({ field: `inputs.${def.id}`, message: r.message });
  }
  if (problems.length) throw new InputsInvalidError(problems);
  return out;
}
