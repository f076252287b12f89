/**
 * Roles in ascending order of power. A caller whose role is at least the
 * operation's minimum role may call it (service-spec "Roles").
 */
export const ROLES = ['viewer', 'operator', 'editor', 'admin'] as const;

export type Role = (typeof ROLES)[number];

/** True when `have` grants everything `need` grants. */
export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

/** Narrows an arbitrary value (for example a database column) to a Role. */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
