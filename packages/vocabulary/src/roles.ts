/**
 * Roles in ascending order of power. A caller whose role is at least the
 * operation's minimum role may call it (service-spec "Roles"). `none`, an
 * extension below the spec's four, is a global role only: it reads no
 * namespace of its own, only those a role binding opens to it
 * (docs/operating/roles.md); no operation has it as its minimum.
 */
export const ROLES = ['none', 'viewer', 'operator', 'editor', 'admin'] as const;

export type Role = (typeof ROLES)[number];

/** The spec's roles: what an operation may need and a role binding may give. */
export const SPEC_ROLES = ['viewer', 'operator', 'editor', 'admin'] as const satisfies readonly Role[];

export type SpecRole = (typeof SPEC_ROLES)[number];

/** True when `have` grants everything `need` grants. */
export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

/** The lower of two roles (a token's role against its owner's). */
export function lowerRole(a: Role, b: Role): Role {
  return roleAtLeast(a, b) ? b : a;
}

/** Narrows an arbitrary value (for example a database column) to a Role. */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
