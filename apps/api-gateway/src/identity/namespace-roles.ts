// Role bindings in the gateway's one role check (@svc/http
// roles.ts): the caller's role on a namespace, and the namespace of the
// records operations name by id. The check calls these only when a caller's
// global role falls short of an operation's, so every admin, and every call
// the global role allows, runs no query for them.
import type pg from 'pg';
import { alertRuleNamespace } from '@svc/alerts';
import { executionNamespace } from '@svc/engine/read-models';
import { backfillNamespace } from '@svc/scheduling';
import type { NamespacedRecord, Role } from '@svc/api-spec';
import type { NamespaceRoles } from '@svc/http';
import { namespaceRole, readableNamespaces, type RoleSubject } from '@svc/identity';
import type { AuthPrincipal } from './principal.js';

/** The namespace of a record, from the package that owns its table. */
const RECORD_NAMESPACE: Record<NamespacedRecord, (db: pg.Pool, id: string) => Promise<string | undefined>> = {
  execution: executionNamespace,
  backfill: backfillNamespace,
  alertRule: alertRuleNamespace,
};

/** How long "there is no binding at all" is believed before asking again (MCP tool lists only, never a check). */
const EMPTY_TTL_MS = 5_000;

/** Who asks, as the role bindings' queries take it: the user, its own global role and, for a token, the token's role. */
export const roleSubject = (p: AuthPrincipal): RoleSubject => ({ userId: p.userId, userRole: p.userRole, ...(p.tokenRole ? { tokenRole: p.tokenRole } : {}) });

export interface GatewayNamespaceRoles extends NamespaceRoles<AuthPrincipal> {
  /** The caller's highest role on any namespace, for what to offer (MCP tool lists); no query while the table is known empty. */
  highestRole(p: AuthPrincipal): Promise<Role>;
}

export function namespaceRoles(pool: pg.Pool): GatewayNamespaceRoles {
  const subject = roleSubject;
  let emptyUntil = 0;
  return {
    roleFor: (p, namespace) => namespaceRole(pool, subject(p), namespace),
    async recordNamespace(record, id) {
      return RECORD_NAMESPACE[record](pool, id);
    },
    async highestRole(p) {
      // A `none` caller is never answered from the shortcut: its tools are only what its bindings open.
      if (p.role === 'admin' || (p.role !== 'none' && Date.now() < emptyUntil)) return p.role;
      const any = await pool.query(`SELECT 1 FROM role_bindings LIMIT 1`);
      if (!any.rowCount) {
        emptyUntil = Date.now() + EMPTY_TTL_MS;
        return p.role;
      }
      return namespaceRole(pool, subject(p));
    },
  };
}

const scopes = new WeakMap<AuthPrincipal, Promise<string[] | null>>();

/**
 * The namespaces (each with its children) the caller may read, for the lists'
 * SQL filters: null for a role of viewer or more, which reads everything (no
 * query). Read once per request (the principal is the request's).
 */
export function readScope(pool: pg.Pool, p: AuthPrincipal): Promise<string[] | null> {
  if (p.role !== 'none') return Promise.resolve(null);
  let s = scopes.get(p);
  if (!s) {
    s = readableNamespaces(pool, roleSubject(p));
    scopes.set(p, s);
  }
  return s;
}
