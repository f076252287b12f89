/** The prefix written for "every namespace" in scopes and allowlists. */
export const ALL_NAMESPACES = '*';

/**
 * True when a namespace prefix covers `namespace`: the namespace of that name
 * and its descendants, at the dot (`team` covers `team` and `team.etl`, not
 * `teams`). `null` and `*` cover every namespace. Role bindings, organization
 * namespaces, secret provider scopes, callers' reach and the executor
 * allowlists all use this one rule.
 */
export function namespaceCovers(prefix: string | null, namespace: string): boolean {
  return prefix === null || prefix === ALL_NAMESPACES || namespace === prefix || namespace.startsWith(`${prefix}.`);
}
