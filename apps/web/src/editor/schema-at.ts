// The schema of the value at a JSON pointer, read from the flow JSON Schema
// itself. codemirror-json-schema's schema library loses a task's own
// properties (a `$ref` to a definition with `allOf` of `if`/`then` rules), so
// hover docs inside a task showed only a type guessed from the data. This
// walks the schema: `$ref` (local), `allOf`/`anyOf`/`oneOf`, `then`/`else`
// branches, `properties`, `patternProperties`, `additionalProperties`,
// `items` and `prefixItems`; a property is looked up in the node first, then
// in its branches, so a definition's own docs win over a rule's.
type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The node a local `$ref` (`#/...`) points to in `root`, or undefined. */
function deref(root: Node, ref: string): Node | undefined {
  if (!ref.startsWith('#')) return undefined;
  let cur: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    cur = isNode(cur) ? cur[key] : undefined;
  }
  return isNode(cur) ? cur : undefined;
}

/**
 * The node itself, then (breadth first) what it refers to and the branches
 * that may apply to its value: `$ref` targets, `allOf`/`anyOf`/`oneOf` items,
 * `then` and `else`. Each node once.
 */
function expand(root: Node, node: Node): Node[] {
  const out: Node[] = [];
  const queue = [node];
  while (queue.length && out.length < 200) {
    const n = queue.shift()!;
    if (out.includes(n)) continue;
    out.push(n);
    if (typeof n.$ref === 'string') {
      const t = deref(root, n.$ref);
      if (t) queue.push(t);
    }
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) for (const s of Array.isArray(n[k]) ? (n[k] as unknown[]) : []) if (isNode(s)) queue.push(s);
    for (const k of ['then', 'else'] as const) if (isNode(n[k])) queue.push(n[k]);
  }
  return out;
}

/** The schema of a child: `key` an object key, or an array index. */
function child(root: Node, node: Node, key: string): Node | undefined {
  const nodes = expand(root, node);
  const index = /^\d+$/.test(key) ? Number(key) : undefined;
  for (const n of nodes) {
    if (index !== undefined) {
      if (Array.isArray(n.prefixItems) && isNode(n.prefixItems[index])) return n.prefixItems[index];
      if (isNode(n.items)) return n.items;
    }
    if (isNode(n.properties) && isNode(n.properties[key])) return n.properties[key];
  }
  for (const n of nodes) {
    if (isNode(n.patternProperties)) {
      for (const [pattern, s] of Object.entries(n.patternProperties)) {
        try {
          if (isNode(s) && new RegExp(pattern, 'u').test(key)) return s;
        } catch {
          // a pattern this browser cannot compile matches nothing here
        }
      }
    }
  }
  for (const n of nodes) if (isNode(n.additionalProperties)) return n.additionalProperties;
  return undefined;
}

/** The segments of a JSON pointer (`/tasks/0/depends_on`), unescaped. */
export function pointerSegments(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The schema node for `pointer` in `root`, with its `$ref`s followed so the
 * definition's `description`, `type` and `enum` show (a use site's own
 * `description` beside its `$ref` wins). Undefined when the schema has none.
 */
export function schemaAt(root: Node, pointer: string): Node | undefined {
  let cur: Node | undefined = root;
  for (const seg of pointerSegments(pointer)) {
    if (!cur) return undefined;
    cur = child(root, cur, seg);
  }
  if (!cur) return undefined;
  // Follow the `$ref` chain; the referring node last, so its siblings of `$ref` win.
  const chain: Node[] = [cur];
  for (let n = cur; typeof n.$ref === 'string' && chain.length < 20;) {
    const t = deref(root, n.$ref);
    if (!t || chain.includes(t)) break;
    chain.push(t);
    n = t;
  }
  const merged: Node = {};
  for (const n of chain.reverse()) Object.assign(merged, n);
  delete merged.$ref;
  return merged;
}
