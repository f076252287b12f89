// Picking one field of a structured secret, shared by the providers.
import { ProviderError } from '../errors.js';

/** A field's value as text: strings as they are, other JSON values serialized. */
function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * `field` of `data`. Without a field: the field `value` when present, else the
 * only field when there is exactly one; several fields and no choice is an
 * error rather than a guess. Undefined when the named field is absent.
 */
export function pickField(provider: string, path: string, data: Record<string, unknown>, field: string | undefined): string | undefined {
  if (field !== undefined) return Object.hasOwn(data, field) && data[field] !== null ? asText(data[field]) : undefined;
  if (Object.hasOwn(data, 'value')) return asText(data.value);
  const keys = Object.keys(data);
  if (keys.length === 1) return asText(data[keys[0]]);
  if (keys.length === 0) return undefined;
  // Field names are not secret; listing them helps the author pick one.
  throw new ProviderError(provider, `the secret at ${path} has several fields (${keys.sort().join(', ')}); name one with #field`);
}
