// How deeply a JSON document the service accepts may nest. JSON.parse takes
// any depth, but what comes after does not: ajv and JSON.stringify recurse,
// and PostgreSQL refuses jsonb past its stack depth (a 500, or a task run
// whose end cannot be recorded). So every JSON that comes from outside (API
// bodies, webhook bodies, runner outputs) is measured before it is parsed.

/** Deepest nesting of arrays and objects accepted in a JSON document from outside (the top level counts as 1). */
export const MAX_JSON_DEPTH = 64;

/**
 * True when `text`, read as JSON, nests arrays and objects deeper than
 * `max`. One pass over the characters, skipping string contents; it does not
 * validate (JSON.parse does that after).
 */
export function jsonNestsDeeper(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
