// Scopes of secrets and variables: a namespace, its parents, then global.
// The global scope is stored as namespace '' (see the schema comment on `secrets`).

/** The stored namespace of the global scope. */
export const GLOBAL_SCOPE = '';

/**
 * The scopes searched for `namespace`, most specific first:
 * `a.b.c` → `['a.b.c', 'a.b', 'a', '']`; the global scope alone for `''`.
 */
export function scopeChain(namespace: string): string[] {
  if (namespace === GLOBAL_SCOPE) return [GLOBAL_SCOPE];
  const parts = namespace.split('.');
  const out: string[] = [];
  for (let i = parts.length; i > 0; i--) out.push(parts.slice(0, i).join('.'));
  out.push(GLOBAL_SCOPE);
  return out;
}

/** Where a secret resolved from. */
export type SecretScope = { type: 'namespace'; namespace: string } | { type: 'global' } | { type: 'provider'; provider: string };

export function scopeOf(storedNamespace: string): SecretScope {
  return storedNamespace === GLOBAL_SCOPE ? { type: 'global' } : { type: 'namespace', namespace: storedNamespace };
}
