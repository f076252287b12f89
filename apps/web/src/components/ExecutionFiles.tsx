// The Files tab of the execution page: the execution's input files (a section
// only when it has some), the output
// files its tasks kept (`output_files`) and their artifacts, each with its
// task, name, size and sha256, a download link, and a preview of its first
// 64 KiB (text as is, CSV as a table; binary content is said to be binary).
// The preview reads only that much of the download and drops the rest.
import { useEffect, useRef, useState } from 'react';
import { API, client } from '../api';
import type { Artifact } from '../types';
import { Button, ErrorBox, Loading, copyText, fmtTime, useLoad } from '../ui';
import { PREVIEW_BYTES, previewOf, type Preview } from './file-preview';

type Kind = 'input' | 'output' | 'artifact';
const GROUPS: { kind: Kind; title: string; empty: string }[] = [
  { kind: 'input', title: 'Input files', empty: 'No input files.' },
  { kind: 'output', title: 'Output files', empty: 'No output files.' },
  { kind: 'artifact', title: 'Artifacts', empty: 'No artifacts.' },
];

/** An artifact row's kind: `input` (a file input), `output` (output_files), else `artifact`. */
export function kindOf(a: Pick<Artifact, 'kind'>): Kind {
  const k = a.kind as string | undefined;
  return k === 'input' || k === 'output' ? k : 'artifact';
}

/** Where a file downloads from (the session cookie goes along). */
const downloadUrl = (executionId: string, a: Artifact) => `${API}/executions/${encodeURIComponent(executionId)}/artifacts/${encodeURIComponent(a.id)}`;
/** The name a download is saved under: the last part of the file's path. */
const baseName = (name: string) => name.split('/').pop() || name;

export function ExecutionFiles({ executionId }: { executionId: string }) {
  const list = useLoad(() => client.all('/api/v1/executions/{executionId}/artifacts', { params: { path: { executionId } } }), [executionId]);
  const [open, setOpen] = useState<Artifact>();
  if (list.error) return <ErrorBox error={list.error} />;
  if (!list.data) return <Loading what="files" />;
  const sorted = [...list.data].sort((a, b) => (a.task_key ?? '').localeCompare(b.task_key ?? '') || a.name.localeCompare(b.name));
  return (
    <>
      {GROUPS.map((g) => {
        const rows = sorted.filter((a) => kindOf(a) === g.kind);
        // Most flows have no file inputs: no section for none.
        if (g.kind === 'input' && !rows.length) return null;
        return (
          <section key={g.kind} aria-label={g.title}>
            <h3>{g.title}</h3>
            {rows.length ? <FileTable executionId={executionId} rows={rows} label={g.title} onPreview={setOpen} open={open} /> : <p className="muted">{g.empty}</p>}
          </section>
        );
      })}
      {open && <FilePreview key={open.id} executionId={executionId} file={open} onClose={() => setOpen(undefined)} />}
    </>
  );
}

