// Who is signed in, and what their role lets them do. Screens ask `can(role)`
// and show the reason from `needs(role)` on actions they may not take.
import { createContext, useContext } from 'react';
import { ROLES, type Me, type Role } from './types';

export interface Session {
  me: Me;
  refresh: () => void;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in page');
  return s;
}

export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

/**
 * The caller's role on a namespace: its global role, raised by the role
 * bindings that cover the namespace (getMe's `role_bindings`, the
 * namespace itself or an ancestor). Without a namespace, the global role.
 */
export function roleOn(me: Me, namespace?: string): Role {
  let role = me.role;
  if (namespace === undefined) return role;
  for (const b of me.role_bindings ?? []) {
    if ((namespace === b.namespace || namespace.startsWith(`${b.namespace}.`)) && !roleAtLeast(role, b.role)) role = b.role;
  }
  return role;
}

/** The caller's highest role on any namespace: its global role or the highest role a binding gives it. */
export function highestRole(me: Me): Role {
  let role = me.role;
  for (const b of me.role_bindings ?? []) if (!roleAtLeast(role, b.role)) role = b.role;
  return role;
}

/**
 * `can(role, namespace?)` and, for a disabled control, the reason: null when allowed. Give the namespace an action is on, so a role binding there counts.
 * `needsSomewhere(role)`: the same for an action whose namespace is chosen later (a new alert rule): allowed when some namespace allows it.
 */
export function usePermission() {
  const { me } = useSession();
  return {
    needsSomewhere: (need: Role): string | null => (roleAtLeast(highestRole(me), need) ? null : `Needs the ${need} role on some namespace (you are ${me.role})`),
    can: (need: Role, namespace?: string) => roleAtLeast(roleOn(me, namespace), need),
    needs: (need: Role, namespace?: string): string | null => {
      const have = roleOn(me, namespace);
      return roleAtLeast(have, need) ? null : `Needs the ${need} role (you are ${have}${namespace !== undefined && have !== me.role ? ` on ${namespace}` : ''})`;
    },
  };
}
