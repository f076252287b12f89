import type { Role } from '@svc/identity';

/** Who is calling, resolved from a session cookie or a bearer API token. */
export interface AuthPrincipal {
  /** Effective role: for a token, the lower of the token's role and the owner's current role. */
  role: Role;
  userId: string;
  email: string;
  name: string;
  /** The owner's own role. */
  userRole: Role;
  authType: 'session' | 'token';
  /** The token's own role, for a token: a role binding never raises the caller above it. */
  tokenRole?: Role;
  sessionId?: string;
  tokenId?: string;
  mustChangePassword: boolean;
}
