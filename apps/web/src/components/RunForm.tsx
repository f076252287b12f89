// The run form of a flow, generated from its inputs: a control per type,
// select values, defaults filled in, required ones marked; values are checked
// here before anything is sent, and the server's own check still applies.
// A `file` input is a drop zone (FileDrop): the file is uploaded when dropped
// or chosen, and its upload id is the value sent.
import { useState } from 'react';
import { client } from '../api';
import { navigate } from '../router';
import type { FlowInput, RequestBody } from '../types';
import { Button, ErrorBox, useAction } from '../ui';
import { FileDrop } from './FileDrop';

type Values = Record<string, string | boolean>;

/** A `file` input (an extension type): its value is an upload id (createUpload). */
export const isFileInput = (i: Pick<FlowInput, 'type'>): boolean => i.type === 'file';

function initial(inputs: FlowInput[]): Values {
  const v: Values = {};
  for (const i of inputs) {
    if (i.type === 'boolean') v[i.id] = i.default === true;
    else if (i.default === undefined) v[i.id] = '';
    else v[i.id] = i.type !== 'json' && typeof i.default === 'string' ? i.default : JSON.stringify(i.default, null, 2);
  }
  return v;
}

/** The typed values to send, or the problems per input id. */
export function checkInputs(inputs: FlowInput[], values: Values): { ok: Record<string, unknown>; errors: Record<string, string> } {
  const ok: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const i of inputs) {
    const raw = values[i.id];
    if (i.type === 'boolean') {
      ok[i.id] = raw === true;
      continue;
    }
    const s = String(raw ?? '').trim();
    if (!s) {
      if (i.required && i.default === undefined) errors[i.id] = isFileInput(i) ? 'Required: drop or choose a file' : 'Required';
      continue;
    }
    switch (i.type) {
      case 'int':
        if (!/^-?\d+$/.test(s)) errors[i.id] = 'Must be a whole number';
        else ok[i.id] = Number(s);
        break;
      case 'number':
        if (!Number.isFinite(Number(s))) errors[i.id] = 'Must be a number';
        else ok[i.id] = Number(s);
        break;
      case 'json':
        try {
          ok[i.id] = JSON.parse(s);
        } catch (e) {
          errors[i.id] = `Not valid JSON: ${(e as Error).message}`;
        }
        break;
      case 'select': {
        const match = (i.values ?? []).find((x) => String(x) === s);
        if (match === undefined) errors[i.id] = `Must be one of ${(i.values ?? []).join(', ')}`;
        else ok[i.id] = match;
        break;
      }
      case 'string':
      case 'file': // the upload's id
        ok[i.id] = s;
        break;
    }
  }
  return { ok, errors };
}

export function RunForm({ ns, flowId, inputs, disabledReason }: { ns: string; flowId: string; inputs: FlowInput[]; disabledReason: string | null }) {
  const [values, setValues] = useState<Values>(() => initial(inputs));
  const [labels, setLabels] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  // The file inputs whose upload is under way: the form is not sent meanwhile.
  const [uploading, setUploading] = useState<Record<string, boolean>>({});
  const busyUploading = Object.values(uploading).some(Boolean);
  const run = useAction(async (body: RequestBody<'triggerFlow'>) => {
    const ex = await client.post('/api/v1/flows/{namespace}/{flowId}/executions', { params: { path: { namespace: ns, flowId } }, body });
    navigate(`/executions/${ex.id}`);
  });
  const set = (id: string, v: string | boolean) => setValues((x) => ({ ...x, [id]: v }));
  return (
    <form
      className="stack run-form"
      aria-label="Run the flow"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (busyUploading) return;
        const { ok, errors } = checkInputs(inputs, values);
        const lab: Record<string, string> = {};
        for (const part of labels
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)) {
          const at = part.indexOf(':');
          if (at < 1) errors['__labels'] = 'Labels are key:value pairs separated by commas';
          else lab[part.slice(0, at).trim()] = part.slice(at + 1).trim();
        }
        setErrors(errors);
        if (Object.keys(errors).length) return;
        void run.run({ inputs: ok, labels: lab });
      }}
    >
      {inputs.map((i) => {
        const id = `input-${i.id}`;
        const err = errors[i.id];
        const describedBy = [i.description ? `${id}-help` : '', err ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
        const common = { id, 'aria-invalid': !!err, 'aria-describedby': describedBy, 'aria-required': !!i.required };
        return (
          <div key={i.id} className="field">
            <label htmlFor={id}>
              {i.id}{' '}
              <span className="muted small">
                ({i.type}
                {i.required ? ', required' : ''})
              </span>
            </label>
            {isFileInput(i) ? (
              <FileDrop
                ns={ns}
                id={id}
                inputId={i.id}
                describedBy={describedBy}
                invalid={!!err}
                required={!!i.required}
                onChange={(v) => {
                  set(i.id, v);
                  // A file uploaded answers an earlier "Required".
                  if (v)
                    setErrors((x) => {
                      const rest = { ...x };
                      delete rest[i.id];
                      return rest;
                    });
                }}
                onBusy={(b) => setUploading((x) => ({ ...x, [i.id]: b }))}
              />
            ) : i.type === 'boolean' ? (
              <input type="checkbox" {...common} checked={values[i.id] === true} onChange={(e) => set(i.id, e.target.checked)} />
            ) : i.type === 'select' ? (
              <select {...common} value={String(values[i.id] ?? '')} onChange={(e) => set(i.id, e.target.value)}>
                {!i.required || i.default === undefined ? <option value="">—</option> : null}
                {(i.values ?? []).map((v) => (
                  <option key={String(v)} value={String(v)}>
                    {String(v)}
                  </option>
                ))}
              </select>
            ) : i.type === 'json' ? (
              <textarea {...common} rows={4} value={String(values[i.id] ?? '')} onChange={(e) => set(i.id, e.target.value)} />
            ) : (
              <input
                {...common}
                type={i.type === 'string' ? 'text' : 'number'}
                step={i.type === 'int' ? 1 : 'any'}
                value={String(values[i.id] ?? '')}
                onChange={(e) => set(i.id, e.target.value)}
              />
            )}
            {i.description && (
              <span id={`${id}-help`} className="muted small">
                {i.description}
              </span>
            )}
            {err && (
              <span id={`${id}-err`} className="field-error" role="alert">
                {err}
              </span>
            )}
          </div>
        );
      })}
      <div className="field">
        <label htmlFor="run-labels">Labels</label>
        <input id="run-labels" value={labels} onChange={(e) => setLabels(e.target.value)} placeholder="key:value, key:value" />
        {errors['__labels'] && (
          <span className="field-error" role="alert">
            {errors['__labels']}
          </span>
        )}
      </div>
      <Button type="submit" className="primary" disabledReason={disabledReason} disabled={run.busy || busyUploading}>
        {busyUploading ? 'Uploading…' : 'Run'}
      </Button>
      <ErrorBox error={run.error} />
    </form>
  );
}
