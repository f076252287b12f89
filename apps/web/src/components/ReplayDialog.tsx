// The Replay action of an ended execution (the replayExecution extension,
// docs/using/web-ui.md): a dialog prefilled with the original's inputs and
// labels (a changed field is marked, in words and colour), a task to replay
// from and the revision (pinned or latest). It shows the plan the server
// answers to a dry run (what is reused, what runs, which inputs changed)
// before the replay can start; any change to the form asks for the plan
// again. Values go as typed: the server coerces them to the revision's input
// types and names a wrong one (shown beside its field). A `file` input keeps
// the original's upload id, or takes another file dropped or chosen in its
// drop zone (uploaded at once, as on the run form; the plan waits for it).
import { useState } from 'react';
import { ApiError, client } from '../api';
import { navigate } from '../router';
import type { Answer, Execution, FlowDefinition, RequestBody } from '../types';
import { Button, ErrorBox, useAction } from '../ui';
import { FileDrop } from './FileDrop';
import { isFileInput } from './RunForm';

type Plan = Answer<'replayExecution', 200>;

/** An input's value as the dialog edits it: strings as they are, anything else as JSON. */
export const asText = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

/** The inputs and labels the form changed (only those go to the server, merged over the original's). */
export function replayChanges(
  original: Pick<Execution, 'inputs' | 'labels'>,
  inputs: Record<string, string>,
  labels: Record<string, string>,
): Required<Pick<RequestBody<'replayExecution'>, 'inputs' | 'labels'>> {
  const changed = (from: Record<string, unknown>, to: Record<string, string>) => Object.fromEntries(Object.entries(to).filter(([k, v]) => v !== asText(from[k])));
  return { inputs: changed(original.inputs, inputs), labels: changed(original.labels, labels) };
}

/** The field errors of a refused request (422 `inputs.<id>`, `from`), by field. */
function fieldErrors(e: unknown): Record<string, string> {
  return e instanceof ApiError ? Object.fromEntries(e.details.map((d) => [d.field, d.message])) : {};
}

