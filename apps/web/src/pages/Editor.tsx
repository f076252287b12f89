// The namespace editor: a file tree, CodeMirror (flow files get the served
// schema's completion and hover docs and the service's inline errors), save
// with a message against the version the file was opened at (a conflict shows
// both versions side by side), the version list with diffs and revert, and
// upload of any file, binary included. A script or executable file runs from
// here (editor/RunFile.tsx); a namespace mapped from git says where its files
// come from, stays read-only, and pushes an edit as a branch instead
// (editor/GitSource.tsx).
import { useEffect, useRef, useState } from 'react';
import { ApiError, client } from '../api';
import { DiffView } from '../components/DiffView';
import { createEditor, type EditorHandle } from '../editor/codemirror';
import { AllowedCallers } from '../editor/AllowedCallers';
import { GitSourcePanel, sourceOf } from '../editor/GitSource';
import { RunFileDialog, runRefusal } from '../editor/RunFile';
import { navigate, useQueryParam } from '../router';
import { usePermission } from '../session';
import type { NamespaceDiff, ValidationProblem } from '../types';
import { Button, ErrorBox, Loading, Section, arrowFocus, fmtTime, useAction, useLoad } from '../ui';
import { CreateNamespace, NamespaceTree } from './Flows';

const NEW_FLOW = (id: string) => `# yaml-language-server: $schema=${location.origin}/api/v1/schemas/flow.json
id: ${id}
description: ""
tasks:
  - id: hello
    type: command
    command: ["echo", "hello"]
`;

/** Each changed file of a version diff, side by side (binary, mode-only and oversized changes named). */
function VersionDiff({ diff, path }: { diff: NamespaceDiff; path: string }) {
  return (
    <div data-testid="version-diff">
      <h3>
        Version {diff.from} → version {diff.to}
        {path ? `, ${path} only` : ''}: {diff.files.length ? `${diff.files.length} file${diff.files.length > 1 ? 's' : ''} changed` : 'no changes'}
      </h3>
      {diff.files.map((f) => (
        <div key={f.path}>
          <h4>
            <code>{f.path}</code> <span className="badge">{f.status.replace('_', ' ')}</span>
          </h4>
          {f.binary ? (
            <p className="muted">Binary file: its bytes differ.</p>
          ) : f.status === 'mode_changed' ? (
            <p className="muted">
              Executable: {String(f.executable?.from)} → {String(f.executable?.to)}
            </p>
          ) : f.too_large || f.diff === undefined ? (
            <p className="muted">Too large to show a line diff.</p>
          ) : (
            <DiffView diff={f.diff} leftTitle={`${f.path} at version ${diff.from}`} rightTitle={`version ${diff.to}`} />
          )}
        </div>
      ))}
    </div>
  );
}

/** listFiles, with the namespace `version` the files are of (an extension of the list page). */

interface Conflict {
  mine: string;
  theirs: string;
  head: number;
}

export default function Editor({ ns }: { ns?: string }) {
  const namespaces = useLoad(() => client.all('/api/v1/namespaces'), []);
  return (
    <div className="page split">
      <aside>
        <h2>Namespaces</h2>
        {namespaces.data ? (
          <NamespaceTree names={namespaces.data.map((n) => n.name)} selected={ns ?? ''} onSelect={(n) => navigate(n ? `/editor/${n}` : '/editor')} />
        ) : (
          <Loading />
        )}
        <ErrorBox error={namespaces.error} />
        <CreateNamespace
          onCreated={(n) => {
            namespaces.reload();
            navigate(`/editor/${n}`);
          }}
        />
      </aside>
      <div>{ns ? <NamespaceEditor key={ns} ns={ns} readOnly={!!namespaces.data?.find((n) => n.name === ns)?.read_only} /> : <p className="muted">Choose a namespace.</p>}</div>
    </div>
  );
}

