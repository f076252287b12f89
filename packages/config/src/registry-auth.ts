// Registry credentials of the docker executor (SVC_DOCKER_REGISTRY_AUTH):
// which platform secret the dispatcher pulls an image with, by image prefix
// and by the namespace of the task's flow.
//
//   ghcr.io/acme-a=GHCR_TEAM_A@team-a|team-c;127.0.0.1:5000=LOCAL_REGISTRY
//
// Entries are separated by `;`. Each is an image prefix (a registry host as
// image references spell it, `ghcr.io`, `registry.example.com:5000`,
// `docker.io` for Docker Hub, optionally followed by a repository path
// prefix, `ghcr.io/acme-a`), `=`, the name of the platform secret holding
// `username:password`, and optionally `@` and the namespace prefixes the
// entry serves, separated by `|` (a prefix covers that namespace and its
// descendants; without `@`, or with `@*`, every namespace). A path prefix
// matches at `/`: `ghcr.io/acme` covers `ghcr.io/acme/x`, not
// `ghcr.io/acme-b/x`. For an image, the entries whose prefix covers it and
// which serve the task's namespace are candidates; the longest prefix wins,
// and between equals the first written.
import { namespaceCovers } from '@svc/vocabulary';

/** Names a platform secret may have (@svc/secrets' PLATFORM_SECRET_NAME_PATTERN). */
const PLATFORM_SECRET_NAME = /^[A-Za-z0-9_.-]{1,255}$/;
const NAMESPACE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
/** A registry host as an image reference spells it: a DNS name or IPv4 address, optionally a port. */
const REGISTRY_HOST = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$/;
const PATH_COMPONENT = /^[a-z0-9]+([._-][a-z0-9]+|__[a-z0-9]+)*$/;

/** One entry of SVC_DOCKER_REGISTRY_AUTH. */
export interface RegistryAuthEntry {
  /** Registry host, lower-case, Docker Hub as docker.io. */
  registry: string;
  /** Repository path prefix inside the registry; '' for the whole registry. */
  path: string;
  /** Platform secret holding `username:password`. */
  secret: string;
  /** Namespace prefixes served; null: every namespace. */
  namespaces: string[] | null;
}

/** Where an image lives: its registry host (Docker Hub as docker.io) and repository path (library/ added to official images). */
export interface ImageLocation {
  registry: string;
  repository: string;
}

/** Docker Hub's other names, as the engine normalizes them. */
const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

function looksLikeRegistry(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost';
}

/** The registry and repository of an image reference, as the Docker engine reads it (`busybox` is docker.io/library/busybox). */
export function imageLocation(image: string): ImageLocation {
  let name = image.split('@')[0];
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  if (colon > slash) name = name.slice(0, colon);
  const first = name.indexOf('/');
  if (first !== -1 && looksLikeRegistry(name.slice(0, first))) {
    const registry = name.slice(0, first).toLowerCase();
    return { registry: DOCKER_HUB.has(registry) ? 'docker.io' : registry, repository: name.slice(first + 1) };
  }
  return { registry: 'docker.io', repository: first === -1 ? `library/${name}` : name };
}

/** True when the entry's image prefix covers `loc` (a path prefix at a `/`). */
export function entryCoversImage(e: Pick<RegistryAuthEntry, 'registry' | 'path'>, loc: ImageLocation): boolean {
  if (e.registry !== loc.registry) return false;
  return e.path === '' || loc.repository === e.path || loc.repository.startsWith(`${e.path}/`);
}

/**
 * The credential entry for pulling `image` in a task of `namespace`:
 * `entry` when one serves it; else `unserved`, the entries that cover the
 * image but not the namespace (none: the image needs no credential here).
 */
export function registryAuthFor(entries: readonly RegistryAuthEntry[], image: string, namespace: string): { entry?: RegistryAuthEntry; unserved: RegistryAuthEntry[] } {
  const loc = imageLocation(image);
  const covering = entries.filter((e) => entryCoversImage(e, loc));
  const serving = covering.filter((e) => e.namespaces === null || e.namespaces.some((p) => namespaceCovers(p, namespace)));
  // Longest prefix first; sort is stable, so equals keep the written order.
  const entry = [...serving].sort((a, b) => b.path.length - a.path.length)[0];
  return entry ? { entry, unserved: [] } : { unserved: covering };
}

/** The entry as an operator writes it (messages). */
export function describeRegistryAuthEntry(e: RegistryAuthEntry): string {
  return `${e.registry}${e.path ? `/${e.path}` : ''}=${e.secret}${e.namespaces ? `@${e.namespaces.join('|')}` : ''}`;
}

/**
 * Parses SVC_DOCKER_REGISTRY_AUTH (see above).
 * @throws Error listing every problem of the value (never a credential: the value holds only names).
 */
export function parseRegistryAuth(text: string): RegistryAuthEntry[] {
  const problems: string[] = [];
  const entries: RegistryAuthEntry[] = [];
  const seen = new Set<string>();
  for (const raw of text.split(';').map((s) => s.trim())) {
    if (raw === '') continue;
    const eq = raw.indexOf('=');
    if (eq === -1) {
      problems.push(`"${raw}" is not REGISTRY[/PATH]=PLATFORM_SECRET[@NAMESPACE|NAMESPACE] (entries are separated by ;)`);
      continue;
    }
    const prefix = raw.slice(0, eq).trim();
    const [host = '', ...pathParts] = prefix.split('/');
    const rest = raw.slice(eq + 1).trim();
    const at = rest.indexOf('@');
    const secret = (at === -1 ? rest : rest.slice(0, at)).trim();
    const nsText = at === -1 ? '*' : rest.slice(at + 1).trim();
    let ok = true;
    if (!REGISTRY_HOST.test(host) || !looksLikeRegistry(host)) {
      problems.push(`"${prefix}" does not begin with a registry host (as an image reference names it: ghcr.io, registry.example.com:5000, docker.io for Docker Hub)`);
      ok = false;
    }
    if (pathParts.some((c) => !PATH_COMPONENT.test(c))) {
      problems.push(`"${prefix}" has a repository path that is not lower-case letters, digits and separators (. _ __ -) between /`);
      ok = false;
    }
    if (!PLATFORM_SECRET_NAME.test(secret)) {
      problems.push(`the entry of "${prefix}" names "${secret}", which is not a platform secret name (1 to 255 of A-Z a-z 0-9 _ . -)`);
      ok = false;
    }
    const nsList = nsText.split('|').map((s) => s.trim());
    const namespaces = nsList.includes('*') ? null : nsList;
    for (const ns of nsList) {
      if (ns !== '*' && !NAMESPACE.test(ns)) {
        problems.push(`the entry of "${prefix}" serves "${ns}", which is not a namespace prefix (a namespace name such as team-a or team-a.etl, or * for every namespace)`);
        ok = false;
      }
    }
    if (!ok) continue;
    const registry = host.toLowerCase();
    const entry: RegistryAuthEntry = { registry: DOCKER_HUB.has(registry) ? 'docker.io' : registry, path: pathParts.join('/'), secret, namespaces };
    const key = `${entry.registry}/${entry.path}@${(namespaces ?? ['*']).join('|')}`;
    if (seen.has(key)) {
      problems.push(`"${prefix}" is written twice for the same namespaces`);
      continue;
    }
    seen.add(key);
    entries.push(entry);
  }
  if (!entries.length && !problems.length) problems.push('has no entry');
  if (problems.length) throw new Error([...new Set(problems)].join('; '));
  return entries;
}
