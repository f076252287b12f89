// Settings › Git sources (admin): the repositories synchronized into
// namespaces (listGitSources), each added, edited, synced now and deleted;
// the one opened (?source=ID, so it can be shared) shows its mappings, its
// sync runs with their errors (listGitSyncRuns, refreshed while one is queued
// or running) and its push webhook URL with how to set it up on GitHub,
// GitLab and Gitea. Syncs run in the scheduler's sync workers: "Sync now"
// queues a run (syncGitSource) and the runs list shows it go.
import { useRef, useState } from 'react';
import { client } from '../../api';
import { Link, useQueryParam } from '../../router';
import { DataTable } from '../../components/DataTable';
import { Button, CopyButton, ErrorBox, Section, fmtTime, useAction, useLoad } from '../../ui';
import { GitSourceForm, type GitSource } from './GitSourceForm';

const short = (sha: string | undefined) => (sha ? sha.slice(0, 10) : '');
const ACTIVE = new Set(['queued', 'running']);

function SyncStatus({ status }: { status: string }) {
  if (!status) return <span className="muted">never synced</span>;
  const cls = status === 'success' || status === 'no_change' ? 'state-success' : status === 'failed' ? 'state-failed' : status === 'running' ? 'state-running' : 'state-queued';
  return <span className={`badge ${cls}`}>{status.replace('_', ' ')}</span>;
}

export function GitSources() {
  const [open, setOpen] = useQueryParam('source');
  const [editing, setEditing] = useState<'new' | GitSource>();
  // Counts "Sync now" presses: the opened source's runs start again from a fresh load, refreshed fast.
  const [syncs, setSyncs] = useState(0);
  const list = useLoad(() => client.all('/api/v1/git-sources'), []);
  const sync = useAction(async (id: string) => {
    await client.post('/api/v1/git-sources/{sourceId}/sync', { params: { path: { sourceId: id } } });
    setOpen(id);
    setSyncs((n) => n + 1);
    list.reload();
  });
  const remove = useAction(async (s: GitSource) => {
    await client.delete('/api/v1/git-sources/{sourceId}', { params: { path: { sourceId: s.id } } });
    if (open === s.id) setOpen('');
    list.reload();
  });
  const current = list.data?.find((s) => s.id === open);
  return (
    <>
      <Section
        title="Git sources"
        actions={
          <Button onClick={() => setEditing('new')} disabled={editing === 'new'}>
            Add git source
          </Button>
        }
      >
        <p className="muted small">
          Repositories whose directories become namespaces. A mapped namespace is read-only here: change it in git (or push a branch from the editor). Credentials live in global
          secrets, named below, and are never shown.
        </p>
        <ErrorBox error={list.error ?? sync.error ?? remove.error} />
        {editing && (
          <GitSourceForm
            key={editing === 'new' ? 'new' : editing.id}
            source={editing === 'new' ? undefined : editing}
            cancel={() => setEditing(undefined)}
            done={(s) => {
              setEditing(undefined);
              setOpen(s.id);
              setSyncs((n) => n + 1); // a create or a changed source queues a sync
              list.reload();
            }}
          />
        )}
        <DataTable
          label="Git sources"
          rows={list.data}
          error={list.error}
          loading="the git sources"
          rowKey={(s) => s.id}
          selected={(s) => s.id === open}
          empty="No git sources: every namespace is edited here."
          columns={[
            {
              header: 'Name',
              cell: (s) => (
                <button type="button" className="linkish" aria-label={`Open git source ${s.name}`} onClick={() => setOpen(s.id)}>
                  {s.name}
                </button>
              ),
            },
            {
              header: 'Repository',
              cell: (s) => (
                <>
                  <code>{s.repo_url}</code> <span className="muted">@ {s.branch}</span>
                </>
              ),
            },
            {
              header: 'Mappings',
              cell: (s) =>
                s.mappings.map((m) => (
                  <div key={m.namespace} className="small">
                    <code>{m.repo_path || '/'}</code> → <Link to={`/editor/${m.namespace}`}>{m.namespace}</Link>
                  </div>
                )),
            },
            {
              header: 'Last sync',
              cell: (s) => (
                <>
                  <SyncStatus status={s.last_sync_status} /> {s.last_synced_sha && <code className="small">{short(s.last_synced_sha)}</code>}
                  <div className="muted small">{s.last_sync_at ? fmtTime(s.last_sync_at) : ''}</div>
                  {s.last_error && <div className="small git-error">{s.last_error}</div>}
                </>
              ),
            },
          ]}
          actions={(s) => (
            <>
              <Button aria-label={`Sync ${s.name} now`} disabled={sync.busy} onClick={() => void sync.run(s.id)}>
                Sync now
              </Button>
              <Button aria-label={`Edit ${s.name}`} onClick={() => setEditing(s)}>
                Edit
              </Button>
              <Button
                aria-label={`Delete ${s.name}`}
                onClick={() => confirm(`Delete git source ${s.name}? Its namespaces stay, with their files, and become editable.`) && void remove.run(s)}
              >
                Delete
              </Button>
            </>
          )}
        />
      </Section>
      {current && <SourceDetail key={`${current.id}-${syncs}`} source={current} onChange={list.reload} />}
    </>
  );
}

