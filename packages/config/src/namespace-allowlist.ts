// Executor allowlists by namespace (SVC_DOCKER_NETWORKS, SVC_K8S_SERVICE_ACCOUNTS).
// A network or a service account reaches what it reaches for every task that
// uses it, so an operator gives each to the namespaces that need it:
//
//   team-a=etl-net|reports-net;team-b.etl=db-net;*=shared-net
//
// Entries are separated by `;`, each a namespace prefix, `=`, and the names
// it may use separated by `|`. A prefix covers the namespace of that name and
// its descendants, at the namespace boundary: `team` covers `team` and
// `team.x`, not `teams`. `*` covers every namespace. A value without `=` is
// the older flat form, a comma-separated list that every namespace may use
// (the same as `*=a|b`).
import { namespaceCovers } from '@svc/vocabulary';
import { list } from './parsers.js';

/** Namespace names: dot-separated labels of [a-z0-9-] (the rule of @svc/namespaces' NAMESPACE_PATTERN). */
const NAMESPACE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** One entry: the namespaces it covers (null: every namespace) and the names they may use. */
export interface AllowlistEntry {
  prefix: string | null;
  names: string[];
}

/** An allowlist by namespace prefix, in the order written. */
export type NamespaceAllowlist = readonly AllowlistEntry[];

/** True when `prefix` (null: every namespace) covers `namespace`: the same name or a descendant (@svc/vocabulary's rule). */
export { namespaceCovers };

/** The names `namespace` may use, in the order written, each once. */
export function allowedIn(list: NamespaceAllowlist, namespace: string): string[] {
  return [...new Set(list.filter((e) => namespaceCovers(e.prefix, namespace)).flatMap((e) => e.names))];
}

/** Every name the allowlist holds, for any namespace. */
export function allAllowed(list: NamespaceAllowlist): string[] {
  return [...new Set(list.flatMap((e) => e.names))];
}

/** The allowlist as an operator would write it (messages). */
export function describeAllowlist(list: NamespaceAllowlist): string {
  return list.map((e) => `${e.prefix ?? '*'}=${e.names.join('|')}`).join(';');
}

/**
 * Parses the map form or the flat form (see above). `check` throws an Error
 * whose message tells what is wrong with one name.
 * @throws Error listing every problem of the value.
 */
export function parseNamespaceAllowlist(text: string, check: (name: string) => void): NamespaceAllowlist {
  if (!text.includes('=')) return [{ prefix: null, names: list(text, check) }];
  const problems: string[] = [];
  const entries: AllowlistEntry[] = [];
  const prefixes = new Set<string>();
  for (const raw of text.split(';').map((s) => s.trim())) {
    if (raw === '') continue;
    const eq = raw.indexOf('=');
    if (eq === -1) {
      problems.push(`"${raw}" is not PREFIX=NAME|NAME (entries are separated by ;)`);
      continue;
    }
    const prefix = raw.slice(0, eq).trim();
    if (prefix !== '*' && !NAMESPACE.test(prefix)) {
      problems.push(`"${prefix}" is not a namespace prefix (a namespace name such as team-a or team-a.etl, or * for every namespace)`);
      continue;
    }
    if (prefixes.has(prefix)) {
      problems.push(`names the prefix "${prefix}" twice`);
      continue;
    }
    prefixes.add(prefix);
    const names = raw
      .slice(eq + 1)
      .split('|')
      .map((s) => s.trim());
    const seen = new Set<string>();
    for (const name of names) {
      if (name === '') problems.push(`the entry of "${prefix}" has an empty name`);
      else if (seen.has(name)) problems.push(`the entry of "${prefix}" lists "${name}" twice`);
      else {
        try {
          check(name);
        } catch (err) {
          problems.push(`"${name}" ${(err as Error).message}`);
        }
      }
      seen.add(name);
    }
    entries.push({ prefix: prefix === '*' ? null : prefix, names: [...seen].filter((n) => n !== '') });
  }
  if (!entries.length && !problems.length) problems.push('has no entry');
  if (problems.length) throw new Error([...new Set(problems)].join('; '));
  return entries;
}
