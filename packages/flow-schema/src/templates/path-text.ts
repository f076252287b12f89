/** Helpers that write paths and positions back as a user would read them. */

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `["x-signature"]` or `.name` or `[0]`: how one member is written in a template. */
export function memberText(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** `tasks.extract.outputs.rows` from a root and its members. */
export function pathText(root: string, keys: readonly (string | number)[], count = keys.length): string {
  let text = root;
  for (let i = 0; i < count; i++) text += memberText(keys[i]);
  return text;
}

/** `"name"` or `[0]`: a member named in a message. */
export function keyText(key: string | number): string {
  return typeof key === 'number' ? `[${key}]` : JSON.stringify(key);
}

/** `column 7`, or `line 3, column 2` when the template has several lines (1-based). */
export function positionText(source: string, offset: number): string {
  const lineStart = source.lastIndexOf('\n', offset - 1) + 1;
  const column = offset - lineStart + 1;
  if (lineStart === 0 && source.indexOf('\n') === -1) return `column ${column}`;
  let line = 1;
  for (let i = source.indexOf('\n'); i !== -1 && i < offset; i = source.indexOf('\n', i + 1)) line++;
  return `line ${line}, column ${column}`;
}

/** Names listed in a message, at most `max` of them. */
export function listText(names: readonly string[], max = 10): string {
  if (names.length === 0) return 'none';
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown}, … ${names.length - max} more` : shown;
}
