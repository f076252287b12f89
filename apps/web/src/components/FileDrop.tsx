// The control of a `file` input on the run form: a drop zone that takes a
// file dragged onto it, or one chosen with the file picker inside it. The file
// is uploaded at once (createUpload, through api.ts) while the zone says
// "Uploading…"; once uploaded it shows the file's name, size and sha256, and
// the upload's id becomes the input's value, sent when the flow is run. A
// refusal (413 over the size limit, 422 a bad name) shows the service's
// message, and the input has no value until another file is uploaded.
import { useRef, useState } from 'react';
import { uploadFile } from '../api';
import type { Upload } from '../types';
import { ErrorBox } from '../ui';

type State = { kind: 'idle' } | { kind: 'uploading'; name: string; size: number } | { kind: 'done'; upload: Upload } | { kind: 'failed'; name: string; error: unknown };

/** A size as people read it: bytes below 1 KiB, else KiB, MiB or GiB with one decimal. */
export function fmtBytes(n: number): string {
  if (n < 1024) return `${n.toLocaleString()} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

export function FileDrop(p: {
  ns: string;
  /** The id of the file picker, for the input's label. */
  id: string;
  inputId: string;
  describedBy?: string;
  invalid: boolean;
  required: boolean;
  /** The upload id once uploaded; '' while uploading, after a failure, or before any file. */
  onChange(uploadId: string): void;
  onBusy(busy: boolean): void;
}) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [over, setOver] = useState(false);
  // Only the latest file counts: an earlier upload that ends later is ignored.
  const latest = useRef(0);

  const take = (file: File | undefined) => {
    if (!file) return;
    const n = ++latest.current;
    setState({ kind: 'uploading', name: file.name, size: file.size });
    p.onChange('');
    p.onBusy(true);
    uploadFile(p.ns, file).then(
      (upload) => {
        if (n !== latest.current) return;
        setState({ kind: 'done', upload });
        p.onChange(upload.id);
        p.onBusy(false);
      },
      (error: unknown) => {
        if (n !== latest.current) return;
        setState({ kind: 'failed', name: file.name, error });
        p.onBusy(false);
      },
    );
  };

  return (
    <div
      className={`drop-zone${over ? ' over' : ''}`}
      role="group"
      aria-label={`Drop a file for ${p.inputId}`}
      aria-busy={state.kind === 'uploading'}
      onDragEnter={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragOver={(e) => {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        take(e.dataTransfer.files[0]);
      }}
    >
      <p className="muted small">Drop a file here, or choose one:</p>
      <input type="file" id={p.id} aria-invalid={p.invalid} aria-describedby={p.describedBy} aria-required={p.required} onChange={(e) => take(e.target.files?.[0])} />
      <div role="status" className="drop-status">
        {state.kind === 'uploading' && (
          <span>
            Uploading <code>{state.name}</code> ({fmtBytes(state.size)})…
          </span>
        )}
        {state.kind === 'done' && (
          <span data-upload-id={state.upload.id}>
            Uploaded <code>{state.upload.name}</code>, {fmtBytes(state.upload.size)}{' '}
            <span className="muted small" title={state.upload.sha256}>
              sha256 <code>{state.upload.sha256.slice(0, 12)}…</code>
            </span>
          </span>
        )}
        {state.kind === 'failed' && (
          <span>
            <code>{state.name}</code> was not uploaded:
          </span>
        )}
      </div>
      {state.kind === 'failed' && <ErrorBox error={state.error} />}
    </div>
  );
}
