// A user as the users table holds it, in a file of its own so that the
// statements of sql/ and users.ts both import it downwards.
import type { Role } from '@svc/vocabulary';

export interface UserRow {
  id: string;
  email: string;
  display_name: string;
  password_hash: string;
  role: Role;
  disabled: boolean;
  must_change_password: boolean;
  created_at: Date;
  last_login_at: Date | null;
}
