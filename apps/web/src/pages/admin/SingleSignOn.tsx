// Settings › Single sign-on (admin, docs/operating/sso.md): the OpenID Connect settings
// (getOidcSettings, putOidcSettings, deleteOidcSettings). The client secret is
// named by a platform secret (Settings › Platform secrets), never typed here
// nor shown; the
// redirect URI to register at the IdP is shown once saved. The gateway reads
// the issuer's discovery document before saving and names a field it refuses.
// The sign-up controls (docs/operating/sso.md "Who may sign in"):
// allowed email domains, Google's hd and Entra's tid, existing users only,
// linking by email (never to an admin) and the maximum age of an SSO session.
import { useLayoutEffect, useState } from 'react';
import { ApiError, client } from '../../api';
import { ROLES, type Answer, type RequestBody, type Role } from '../../types';
import { Button, ErrorBox, Loading, Section, fmtTime, useAction, useLoad } from '../../ui';

type Settings = Answer<'getOidcSettings'>;
type Mapping = NonNullable<RequestBody<'putOidcSettings'>['group_roles']>;

/** getOidcSettings, or null when none is configured (its 404). */
async function loadSettings(): Promise<Settings | null> {
  try {
    return await client.get('/api/v1/sso/oidc');
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

/** One `group = role` per line. */
const mappingText = (m: Mapping) => m.map((x) => `${x.group} = ${x.role}`).join('\n');
function parseMapping(text: string): Mapping | string {
  const out: Mapping = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    const m = /^\s*(.+?)\s*=\s*(\w+)\s*$/.exec(line);
    if (!m || !ROLES.includes(m[2] as Role)) return `Line ${i + 1}: write “group = role” with a role of ${ROLES.join(', ')}.`;
    out.push({ group: m[1], role: m[2] as Role });
  }
  return out;
}

export function SingleSignOn() {
  const settings = useLoad(loadSettings, []);
  const s = settings.data;
  const [enabled, setEnabled] = useState(true);
  const [name, setName] = useState('');
  const [issuer, setIssuer] = useState('');
  const [clientId, setClientId] = useState('');
  const [secretRef, setSecretRef] = useState('');
  const [scopes, setScopes] = useState('email profile');
  const [groupsClaim, setGroupsClaim] = useState('groups');
  const [defaultRole, setDefaultRole] = useState<Role>('none');
  const [mapping, setMapping] = useState('');
  const [noPassword, setNoPassword] = useState(false);
  const [linkByEmail, setLinkByEmail] = useState(false);
  const [domains, setDomains] = useState('');
  const [hd, setHd] = useState('');
  const [tid, setTid] = useState('');
  const [existingOnly, setExistingOnly] = useState(false);
  const [maxAgeMinutes, setMaxAgeMinutes] = useState('');
  const [local, setLocal] = useState<string>();
  const [saved, setSaved] = useState('');

  // Before paint (not useEffect): the form first renders in the same commit
  // as the loaded settings, and must never show its empty defaults in between.
  useLayoutEffect(() => {
    if (s === undefined) return;
    setEnabled(s?.enabled ?? true);
    setName(s?.display_name ?? '');
    setIssuer(s?.issuer_url ?? '');
    setClientId(s?.client_id ?? '');
    setSecretRef(s?.client_secret_secret ?? '');
    setScopes(s ? s.scopes.join(' ') : 'email profile');
    setGroupsClaim(s?.groups_claim ?? 'groups');
    setDefaultRole(s?.default_role ?? 'none');
    setMapping(s ? mappingText(s.group_roles) : '');
    setNoPassword(s?.password_login_disabled ?? false);
    setLinkByEmail(s?.link_by_email ?? false);
    setDomains(s ? s.allowed_email_domains.join(' ') : '');
    setHd(s?.google_hd ?? '');
    setTid(s?.entra_tid ?? '');
    setExistingOnly(s?.existing_users_only ?? false);
    setMaxAgeMinutes(s?.session_max_age_seconds ? String(s.session_max_age_seconds / 60) : '');
  }, [s]);

  const save = useAction(async () => {
    setSaved('');
    const groupRoles = parseMapping(mapping);
    if (typeof groupRoles === 'string') return setLocal(groupRoles);
    const minutes = maxAgeMinutes.trim() === '' ? null : Number(maxAgeMinutes);
    if (minutes !== null && !(Number.isInteger(minutes) && minutes >= 5 && minutes <= 525_600))
      return setLocal('Maximum session age: whole minutes from 5 to 525600, or empty for none.');
    setLocal(undefined);
    const body: RequestBody<'putOidcSettings'> = {
      enabled,
      display_name: name,
      issuer_url: issuer.trim(),
      client_id: clientId.trim(),
      client_secret_secret: secretRef.trim(),
      scopes: scopes.split(/[\s,]+/).filter(Boolean),
      groups_claim: groupsClaim.trim(),
      default_role: defaultRole,
      group_roles: groupRoles,
      password_login_disabled: noPassword,
      link_by_email: linkByEmail,
      allowed_email_domains: domains
        .split(/[\s,]+/)
        .map((d) => d.trim().toLowerCase())
        .filter(Boolean),
      google_hd: hd.trim(),
      entra_tid: tid.trim(),
      existing_users_only: existingOnly,
      session_max_age_seconds: minutes === null ? null : minutes * 60,
    };
    const out = await client.put('/api/v1/sso/oidc', { body });
    settings.setData(out);
    setSaved(`Saved: sign in with ${out.display_name} through ${out.issuer_url}`);
  });
  const remove = useAction(async () => {
    await client.delete('/api/v1/sso/oidc');
    setSaved('');
    settings.setData(null);
  });

  return (
    <Section title="Single sign-on">
      <p className="muted small">
        OpenID Connect login through one identity provider. Users are created at their first login from a verified email (unless only existing users may sign in); their role
        follows the group mapping at every login. An existing account is linked to an IdP identity only when its user confirms it from their profile, or by email when allowed below
        (never an admin). The client secret stays in a platform secret, which no flow can read (Settings › Platform secrets): name it here, its value is never shown.
      </p>
      <ErrorBox error={settings.error} />
      {s === undefined ? (
        !settings.error && <Loading what="the single sign-on settings" />
      ) : (
        <>
          <p data-testid="sso-status">
            {s ? (
              <>
                <span className={`badge ${s.enabled ? 'state-success' : ''}`}>{s.enabled ? 'enabled' : 'off'}</span> <strong>{s.display_name}</strong> · <code>{s.issuer_url}</code>{' '}
                · redirect URI <code>{s.redirect_uri}</code>
                <span className="muted small">
                  {' '}
                  · updated {fmtTime(s.updated_at)} by {s.updated_by}
                </span>
              </>
            ) : (
              <>
                <span className="badge">off</span> Single sign-on is not configured: users sign in with a password.
              </>
            )}
          </p>
          <form
            className="stack"
            aria-label="Single sign-on settings"
            onSubmit={(e) => {
              e.preventDefault();
              void save.run();
            }}
          >
            <label className="inline">
              <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Offer “Sign in with …” on the login page
            </label>
            <label>
              Button name
              <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={60} placeholder="Keycloak" />
            </label>
            <label>
              Issuer URL
              <input value={issuer} onChange={(e) => setIssuer(e.target.value)} required placeholder="https://sso.example.com/realms/acme" />
            </label>
            <label>
              Client ID
              <input value={clientId} onChange={(e) => setClientId(e.target.value)} required />
            </label>
            <label>
              Client secret (platform secret name)
              <input value={secretRef} onChange={(e) => setSecretRef(e.target.value)} required placeholder="oidc_client_secret" />
            </label>
            <label>
              Scopes
              <input value={scopes} onChange={(e) => setScopes(e.target.value)} placeholder="email profile" />
            </label>
            <label>
              Groups claim
              <input value={groupsClaim} onChange={(e) => setGroupsClaim(e.target.value)} placeholder="groups" />
            </label>
            <label>
              Group mapping (one “group = role” per line)
              <textarea rows={4} value={mapping} onChange={(e) => setMapping(e.target.value)} placeholder={'svc-admins = admin\nsvc-editors = editor'} />
            </label>
            <label>
              Role without a mapped group
              <select value={defaultRole} onChange={(e) => setDefaultRole(e.target.value as Role)}>
                {ROLES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </select>
            </label>
            <label className="inline">
              <input type="checkbox" checked={noPassword} onChange={(e) => setNoPassword(e.target.checked)} /> Users who signed in through SSO may not use a password
            </label>
            <fieldset className="stack" aria-label="Who may sign in">
              <legend>Who may sign in</legend>
              <label>
                Allowed email domains (space- or comma-separated; empty: any)
                <input value={domains} onChange={(e) => setDomains(e.target.value)} placeholder="example.com corp.example.com" />
              </label>
              <label>
                Google Workspace domain (the ID token’s hd claim must equal it; empty: not checked)
                <input value={hd} onChange={(e) => setHd(e.target.value)} maxLength={253} placeholder="example.com" />
              </label>
              <label>
                Entra tenant ID (the ID token’s tid claim must equal it; empty: not checked)
                <input value={tid} onChange={(e) => setTid(e.target.value)} maxLength={64} placeholder="00000000-0000-0000-0000-000000000000" />
              </label>
              <label className="inline">
                <input type="checkbox" checked={existingOnly} onChange={(e) => setExistingOnly(e.target.checked)} /> Existing users only (an SSO login never creates a user)
              </label>
              <label className="inline">
                <input type="checkbox" checked={linkByEmail} onChange={(e) => setLinkByEmail(e.target.checked)} /> Link an IdP identity to the existing user with its verified email
                (never to an admin)
              </label>
              <label>
                Maximum SSO session age in minutes (the session ends then, however it is used; empty: none)
                <input type="number" min={5} max={525600} value={maxAgeMinutes} onChange={(e) => setMaxAgeMinutes(e.target.value)} />
              </label>
            </fieldset>
            {local && (
              <p className="error" role="alert">
                {local}
              </p>
            )}
            <div className="row">
              <Button type="submit" className="primary" disabled={save.busy}>
                Save
              </Button>
              {s && (
                <Button type="button" className="danger" disabled={remove.busy} onClick={() => void remove.run()}>
                  Remove
                </Button>
              )}
            </div>
            {saved && <p role="status">{saved}</p>}
            <ErrorBox error={save.error ?? remove.error} />
          </form>
        </>
      )}
    </Section>
  );
}
