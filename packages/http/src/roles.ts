// The one role check of every role operation: the caller's global
// role first, with no query; only when it falls short, and the operation names
// a namespace (api-spec namespaceSources), its role on each named namespace,
// raised by the role bindings covering it. A caller whose role is `none` may
// also call its own account's operations, and the read-scoped lists when they
// name no namespace (their handlers then show it only the namespaces it may
// read), and the caller-scoped operations when it holds their role on some
// namespace (their handlers act only there). mountOperations and the
// gateway's in-process invoker (AI assistant tools, MCP tools) both call it.
import {
  CALLER_SCOPED_OPERATION_IDS,
  namespaceSources,
  OWN_ACCOUNT_OPERATION_IDS,
  READ_SCOPED_LIST_OPERATION_IDS,
  roleAtLeast,
  type NamespacedRecord,
  type NamespaceSource,
  type Operation,
  type Role,
} from '@svc/api-spec';
import { forbidden } from './errors.js';

/** What role bindings add to the check; without it, only the global role counts. */
export interface NamespaceRoles<P> {
  /** The caller's role on `namespace` (global role raised by bindings, lowered to a token's role); without one, its highest on any namespace. */
  roleFor(principal: P, namespace?: string): Promise<Role>;
  /** The namespace of an execution, backfill or alert rule; undefined when there is no such record. */
  recordNamespace(record: NamespacedRecord, id: string): Promise<string | undefined>;
}

/** The request parts the namespace is read from, as sent (before validation: a caller without the role sees no validation detail). */
export interface RoleCheckParts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  /** The parsed JSON body; undefined when not read yet. */
  body?: unknown;
}

const sourcesCache = new WeakMap<Operation, NamespaceSource[]>();
function sourcesOf(op: Operation): NamespaceSource[] {
  let s = sourcesCache.get(op);
  if (!s) sourcesCache.set(op, (s = namespaceSources(op)));
  return s;
}

/** True when the namespace of this operation comes (also) from its body, which must be read first. */
export function namespaceInBody(op: Operation): boolean {
  return sourcesOf(op).some((s) => s.in === 'body');
}

const denied = (need: Role) => forbidden(`This operation needs the ${need} role`);

/**
 * The role check before the body is read. Returns `'done'` when the caller
 * may go on, `'body'` when it may go on only if the namespace named in the
 * body allows it (call `checkRoleWithBody` once the body is parsed); throws
 * 403 otherwise.
 */
export async function checkRole<P extends { role: Role }>(op: Operation, principal: P, parts: RoleCheckParts, ns: NamespaceRoles<P> | undefined): Promise<'done' | 'body'> {
  if (op.auth.kind !== 'role') return 'done';
  const need = op.auth.minRole;
  if (roleAtLeast(principal.role, need)) return 'done';
  if (need === 'viewer' && principal.role === 'none') {
    if (OWN_ACCOUNT_OPERATION_IDS.has(op.operationId)) return 'done';
    if (READ_SCOPED_LIST_OPERATION_IDS.has(op.operationId) && parts.query.namespace === undefined) return 'done';
  }
  // Open to whoever holds the role somewhere: the handler acts only where it is held.
  if (CALLER_SCOPED_OPERATION_IDS.has(op.operationId)) {
    if (ns && roleAtLeast(await ns.roleFor(principal), need)) return 'done';
    throw denied(need);
  }
  const sources = sourcesOf(op);
  if (!ns || sources.length === 0) throw denied(need);
  if (sources.some((s) => s.in === 'body') && parts.body === undefined) {
    // Nothing is read for a caller with the role on no namespace at all.
    if (!roleAtLeast(await ns.roleFor(principal), need)) throw denied(need);
    return 'body';
  }
  await checkNamed(op, need, principal, parts, ns, sources);
  return 'done';
}

/** The second half of `checkRole` for an operation that names its namespace in the body. */
export async function checkRoleWithBody<P extends { role: Role }>(op: Operation, principal: P, parts: RoleCheckParts, ns: NamespaceRoles<P>): Promise<void> {
  if (op.auth.kind !== 'role') return;
  await checkNamed(op, op.auth.minRole, principal, parts, ns, sourcesOf(op));
}

async function checkNamed<P>(op: Operation, need: Role, principal: P, parts: RoleCheckParts, ns: NamespaceRoles<P>, sources: NamespaceSource[]): Promise<void> {
  const names = new Set<string>();
  for (const s of sources) {
    if (s.in === 'record') {
      const id = parts.params[s.param];
      const name = typeof id === 'string' ? await ns.recordNamespace(s.record, id) : undefined;
      // No such record: the global role decides (the caller could not tell it from one it may not see).
      if (name === undefined) throw denied(need);
      names.add(name);
      continue;
    }
    const from = s.in === 'path' ? parts.params : s.in === 'query' ? parts.query : (parts.body as Record<string, unknown> | null | undefined);
    const v = from && typeof from === 'object' ? from[s.name] : undefined;
    if (typeof v === 'string') names.add(v);
    else if (v !== undefined) throw denied(need);
  }
  // An operation that names no namespace this time (an optional one left out) acts on all of them.
  if (names.size === 0) throw denied(need);
  for (const name of names) if (!roleAtLeast(await ns.roleFor(principal, name), need)) throw denied(need);
  void op;
}
