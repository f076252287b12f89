// The form of Settings › Git sources that creates a source or edits one
// (createGitSource, updateGitSource). Credentials never pass through the
// source itself: it names platform secrets (credential_secret_key,
// webhook_secret_key), which no flow can read (docs/operating/security.md). The form can also
// set such a secret's value on save (putPlatformSecret) from a password field that starts empty and is cleared
// after the save: the value is write-only, as everywhere.
import { useState } from 'react';
import { client } from '../../api';
import type { GitSource, GitSourceMapping, GitSourceRequest } from '../../types';
import { Button, ErrorBox, useAction } from '../../ui';

export type { GitSource };

/** auth_type values (packages/git-sources/src/git/auth.ts) and what the credential secret holds for each. */
const AUTH: { id: string; label: string; credential: string }[] = [
  { id: 'none', label: 'None (public, file:// or git://)', credential: '' },
  { id: 'token', label: 'Token (https)', credential: 'an access token (GitHub PAT, GitLab or Gitea token)' },
  { id: 'basic', label: 'User and password (https)', credential: 'user:password' },
  { id: 'ssh', label: 'SSH key (ssh:// or user@host:path)', credential: 'a private key (OpenSSH format)' },
];

/** Create (no `source`) or edit `source`; `done` gets the saved source. */
export function GitSourceForm({ source, done, cancel }: { source?: GitSource; done: (s: GitSource) => void; cancel: () => void }) {
  const [name, setName] = useState(source?.name ?? '');
  const [repoUrl, setRepoUrl] = useState(source?.repo_url ?? '');
  const [branch, setBranch] = useState(source?.branch ?? 'main');
  const [authType, setAuthType] = useState(source?.auth_type || 'none');
  const [credentialKey, setCredentialKey] = useState(source?.credential_secret_key ?? '');
  const [credential, setCredential] = useState('');
  const [knownHosts, setKnownHosts] = useState(source?.known_hosts ?? '');
  const [webhookKey, setWebhookKey] = useState(source?.webhook_secret_key ?? '');
  const [webhookSecret, setWebhookSecret] = useState('');
  const [poll, setPoll] = useState(String(source?.poll_interval ?? 0));
  const [pushPaths, setPushPaths] = useState((source?.push_paths ?? []).join('\n'));
  const [rows, setRows] = useState<GitSourceMapping[]>(source?.mappings.map((m) => ({ ...m })) ?? [{ namespace: '', repo_path: '' }]);

  const setRow = (i: number, patch: Partial<GitSourceMapping>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const auth = AUTH.find((a) => a.id === authType);

  const save = useAction(async () => {
    const body: GitSourceRequest = {
      name,
      repo_url: repoUrl,
      branch,
      auth_type: authType,
      credential_secret_key: authType === 'none' ? '' : credentialKey,
      known_hosts: knownHosts,
      webhook_secret_key: webhookKey,
      poll_interval: Number(poll) || 0,
      push_paths: pushPaths
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean),
      mappings: rows,
    };
    // The secrets first: a source naming a secret that does not exist yet would fail its first sync.
    if (credential && authType !== 'none') await client.put('/api/v1/platform-secrets/{name}', { params: { path: { name: credentialKey } }, body: { value: credential } });
    if (webhookSecret) await client.put('/api/v1/platform-secrets/{name}', { params: { path: { name: webhookKey } }, body: { value: webhookSecret } });
    const out = source
      ? await client.put('/api/v1/git-sources/{sourceId}', { params: { path: { sourceId: source.id } }, body })
      : await client.post('/api/v1/git-sources', { body });
    setCredential('');
    setWebhookSecret('');
    done(out);
  });

  const title = source ? `Edit git source ${source.name}` : 'Add a git source';
  return (
    <form
      className="git-source-form"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h3>{title}</h3>
      <div className="git-form-grid">
        <label>
          Name <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label>
          Repository URL <input value={repoUrl} onChange={(e) => setRepoUrl(e.target.value)} required placeholder="https://github.com/acme/flows.git" />
        </label>
        <label>
          Branch <input value={branch} onChange={(e) => setBranch(e.target.value)} required />
        </label>
        <label>
          Poll every (seconds, 0 = only on push or by hand) <input type="number" min={0} value={poll} onChange={(e) => setPoll(e.target.value)} />
        </label>
        <label>
          Authentication
          <select value={authType} onChange={(e) => setAuthType(e.target.value)}>
            {AUTH.map((a) => (
              <option key={a.id} value={a.id}>
                {a.label}
              </option>
            ))}
          </select>
        </label>
        {authType !== 'none' && (
          <>
            <label>
              Credential secret (platform secret name) <input value={credentialKey} onChange={(e) => setCredentialKey(e.target.value)} required placeholder="GIT_TOKEN" />
            </label>
            <label>
              Credential value (optional: stores the secret; write-only)
              <input type="password" autoComplete="new-password" value={credential} onChange={(e) => setCredential(e.target.value)} placeholder={auth?.credential} />
            </label>
          </>
        )}
        {authType === 'ssh' && (
          <label className="wide">
            Known hosts (ssh-keyscan lines) <textarea rows={3} value={knownHosts} onChange={(e) => setKnownHosts(e.target.value)} />
          </label>
        )}
        <label>
          Webhook secret (platform secret name) <input value={webhookKey} onChange={(e) => setWebhookKey(e.target.value)} placeholder="GIT_WEBHOOK_SECRET" />
        </label>
        <label>
          Webhook secret value (optional: stores the secret; write-only)
          <input type="password" autoComplete="new-password" value={webhookSecret} onChange={(e) => setWebhookSecret(e.target.value)} disabled={!webhookKey} />
        </label>
        <label className="wide">
          Paths a branch push may write (globs, one a line; empty: anything under the mapping)
          <textarea rows={2} value={pushPaths} onChange={(e) => setPushPaths(e.target.value)} placeholder="flows/**" />
        </label>
      </div>
      <fieldset>
        <legend>Mappings: which namespace comes from which directory</legend>
        {rows.map((r, i) => (
          <div key={i} className="row">
            <label>
              Namespace{' '}
              <input aria-label={`Mapping ${i + 1} namespace`} value={r.namespace} onChange={(e) => setRow(i, { namespace: e.target.value })} required placeholder="team.flows" />
            </label>
            <label>
              Repository path{' '}
              <input
                aria-label={`Mapping ${i + 1} repository path`}
                value={r.repo_path}
                onChange={(e) => setRow(i, { repo_path: e.target.value })}
                placeholder="(repository root)"
              />
            </label>
            <Button aria-label={`Remove mapping ${i + 1}`} disabled={rows.length === 1} onClick={() => setRows(rows.filter((_, j) => j !== i))}>
              Remove
            </Button>
          </div>
        ))}
        <Button onClick={() => setRows([...rows, { namespace: '', repo_path: '' }])}>Add mapping</Button>
      </fieldset>
      <ErrorBox error={save.error} />
      <div className="row">
        <Button type="submit" disabled={save.busy}>
          {source ? 'Save changes' : 'Create source'}
        </Button>
        <Button onClick={cancel}>Cancel</Button>
      </div>
    </form>
  );
}