function NamespaceEditor({ ns, readOnly }: { ns: string; readOnly: boolean }) {
  const { needs } = usePermission();
  const git = useLoad(async () => {
    try {
      return await client.get('/api/v1/namespaces/{namespace}/git', { params: { path: { namespace: ns } } });
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return { read_only: false, source: null };
      throw e;
    }
  }, [ns]);
  const source = sourceOf(git.data);
  const editWhy =
    needs('editor', ns) ?? (readOnly || git.data?.read_only ? `The namespace is read-only: it is mapped from ${source ? `the git source ${source.name}` : 'a git source'}` : null);
  // A git-mapped namespace's open file unlocked for an edit to push as a branch (never saved here).
  const [branchEdit, setBranchEdit] = useState(false);
  const branchEditRef = useRef(false);
  branchEditRef.current = branchEdit;
  const [runOpen, setRunOpen] = useState(false);
  const [file, setFile] = useQueryParam('file');
  const files = useLoad(async () => {
    try {
      return await client.get('/api/v1/namespaces/{namespace}/files', { params: { path: { namespace: ns }, query: { limit: 200 } } });
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return { version: 0, items: [] };
      throw e;
    }
  }, [ns]);
  const [text, setText] = useState('');
  const [savedText, setSavedText] = useState('');
  const [baseVersion, setBaseVersion] = useState<number>();
  const [binary, setBinary] = useState(false);
  const [binarySize, setBinarySize] = useState<number>();
  const [problems, setProblems] = useState<ValidationProblem[]>([]);
  const [message, setMessage] = useState('');
  const [conflict, setConflict] = useState<Conflict>();
  const [newPath, setNewPath] = useState('');
  const [opened, setOpened] = useState(0);
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<EditorHandle | undefined>(undefined);
  const fileRef = useRef(file);
  fileRef.current = file;
  const saveRef = useRef<() => void>(() => undefined);

  useEffect(() => {
    let gone = false;
    void createEditor(host.current!, { ns: () => ns, path: () => fileRef.current, onChange: setText, onProblems: setProblems, onSave: () => saveRef.current() }).then((h) => {
      if (gone) return h.destroy();
      editor.current = h;
      setOpened((x) => x + 1);
    });
    return () => {
      gone = true;
      editor.current?.destroy();
      editor.current = undefined;
    };
  }, [ns]);

  const open = useAction(async (path: string) => {
    if (!editor.current) return;
    const known = files.data?.items.some((f) => f.path === path);
    let content = '';
    let isBinary = false;
    if (known) {
      const f = await client.get('/api/v1/namespaces/{namespace}/file', { params: { path: { namespace: ns }, query: { path } } });
      isBinary = f.content === undefined;
      const b64 = f.content_base64 ?? '';
      const size = Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
      setBinarySize(isBinary ? size : undefined);
      content = f.content ?? `(binary file, ${size.toLocaleString('en-US')} bytes: replace it with "Upload file…")`;
      setBaseVersion(f.version ?? undefined);
    } else {
      content = path.endsWith('.flow.yaml')
        ? NEW_FLOW(
            path
              .split('/')
              .pop()!
              .replace(/\.flow\.yaml$/, ''),
          )
        : '';
      setBaseVersion(files.data?.version);
      setBinarySize(undefined);
    }
    setBinary(isBinary);
    setProblems([]);
    editor.current.load(path, content, isBinary || (!!editWhy && !branchEditRef.current));
    setText(content);
    setSavedText(known ? content : '');
  });
  useEffect(() => {
    if (file && opened && files.data) void open.run(file);
    // Re-opens when the file, the editor or the file list changes, not on every `open` closure.
  }, [file, opened, files.data]);

  const save = useAction(async (base: number | undefined, content: string) => {
    try {
      const v = await client.post('/api/v1/namespaces/{namespace}/changes', {
        params: { path: { namespace: ns } },
        body: {
          ...(base !== undefined ? { base_version: base } : {}),
          message: message || `Edit ${file}`,
          changes: [{ op: 'put', path: file, content }],
        },
      });
      setBaseVersion(v.version ?? undefined);
      setSavedText(content);
      setMessage('');
      setConflict(undefined);
      files.reload();
      versions.reload();
    } catch (e) {
      if (e instanceof ApiError && e.code === 'version_conflict') {
        const head = await client.get('/api/v1/namespaces/{namespace}', { params: { path: { namespace: ns } } });
        const theirs = await client
          .get('/api/v1/namespaces/{namespace}/file', { params: { path: { namespace: ns }, query: { path: file } } })
          .catch(() => ({ content: '(the file was deleted)' }));
        setConflict({ mine: content, theirs: theirs.content ?? '(binary)', head: head.head_version! });
        return;
      }
      throw e;
    }
  });
  saveRef.current = () => {
    if (!editWhy && file && !binary) void save.run(baseVersion, editor.current?.view.state.doc.toString() ?? text);
  };

  const versions = useLoad(async () => {
    try {
      return await client.all('/api/v1/namespaces/{namespace}/versions', { params: { path: { namespace: ns } } }, 400);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return [];
      throw e;
    }
  }, [ns]);
  const [diffFrom, setDiffFrom] = useState<number>();
  const diff = useLoad(
    async () =>
      diffFrom !== undefined
        ? client.get('/api/v1/namespaces/{namespace}/diff', { params: { path: { namespace: ns }, query: { from: diffFrom, path: file || undefined } } })
        : undefined,
    [ns, diffFrom, file],
  );
  const revert = useAction(async (version: number) => {
    await client.post('/api/v1/namespaces/{namespace}/revert', { params: { path: { namespace: ns } }, body: { version, message: `Revert to version ${version}` } });
    files.reload();
    versions.reload();
    if (file) setOpened((x) => x + 1);
  });
  const upload = useAction(async (f: File) => {
    const path = newPath || f.name;
    await client.put('/api/v1/namespaces/{namespace}/file', { params: { path: { namespace: ns }, query: { path, message: `Upload ${path}` } }, body: await f.arrayBuffer() });
    setNewPath('');
    files.reload();
    versions.reload();
  });

  const dirty = text !== savedText;
  const onBranchEdit = (on: boolean) => {
    setBranchEdit(on);
    branchEditRef.current = on;
    if (on) editor.current?.setReadOnly(binary);
    else setOpened((x) => x + 1); // reopens the file as the namespace has it: the edit is dropped
  };
  const entry = files.data?.items.find((f) => f.path === file);
  return (
    <>
      <div className="row wrap">
        <h1>{ns}</h1>
        {editWhy && (
          <span className="badge" title={editWhy}>
            read only
          </span>
        )}
      </div>
      <ErrorBox error={git.error} />
      {source && <GitSourcePanel ns={ns} source={source} file={file} text={text} dirty={dirty} binary={binary} editing={branchEdit} onEditing={onBranchEdit} />}
      <div className="editor-layout">
        <nav className="files" aria-label="Files" onKeyDown={arrowFocus('button.tree-item')}>
          {files.data ? (
            <ul>
              {files.data.items.map((f) => (
                <li key={f.path}>
                  <button
                    type="button"
                    className={`tree-item${file === f.path ? ' active' : ''}`}
                    aria-current={file === f.path ? 'true' : undefined}
                    onClick={() => setFile(f.path)}
                  >
                    {f.path}
                  </button>
                </li>
              ))}
              {!files.data.items.length && <li className="muted">No files yet.</li>}
            </ul>
          ) : (
            <Loading />
          )}
          <ErrorBox error={files.error} />
          {!editWhy && (
            <form
              className="stack"
              onSubmit={(e) => {
                e.preventDefault();
                if (newPath) setFile(newPath);
              }}
            >
              <label>
                File path <input value={newPath} onChange={(e) => setNewPath(e.target.value)} placeholder="flows/etl.flow.yaml" />
              </label>
              <Button type="submit">New file</Button>
              <label className="button">
                Upload file…
                <input
                  type="file"
                  className="sr-only"
                  onChange={(e) => {
                    const picked = e.target.files?.[0];
                    e.target.value = ''; // the same file can be picked again
                    if (picked) void upload.run(picked);
                  }}
                />
              </label>
              <ErrorBox error={upload.error} />
            </form>
          )}
        </nav>
        <div className="editor-main">
          <div className="row wrap">
            <strong>{file || 'No file open'}</strong>
            {dirty && <span className="badge">unsaved</span>}
            <span className="muted small">base version {baseVersion ?? '—'}</span>
            <div className="spacer" />
            <label>
              Message <input value={message} onChange={(e) => setMessage(e.target.value)} placeholder={file ? `Edit ${file}` : ''} maxLength={500} />
            </label>
            <Button
              className="primary"
              disabledReason={editWhy ?? (!file ? 'Open a file first' : binary ? 'Binary files are replaced by upload' : null)}
              disabled={save.busy}
              onClick={() => saveRef.current()}
            >
              Save
            </Button>
            <Button disabledReason={needs('operator', ns) ?? runRefusal(file, entry)} onClick={() => setRunOpen(true)}>
              Run…
            </Button>
          </div>
          {binary && binarySize !== undefined && (
            <p className="notice small">Binary file, {binarySize.toLocaleString('en-US')} bytes. It is not edited here: upload a file under the same path to replace it.</p>
          )}
          <div ref={host} className="cm-host" data-testid="editor" />
          {problems.length > 0 && (
            <ul className="problems" aria-label="Problems" data-testid="problems">
              {problems.map((p, i) => (
                <li key={i}>
                  {p.line ? `line ${p.line}${p.column ? `, column ${p.column}` : ''}: ` : ''}
                  {p.field && <code>{p.field}</code>} {p.message}
                </li>
              ))}
            </ul>
          )}
          <ErrorBox error={save.error ?? open.error} />
        </div>
      </div>
      {runOpen && file && <RunFileDialog ns={ns} path={file} version={files.data?.version} unsaved={dirty} onClose={() => setRunOpen(false)} />}
      {conflict && (
        <div className="dialog wide" role="dialog" aria-modal="true" aria-labelledby="conflict-title">
          <h2 id="conflict-title">Someone saved this namespace meanwhile</h2>
          <p>
            You edited version {baseVersion}; the namespace is now at version {conflict.head}. Compare, then keep yours (it replaces theirs) or take theirs (your edit is dropped).
          </p>
          <div className="grid2">
            <div>
              <h3>Theirs (version {conflict.head})</h3>
              <pre className="code-block" data-testid="conflict-theirs">
                {conflict.theirs}
              </pre>
            </div>
            <div>
              <h3>Yours</h3>
              <pre className="code-block" data-testid="conflict-mine">
                {conflict.mine}
              </pre>
            </div>
          </div>
          <div className="row">
            <Button className="primary" onClick={() => void save.run(conflict.head, conflict.mine)}>
              Save mine over version {conflict.head}
            </Button>
            <Button
              onClick={() => {
                setConflict(undefined);
                setOpened((x) => x + 1);
              }}
            >
              Take theirs
            </Button>
            <Button onClick={() => setConflict(undefined)}>Back to editing</Button>
          </div>
        </div>
      )}
      <Section title="Versions">
        {versions.data ? (
          <table>
            <thead>
              <tr>
                <th>Version</th>
                <th>Saved</th>
                <th>Author</th>
                <th>Message</th>
                <th>Files</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {versions.data.map((v) => (
                <tr key={v.id}>
                  <td>{v.version}</td>
                  <td>{fmtTime(v.created_at)}</td>
                  <td>{v.author}</td>
                  <td>{v.message}</td>
                  <td>{v.file_count}</td>
                  <td className="row">
                    <Button aria-label={`Diff version ${v.version} with the head`} onClick={() => setDiffFrom(v.version!)}>
                      Diff with head
                    </Button>
                    <Button
                      aria-label={`Revert to version ${v.version}`}
                      disabledReason={editWhy}
                      onClick={() => confirm(`Make version ${v.version} the new head?`) && void revert.run(v.version!)}
                    >
                      Revert
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Loading />
        )}
        <ErrorBox error={versions.error ?? revert.error ?? diff.error} />
        {diff.data && <VersionDiff diff={diff.data} path={file} />}
      </Section>
      <AllowedCallers ns={ns} />
    </>
  );
}