export function ReplayDialog({ ex, def, onClose }: { ex: Execution; def?: FlowDefinition; onClose: () => void }) {
  const declared = (def?.inputs ?? []).map((i) => i.id);
  const fileInputs = new Set((def?.inputs ?? []).filter(isFileInput).map((i) => i.id));
  const [uploading, setUploading] = useState<Record<string, boolean>>({});
  const busy = Object.values(uploading).some(Boolean);
  const inputIds = [...new Set([...declared, ...Object.keys(ex.inputs)])];
  const [inputs, setInputs] = useState<Record<string, string>>(() => Object.fromEntries(inputIds.map((k) => [k, asText(ex.inputs[k])])));
  const [labels, setLabels] = useState<Record<string, string>>(() => ({ ...ex.labels }));
  const taskIds = [...new Set([...(def?.tasks ?? []).map((t) => t.id), ...ex.task_runs.map((r) => r.task_key)])];
  const [from, setFrom] = useState('');
  const [revision, setRevision] = useState<'pinned' | 'latest'>('pinned');
  const [plan, setPlan] = useState<Plan | null>(null);
  const changes = replayChanges(ex, inputs, labels);
  const body: RequestBody<'replayExecution'> = {
    ...(Object.keys(changes.inputs).length ? { inputs: changes.inputs } : {}),
    ...(Object.keys(changes.labels).length ? { labels: changes.labels } : {}),
    ...(from ? { from } : {}),
    revision,
  };
  const at = { params: { path: { executionId: ex.id } } };
  const preview = useAction(async () => {
    const p = await client.post('/api/v1/executions/{executionId}/replay', { ...at, body: { ...body, dry_run: true } });
    if (!('id' in p)) setPlan(p);
  });
  const start = useAction(async () => {
    const e = await client.post('/api/v1/executions/{executionId}/replay', { ...at, body });
    if ('id' in e) navigate(`/executions/${e.id}`);
  });
  const errors = fieldErrors(preview.error ?? start.error);
  // Any change asks for the plan again: what starts is what was shown.
  const edit =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      setPlan(null);
      set(v);
    };
  const field = (kind: 'input' | 'label', k: string, value: string, original: unknown, set: (v: string) => void) => {
    const id = `replay-${kind}-${k}`;
    const changed = value !== asText(original);
    const err = kind === 'input' ? errors[`inputs.${k}`] : undefined;
    return (
      <div key={id} className={`field${changed ? ' changed' : ''}`} data-changed={changed ? 'true' : undefined}>
        <label htmlFor={id}>
          {k} {changed && <span className="changed-mark">(changed)</span>}
        </label>
        <input id={id} value={value} aria-invalid={!!err} aria-describedby={err ? `${id}-err` : undefined} onChange={(e) => edit(set)(e.target.value)} />
        {kind === 'input' && fileInputs.has(k) && (
          <>
            <label htmlFor={`replay-file-${k}`} className="muted small">
              Replace the file of {k}
            </label>
            <FileDrop
              ns={ex.namespace}
              id={`replay-file-${k}`}
              inputId={k}
              invalid={false}
              required={false}
              // The new upload's id replaces the value; while uploading or after a refusal the value stays.
              onChange={(v) => {
                if (v) edit(set)(v);
              }}
              onBusy={(b) => setUploading((x) => ({ ...x, [k]: b }))}
            />
          </>
        )}
        {err && (
          <span id={`${id}-err`} className="field-error" role="alert">
            {err}
          </span>
        )}
      </div>
    );
  };
  return (
    <>
      <div className="dialog-backdrop" onClick={onClose} />
      <div className="dialog replay" role="dialog" aria-modal="true" aria-labelledby="replay-title">
        <h2 id="replay-title">Replay execution</h2>
        <p className="muted small">
          A new execution with these inputs and labels. From a task: it and the tasks downstream of it run, the others reuse their successful runs. Without one, every task runs.
        </p>
        <fieldset>
          <legend>Inputs</legend>
          {inputIds.length ? (
            inputIds.map((k) => field('input', k, inputs[k] ?? '', ex.inputs[k], (v) => setInputs((x) => ({ ...x, [k]: v }))))
          ) : (
            <p className="muted">No inputs.</p>
          )}
        </fieldset>
        <fieldset>
          <legend>Labels</legend>
          {Object.keys(labels).length ? (
            Object.keys(labels).map((k) => field('label', k, labels[k] ?? '', ex.labels[k], (v) => setLabels((x) => ({ ...x, [k]: v }))))
          ) : (
            <p className="muted">No labels.</p>
          )}
        </fieldset>
        <div className="field">
          <label htmlFor="replay-from">Replay from</label>
          <select id="replay-from" value={from} aria-invalid={!!errors.from} onChange={(e) => edit(setFrom)(e.target.value)}>
            <option value="">every task (nothing reused)</option>
            {taskIds.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
          {errors.from && (
            <span className="field-error" role="alert">
              {errors.from}
            </span>
          )}
        </div>
        <fieldset>
          <legend>Revision</legend>
          <label className="choice">
            <input type="radio" name="replay-revision" value="pinned" checked={revision === 'pinned'} onChange={() => edit(setRevision)('pinned')} /> Pinned: this execution's flow
            revision and files
          </label>
          <label className="choice">
            <input type="radio" name="replay-revision" value="latest" checked={revision === 'latest'} onChange={() => edit(setRevision)('latest')} /> Latest: the flow's current
            revision and files
          </label>
        </fieldset>
        {plan && (
          <div className="row top" data-testid="replay-plan" aria-live="polite">
            <div>
              <h3>Reused (copied)</h3>
              <ul data-testid="replay-reused">{plan.reuse.length ? plan.reuse.map((r) => <li key={r.task_id}>{r.task_id}</li>) : <li className="muted">none</li>}</ul>
            </div>
            <div>
              <h3>Runs</h3>
              <ul data-testid="replay-run">{plan.run.length ? plan.run.map((k) => <li key={k}>{k}</li>) : <li className="muted">none</li>}</ul>
            </div>
            <div>
              <h3>Changed inputs</h3>
              <ul data-testid="replay-changed">{plan.changed_inputs.length ? plan.changed_inputs.map((k) => <li key={k}>{k}</li>) : <li className="muted">none</li>}</ul>
            </div>
          </div>
        )}
        <ErrorBox error={preview.error ?? start.error} />
        <div className="row">
          {plan ? (
            <Button className="primary" disabled={start.busy || busy} onClick={() => void start.run()}>
              Start replay
            </Button>
          ) : (
            <Button className="primary" disabled={preview.busy || busy} onClick={() => void preview.run()}>
              Show plan
            </Button>
          )}
          <Button onClick={onClose}>Cancel</Button>
        </div>
      </div>
    </>
  );
}
