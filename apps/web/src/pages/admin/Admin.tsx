// Settings: one tab per screen, each in its own file beside this one (secrets
// and variables, secret providers, platform secrets, users, the audit log, instances, storage,
// git sources, the AI provider, AI usage, organizations). Tabs a role cannot
// use stay in the bar, disabled, saying which role they need; opened by URL
// they show only that.
import type { ComponentType } from 'react';
import { Link } from '../../router';
import { usePermission } from '../../session';
import type { Role } from '../../types';
import { AISettings } from './AISettings';
import { AIUsage } from './AIUsage';
import { Audit } from './Audit';
import { GitSources } from './GitSources';
import { Instances } from './Instances';
import { Organizations } from './Organizations';
import { PlatformSecrets } from './PlatformSecrets';
import { SingleSignOn } from './SingleSignOn';
import { Providers } from './Providers';
import { RoleBindings } from './RoleBindings';
import { SecretsAndVariables } from './SecretsAndVariables';
import { Storage } from './Storage';
import { Users } from './Users';

/** The tabs in bar order; `id` is the path segment after /admin/. */
const TABS: { id: string; label: string; minRole: Role; Screen: ComponentType }[] = [
  { id: 'secrets', label: 'Secrets & variables', minRole: 'viewer', Screen: SecretsAndVariables },
  { id: 'providers', label: 'Secret providers', minRole: 'viewer', Screen: Providers },
  { id: 'platform-secrets', label: 'Platform secrets', minRole: 'admin', Screen: PlatformSecrets },
  { id: 'users', label: 'Users', minRole: 'admin', Screen: Users },
  { id: 'role-bindings', label: 'Role bindings', minRole: 'admin', Screen: RoleBindings },
  { id: 'audit', label: 'Audit log', minRole: 'admin', Screen: Audit },
  { id: 'instances', label: 'Instances', minRole: 'admin', Screen: Instances },
  { id: 'storage', label: 'Storage', minRole: 'admin', Screen: Storage },
  { id: 'git-sources', label: 'Git sources', minRole: 'admin', Screen: GitSources },
  { id: 'ai-provider', label: 'AI provider', minRole: 'admin', Screen: AISettings },
  { id: 'ai-usage', label: 'AI usage', minRole: 'admin', Screen: AIUsage },
  { id: 'organizations', label: 'Organizations', minRole: 'admin', Screen: Organizations },
  { id: 'sso', label: 'Single sign-on', minRole: 'admin', Screen: SingleSignOn },
];

/** The settings page at /admin/:tab; an unknown or missing tab shows the first. */
export function Admin({ tab = 'secrets' }: { tab?: string }) {
  const { can, needs } = usePermission();
  const current = TABS.find((t) => t.id === tab) ?? TABS[0];
  return (
    <div className="page">
      <h1>Settings</h1>
      <nav className="tabs" aria-label="Settings sections">
        {TABS.map((t) =>
          can(t.minRole) ? (
            <Link key={t.id} to={`/admin/${t.id}`} className={t.id === current.id ? 'active' : ''} aria-current={t.id === current.id ? 'page' : undefined}>
              {t.label}
            </Link>
          ) : (
            <span key={t.id} className="disabled" title={needs(t.minRole) ?? ''} aria-disabled="true">
              {t.label}
            </span>
          ),
        )}
      </nav>
      {can(current.minRole) ? <current.Screen /> : <p>{needs(current.minRole)}</p>}
    </div>
  );
}