function FileTable({ executionId, rows, label, onPreview, open }: { executionId: string; rows: Artifact[]; label: string; onPreview: (a: Artifact) => void; open?: Artifact }) {
  return (
    <table aria-label={label} className="files-table">
      <thead>
        <tr>
          <th>Task</th>
          <th>Name</th>
          <th className="num">Size</th>
          <th>sha256</th>
          <th>Created</th>
          <th>
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((a) => (
          <tr key={a.id} className={open?.id === a.id ? 'selected' : undefined}>
            <td>{a.task_key ?? '—'}</td>
            <td>
              <code>{a.name}</code>
            </td>
            <td className="num">{a.size.toLocaleString()} B</td>
            <td>
              {a.sha256 ? (
                <span className="sha" title={a.sha256} data-sha256={a.sha256}>
                  <code>{a.sha256.slice(0, 12)}…</code> <CopySha sha={a.sha256} name={a.name} />
                </span>
              ) : (
                '—'
              )}
            </td>
            <td>{fmtTime(a.created_at)}</td>
            <td className="row">
              <Button aria-label={`Preview ${a.name}`} onClick={() => onPreview(a)}>
                Preview
              </Button>
              <a href={downloadUrl(executionId, a)} download={baseName(a.name)} aria-label={`Download ${a.name}`}>
                Download
              </a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A small Copy button for a file's whole sha256, named for its file (for screen readers and tests). */
function CopySha({ sha, name }: { sha: string; name: string }) {
  const [done, setDone] = useState(false);
  return (
    <Button
      className="small"
      aria-label={`Copy the sha256 of ${name}`}
      onClick={() =>
        void copyText(sha).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        })
      }
    >
      {done ? 'Copied' : 'Copy'}
    </Button>
  );
}

/** Reads the first PREVIEW_BYTES of a file's download, then cancels the rest. */
async function readHead(executionId: string, a: Artifact, signal: AbortSignal): Promise<Uint8Array> {
  const body = (await client.get('/api/v1/executions/{executionId}/artifacts/{artifactId}', {
    params: { path: { executionId, artifactId: a.id } },
    parseAs: 'stream',
    signal,
  })) as ReadableStream<Uint8Array> | null;
  if (!body) return new Uint8Array();
  const head = new Uint8Array(Math.min(PREVIEW_BYTES, a.size));
  let n = 0;
  // Leaving the loop early (enough read) cancels the rest of the download.
  for await (const value of body as unknown as AsyncIterable<Uint8Array>) {
    const take = Math.min(value.length, head.length - n);
    head.set(value.subarray(0, take), n);
    n += take;
    if (n >= head.length) break;
  }
  return head.subarray(0, n);
}

function FilePreview({ executionId, file, onClose }: { executionId: string; file: Artifact; onClose: () => void }) {
  const [preview, setPreview] = useState<Preview>();
  const [error, setError] = useState<unknown>();
  const ref = useRef<HTMLElement>(null);
  // Opened below the tables: brought into view.
  // (A block body: scrollIntoView returns a promise in newer browsers, which React would take for a cleanup.)
  useEffect(() => {
    void ref.current?.scrollIntoView({ block: 'nearest' });
  }, [preview]);
  useEffect(() => {
    const stop = new AbortController();
    readHead(executionId, file, stop.signal).then(
      (bytes) => setPreview(previewOf(bytes, file.size, file.name, file.content_type)),
      (e: unknown) => !stop.signal.aborted && setError(e),
    );
    return () => stop.abort();
  }, [executionId, file]);
  const title = `Preview of ${file.name}`;
  return (
    <section ref={ref} className="card file-preview" aria-label={title}>
      <header className="card-head">
        <h3>
          Preview of <code>{file.task_key ? `${file.task_key}/${file.name}` : file.name}</code>
        </h3>
        <Button onClick={onClose}>Close preview</Button>
      </header>
      <ErrorBox error={error} />
      {!preview && !error && <Loading what="the preview" />}
      {preview?.kind === 'binary' && <p className="muted">Binary content: no preview. Download it to open it.</p>}
      {preview?.kind === 'empty' && <p className="muted">The file is empty.</p>}
      {(preview?.kind === 'text' || preview?.kind === 'csv') && preview.truncated && (
        <p className="muted small" role="note">
          The first {PREVIEW_BYTES / 1024} KiB of {file.size.toLocaleString()} B, up to the last whole line; download the file for the rest.
        </p>
      )}
      {preview?.kind === 'text' && <pre className="code-block">{preview.text}</pre>}
      {preview?.kind === 'csv' && (
        <div className="csv-preview">
          <table aria-label={`CSV preview of ${file.name}`}>
            <thead>
              <tr>
                {preview.header.map((h, i) => (
                  <th key={i}>{h}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {preview.rows.map((r, i) => (
                <tr key={i}>
                  {r.map((c, j) => (
                    <td key={j}>{c}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
