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

/** `can(role)` and, for a disabled control, the reason: null when allowed. */
export function usePermission() {
  const { me } = useSession();
  return {
    can: (need: Role) => roleAtLeast(me.role, need),
    needs: (need: Role): string | null => (roleAtLeast(me.role, need) ? null : `Needs the ${need} role (you are ${me.role})`),
  };
}
