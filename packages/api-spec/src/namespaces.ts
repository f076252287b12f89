// Where an operation names the namespace it acts on
// (docs/operating/roles.md), so one check can give a caller its role on that
// namespace: the global role raised by the role bindings that cover it.
import type { Operation } from './operation.js';

/** Records found by id whose namespace is the one an operation acts on. */
export type NamespacedRecord = 'execution' | 'backfill' | 'alertRule';

/**
 * One place an operation names a namespace:
 * - `path`/`query`/`body`: the value of that parameter or body field;
 * - `record`: the namespace of the record whose id is the path parameter.
 * An operation acts on every namespace its sources name; a source left out
 * of the request (an optional query parameter, say) names none.
 */
export type NamespaceSource = { in: 'path' | 'query' | 'body'; name: string } | { in: 'record'; record: NamespacedRecord; param: string };

const RECORD_PARAMS: Record<string, NamespacedRecord> = { executionId: 'execution', backfillId: 'backfill', ruleId: 'alertRule' };

function properties(schema: unknown): Record<string, unknown> {
  return (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
}

/**
 * The namespace sources of a role operation, derived from its shape: a
 * `{namespace}` path parameter, a `namespace` query parameter or body field,
 * and the path ids of executions, backfills and alert rules. Empty for
 * operations that act on no one namespace (users, tokens, global secrets...).
 */
export function namespaceSources(op: Operation): NamespaceSource[] {
  if (op.auth.kind !== 'role' || op.globalRoleOnly) return [];
  const out: NamespaceSource[] = [];
  const params = properties(op.request.params);
  if ('namespace' in params) out.push({ in: 'path', name: 'namespace' });
  for (const [param, record] of Object.entries(RECORD_PARAMS)) if (param in params) out.push({ in: 'record', record, param });
  if ('namespace' in properties(op.request.query)) out.push({ in: 'query', name: 'namespace' });
  if ('namespace' in properties(op.request.body)) out.push({ in: 'body', name: 'namespace' });
  return out;
}

/**
 * What a caller whose global role is `none` may call without
 * naming a namespace: its own account (profile, password, sessions, tokens)
 * and the AI assistant's conversations, whose tools are checked one by one.
 */
export const OWN_ACCOUNT_OPERATION_IDS: ReadonlySet<string> = new Set([
  'getMe',
  'updateMe',
  'logout',
  'oidcLogout',
  'getOidcLink',
  'startOidcLink',
  'changePassword',
  'revokeOtherSessions',
  'listTokens',
  'createToken',
  'revokeToken',
  'getAIStatus',
  'listAIConversations',
  'getAIConversation',
  'createAIConversation',
  'deleteAIConversation',
  'sendAIMessage',
  'confirmAIAction',
  'rejectAIAction',
]);

/**
 * The lists whose items a caller whose global role is `none` gets limited to
 * the namespaces it may read (in SQL, so pages stay whole), and the dashboard,
 * whose figures it gets over those namespaces: called without a namespace,
 * they are open to it; with one, the namespace is checked as for any
 * operation that names one.
 */
export const READ_SCOPED_LIST_OPERATION_IDS: ReadonlySet<string> = new Set([
  'listNamespaces',
  'listFlows',
  'listExecutions',
  'listUpcomingSchedules',
  'listAlertRules',
  'getDashboard',
]);

/**
 * Operations that act only on the namespaces where the caller holds the
 * operation's role, whatever namespaces their request names: open to a caller
 * who holds that role on at least one namespace (its global role, or a role
 * binding), and their handlers narrow what they touch to those namespaces
 * (bulkExecutions: the executions it cancels, reruns or restarts).
 */
export const CALLER_SCOPED_OPERATION_IDS: ReadonlySet<string> = new Set(['bulkExecutions']);
