// The allowed callers of a namespace (docs/operating/roles.md, "What a flow reaches outside its namespace"):
// the namespaces whose flows may start its flows as subflows and listen to
// its executions. Admins only; each change audited with the list before and
// after, in the transaction that makes it.
import { type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import { getNamespace, setAllowedCallers } from '@svc/namespaces';
import type { Db } from '@svc/db';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';
import { namespaceBody, namespaceError } from './namespaces.js';

export function namespaceCallerHandlers(deps: { db: Db; now: () => Date }) {
  const { db } = deps;
  return {
    async setNamespaceAllowedCallers(ctx) {
      const name = ctx.params.namespace;
      const b = ctx.body;
      const now = deps.now();
      try {
        await db.prisma.$transaction(async (tx) => {
          const before = (await getNamespace(tx, name)).allowed_callers;
          const row = await setAllowedCallers(tx, name, b.allowed_callers, now);
          await recordAudit(tx, {
            action: 'namespace.allowed_callers',
            ...auditContext(ctx),
            targetType: 'namespace',
            targetId: name,
            details: { namespace: name, before, after: row.allowed_callers },
            at: now,
          });
        });
        return namespaceBody(await getNamespace(db.prisma, name));
      } catch (err) {
        return namespaceError(err);
      }
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
