// The namespaces allowed to use an organization (docs/using/emails.md): an
// alert rule's email channel sends as the organization's verified senders,
// with text its namespace's executions shape, so only the namespaces an admin
// listed on the organization may name it. Each entry covers the namespace and
// its children, as a role binding does (`team` covers `team.etl`). An
// organization allows none until an admin lists them; the upgrade that added
// the list kept, for each organization, the namespaces of the rules already
// naming it (migration 20261206140000_organization_namespaces). The
// api-gateway checks a rule when it is saved; maintenance checks again before
// each email it queues for a rule, so a namespace taken off the list stops at
// once.
import { prismaOf } from '@svc/db';
import { namespaceCovers } from '@svc/vocabulary';
import { OrganizationError } from './organization-error.js';
import type { IdentityDb } from './users.js';

/** Namespace names as @svc/namespaces NAMESPACE_PATTERN has them (identity does not depend on that package). */
const NAMESPACE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
/** Entries an organization's list holds at most. */
export const MAX_ORGANIZATION_NAMESPACES = 100;

/** True when one of `allowed` is `namespace` or one of its parents. */
export function organizationAllows(allowed: readonly string[], namespace: string): boolean {
  return allowed.some((a) => namespaceCovers(a, namespace));
}

/** The list as stored: checked names, each once, sorted; entries another one covers dropped. */
export function normalizeOrganizationNamespaces(names: readonly string[]): string[] {
  for (const n of names) {
    if (typeof n !== 'string' || n.length > 128 || !NAMESPACE.test(n)) {
      throw new OrganizationError('invalid_namespace', `namespace ${JSON.stringify(n)}: dot-separated labels of a-z, 0-9 and hyphens, at most 128 characters`);
    }
  }
  const unique = [...new Set(names)].sort();
  const kept = unique.filter((n) => !unique.some((o) => o !== n && namespaceCovers(o, n)));
  if (kept.length > MAX_ORGANIZATION_NAMESPACES) {
    throw new OrganizationError('invalid_namespace', `at most ${MAX_ORGANIZATION_NAMESPACES} namespaces (each covers its children: list parents)`);
  }
  return kept;
}

async function current(db: IdentityDb, orgName: string): Promise<{ id: string; namespaces: string[] }> {
  const org = await prismaOf(db).organization.findUnique({ where: { name: orgName }, select: { id: true, namespaces: true } });
  if (!org) throw new OrganizationError('not_found', `no organization ${orgName}`);
  return org;
}

/** Replaces the organization's namespaces; returns the list as stored. */
export async function setOrganizationNamespaces(db: IdentityDb, orgName: string, names: readonly string[]): Promise<string[]> {
  const namespaces = normalizeOrganizationNamespaces(names);
  const org = await current(db, orgName);
  await prismaOf(db).organization.update({ where: { id: org.id }, data: { namespaces } });
  return namespaces;
}

/** Adds one namespace (a no-op when a listed one covers it already); returns the list as stored. */
export async function addOrganizationNamespace(db: IdentityDb, orgName: string, namespace: string): Promise<string[]> {
  normalizeOrganizationNamespaces([namespace]);
  const org = await current(db, orgName);
  return setOrganizationNamespaces(db, orgName, [...org.namespaces, namespace]);
}

/** Removes one listed namespace (exactly as listed); false when it was not listed. */
export async function removeOrganizationNamespace(db: IdentityDb, orgName: string, namespace: string): Promise<boolean> {
  const org = await current(db, orgName);
  if (!org.namespaces.includes(namespace)) return false;
  await prismaOf(db).organization.update({ where: { id: org.id }, data: { namespaces: org.namespaces.filter((n) => n !== namespace) } });
  return true;
}

/** The organization's namespaces, by name. */
export async function listOrganizationNamespaces(db: IdentityDb, orgName: string): Promise<string[]> {
  return (await current(db, orgName)).namespaces;
}

/** The organization (id, namespaces and own quota) an alert rule's email channel names, or null when there is none. */
export async function organizationForAlerts(db: IdentityDb, orgName: string): Promise<{ id: string; namespaces: string[]; daily_quota: number | null } | null> {
  const org = await prismaOf(db).organization.findUnique({ where: { name: orgName }, select: { id: true, namespaces: true, dailyQuota: true } });
  return org ? { id: org.id, namespaces: org.namespaces, daily_quota: org.dailyQuota } : null;
}
