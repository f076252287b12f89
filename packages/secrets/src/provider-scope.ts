// The namespaces a secret provider serves: each entry a namespace
// covering its children (`team` serves `team` and `team.etl`, not `teams`),
// or `*` for every namespace. Empty serves none. A reference from a namespace
// the provider does not serve is refused when a flow is saved (@svc/namespaces
// reach.ts, the same rule) and when it resolves (ProviderStore.open).
import { ALL_NAMESPACES, namespaceCovers } from '@svc/vocabulary';
import type { ProviderConfigProblem } from './errors.js';

/** A namespace name as the API takes it: dot-separated labels of [a-z0-9-], each starting and ending with a letter or digit. */
const NAMESPACE_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/** Every namespace, chosen explicitly. */
export { ALL_NAMESPACES };
/** At most this many entries in one provider's scope. */
export const MAX_PROVIDER_NAMESPACES = 200;

/** Whether a provider with scope `scope` serves `namespace`. */
export function providerServes(scope: readonly string[], namespace: string): boolean {
  return scope.some((s) => namespaceCovers(s, namespace));
}

/** The scope, checked, without duplicates, sorted; problems name `namespaces[i]`. */
export function parseProviderScope(scope: unknown): { namespaces: string[]; problems: ProviderConfigProblem[] } {
  const problems: ProviderConfigProblem[] = [];
  if (!Array.isArray(scope)) return { namespaces: [], problems: [{ field: 'namespaces', message: 'must be a list of namespaces (or "*" for every namespace)' }] };
  if (scope.length > MAX_PROVIDER_NAMESPACES) problems.push({ field: 'namespaces', message: `has at most ${MAX_PROVIDER_NAMESPACES} entries` });
  scope.forEach((s, i) => {
    if (typeof s !== 'string' || (s !== ALL_NAMESPACES && (s.length > 128 || !NAMESPACE_NAME.test(s)))) {
      problems.push({ field: `namespaces[${i}]`, message: 'must be a namespace name (it covers its children too) or "*" for every namespace' });
    }
  });
  return { namespaces: [...new Set(scope.filter((s): s is string => typeof s === 'string'))].sort(), problems };
}

/** A `<provider>:...` reference from a namespace the provider does not serve. Names the provider and the namespace, never a path or value. */
export class ProviderScopeError extends Error {
  override readonly name = 'ProviderScopeError';
  readonly reason = 'secret_provider_not_allowed';
  constructor(
    readonly provider: string,
    readonly namespace: string,
  ) {
    super(`secret provider ${provider} does not serve namespace ${namespace}: an admin adds the namespace (or a parent) to the provider's namespaces`);
  }
}