/** The opened source: its mappings, sync runs and webhook. */
function SourceDetail({ source: s, onChange }: { source: GitSource; onChange: () => void }) {
  const [active, setActive] = useState(true);
  // The newest run as last seen: when it changes (a new run, or one that ended), so did the source's last sync fields.
  const newest = useRef<string | undefined>(undefined);
  const runs = useLoad(
    async () => {
      const page = await client.get('/api/v1/git-sources/{sourceId}/runs', { params: { path: { sourceId: s.id }, query: { limit: 20 } } });
      const head = page.items[0] ? `${page.items[0].id} ${page.items[0].status}` : '';
      if (newest.current !== undefined && newest.current !== head) onChange();
      newest.current = head;
      setActive(page.items.some((r) => ACTIVE.has(r.status)));
      return page.items;
    },
    [s.id],
    active ? 2000 : 5000,
  );
  return (
    <Section title={`Git source ${s.name}`} actions={<Button onClick={runs.reload}>Refresh</Button>}>
      <dl className="kv">
        <dt>Repository</dt>
        <dd>
          <code>{s.repo_url}</code> branch <code>{s.branch}</code>
        </dd>
        <dt>Authentication</dt>
        <dd>
          {s.auth_type === 'none' || !s.auth_type ? (
            'none'
          ) : (
            <>
              {s.auth_type}, credential in secret <code>{s.credential_secret_key}</code> (hidden)
            </>
          )}
        </dd>
        <dt>Polling</dt>
        <dd>{s.poll_interval ? `every ${s.poll_interval} s` : 'off: on push notifications and by hand'}</dd>
        {s.push_paths.length > 0 && (
          <>
            <dt>Branch pushes may write</dt>
            <dd>
              {s.push_paths.map((p) => (
                <code key={p}>{p} </code>
              ))}
            </dd>
          </>
        )}
      </dl>
      <h3>Mappings</h3>
      <DataTable
        label="Mappings"
        rows={s.mappings}
        rowKey={(m) => m.namespace}
        columns={[
          { header: 'Repository path', cell: (m) => <code>{m.repo_path || '(repository root)'}</code> },
          { header: 'Namespace', cell: (m) => <Link to={`/editor/${m.namespace}`}>{m.namespace}</Link> },
        ]}
      />
      <h3>Sync runs</h3>
      <ErrorBox error={runs.error} />
      <DataTable
        label="Sync runs"
        rows={runs.data}
        error={runs.error}
        loading="the sync runs"
        rowKey={(r) => r.id}
        empty="No sync runs yet: press Sync now."
        columns={[
          { header: 'Started', cell: (r) => fmtTime(r.started_at) },
          { header: 'Trigger', cell: (r) => r.trigger },
          { header: 'Status', cell: (r) => <SyncStatus status={r.status} /> },
          { header: 'Commit', cell: (r) => (r.sha ? <code title={r.sha}>{short(r.sha)}</code> : <span className="muted">—</span>) },
          { header: 'Ended', cell: (r) => fmtTime(r.ended_at) },
          { header: 'Error', cellClassName: 'git-error', cell: (r) => r.error },
        ]}
      />
      <Webhook source={s} />
    </Section>
  );
}

/** The push webhook URL and how to register it with the usual hosts. */
function Webhook({ source: s }: { source: GitSource }) {
  return (
    <div className="git-webhook">
      <h3>Push webhook</h3>
      <p className="row">
        <code data-testid="git-webhook-url">{s.webhook_url}</code> <CopyButton text={s.webhook_url} label="Copy URL" />
      </p>
      {s.webhook_secret_key ? (
        <p className="small">
          Signed with the value of the platform secret <code>{s.webhook_secret_key}</code>: give the host that same value. A push to <code>{s.branch}</code> queues a sync; pushes
          to other branches are acknowledged and ignored.
        </p>
      ) : (
        <p className="notice small">No webhook secret is set: every notification is refused (401). Edit the source and name a platform secret to sign with.</p>
      )}
      <ul className="small git-hosts">
        <li>
          <strong>GitHub</strong>: repository Settings → Webhooks → Add webhook. Payload URL: the URL above; Content type: <code>application/json</code>; Secret: the webhook
          secret's value; events: “Just the push event”.
        </li>
        <li>
          <strong>GitLab</strong>: project Settings → Webhooks → Add new webhook. URL: the URL above; Secret token: the webhook secret's value; Trigger: “Push events” (optionally
          filtered to <code>{s.branch}</code>).
        </li>
        <li>
          <strong>Gitea / Forgejo</strong>: repository Settings → Webhooks → Add webhook → Gitea. Target URL: the URL above; HTTP method POST; content type{' '}
          <code>application/json</code>; Secret: the webhook secret's value; Trigger on: “Push events”.
        </li>
      </ul>
    </div>
  );
}
