// A git-mapped namespace in the editor (getNamespaceGit): which source, repository,
// branch and path its files come from, why it is read-only, and "push as a
// branch" (pushNamespaceBranch): an editor unlocks the open file, edits it, and
// pushes the edit as a new branch of the repository for a pull request. The
// namespace itself does not change until the branch is merged and synced.
import { useState } from 'react';
import { client } from '../api';
import { GitSha } from '../components/GitSha';
import { usePermission } from '../session';
import type { NamespaceGit, NamespaceGitSource, Answer } from '../types';
import { Button, CopyButton, ErrorBox, fmtTime, useAction } from '../ui';

export type { NamespaceGit };
type PushResult = Answer<'pushNamespaceBranch'>;

/** The `source` of getNamespaceGit: the git source, its mapping of this namespace and its last sync. */
export type MappedSource = NamespaceGitSource;

export const sourceOf = (git: NamespaceGit | undefined): MappedSource | undefined => git?.source ?? undefined;

export interface GitSourcePanelProps {
  ns: string;
  source: MappedSource;
  /** The open file, its text in the editor, and whether it differs from the namespace's. */
  file: string;
  text: string;
  dirty: boolean;
  binary: boolean;
  /** Whether the open file is unlocked for an edit to push. */
  editing: boolean;
  onEditing: (on: boolean) => void;
}

export function GitSourcePanel({ ns, source, file, text, dirty, binary, editing, onEditing }: GitSourcePanelProps) {
  const { needs } = usePermission();
  const [message, setMessage] = useState('');
  const [pushed, setPushed] = useState<PushResult & { path: string }>();
  const push = useAction(async () => {
    setPushed(undefined);
    const r = await client.post('/api/v1/namespaces/{namespace}/git/push', {
      params: { path: { namespace: ns } },
      body: { message: message || `Edit ${file}`, changes: [{ op: 'put', path: file, content: text }] },
    });
    setPushed({ ...r, path: file });
  });
  const editWhy = needs('editor', ns) ?? (!file ? 'Open a file first' : binary ? 'Binary files cannot be edited here' : null);
  const pushWhy = editWhy ?? (!editing ? 'Edit the file for a branch first' : !dirty ? 'Change the file first: the branch holds your edit' : null);
  return (
    <section className="notice git-source" aria-label="Git source">
      <p>
        <strong>Read-only: mapped from the git source {source.name}.</strong> Its files change when the source syncs, so saving, uploads and reverts are off here; an edit can be
        pushed as a branch of the repository instead, for a pull request.
      </p>
      <dl className="git-source-facts">
        <dt>Repository</dt>
        <dd>
          <code data-testid="git-repo">{source.repo_url}</code>
        </dd>
        <dt>Branch</dt>
        <dd>
          <code data-testid="git-branch">{source.branch}</code>
        </dd>
        <dt>Path</dt>
        <dd data-testid="git-path">{source.repo_path ? <code>{source.repo_path}</code> : 'the repository root'}</dd>
        <dt>Last sync</dt>
        <dd>
          {source.last_sync_at ? (
            <>
              {source.last_synced_sha && <GitSha sha={source.last_synced_sha} />} {fmtTime(source.last_sync_at)} · {source.last_sync_status}
              {source.last_error && <span className="field-error"> · {source.last_error}</span>}
            </>
          ) : (
            'not synced yet'
          )}
        </dd>
      </dl>
      <div className="row wrap">
        {editing ? (
          <>
            <label>
              Branch message <input value={message} onChange={(e) => setMessage(e.target.value)} placeholder={file ? `Edit ${file}` : ''} maxLength={500} />
            </label>
            <Button className="primary" disabledReason={pushWhy} disabled={push.busy} onClick={() => void push.run()}>
              Push as a branch
            </Button>
            <Button
              onClick={() => {
                onEditing(false);
                setPushed(undefined);
                push.clear();
              }}
            >
              Stop editing (drop the edit)
            </Button>
          </>
        ) : (
          <Button disabledReason={editWhy} onClick={() => onEditing(true)}>
            Edit for a branch
          </Button>
        )}
      </div>
      <ErrorBox error={push.error} />
      {pushed && (
        <p className="pushed" role="status" data-testid="pushed-branch">
          Pushed <code>{pushed.path}</code> to the new branch <code>{pushed.branch}</code> <CopyButton text={pushed.branch} label="Copy branch name" /> (commit{' '}
          <GitSha sha={pushed.sha} />) of <code>{source.repo_url}</code>: open a pull request from it into <code>{source.branch}</code>.
        </p>
      )}
    </section>
  );
}
