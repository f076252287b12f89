import { pointerTokens } from './positions.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Writes a JSON pointer as a path a person reads: `/tasks/3/retry/max_attempts`
 * becomes `tasks[3].retry.max_attempts`, and a key that is not an identifier
 * is quoted (`files["config/app.json"]`). `root` tells array indexes apart from
 * mapping keys that happen to be digits (`labels["1"]`).
 */
export function fieldPath(pointer: string, root: unknown): string {
  let out = '';
  let node: unknown = root;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(token)) {
      out += `[${token}]`;
      node = node[Number(token)];
    } else {
      out += IDENTIFIER.test(token) ? (out === '' ? token : `.${token}`) : `[${JSON.stringify(token)}]`;
      node = isRecord(node) && Object.hasOwn(node, token) ? node[token] : undefined;
    }
  }
  return out;
}

/** The value at `pointer` in `root`, or undefined when the path does not exist. */
export function valueAt(root: unknown, pointer: string): unknown {
  let node: unknown = root;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isRecord(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
