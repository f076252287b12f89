// The namespace's allowed callers (docs/operating/roles.md, "What a flow reaches outside its namespace"): which
// other namespaces' flows may start its flows as subflows and listen to its
// executions with flow triggers. Anyone who reads the namespace sees the
// list; only admins change it.
import { useState } from 'react';
import { client } from '../api';
import { usePermission } from '../session';
import { ActionForm } from '../components/DataTable';
import { ErrorBox, Loading, Section, useAction, useLoad } from '../ui';

/** `a, b c` → ['a', 'b', 'c']: commas or spaces between names. */
export function namesOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function AllowedCallers({ ns }: { ns: string }) {
  const { needs } = usePermission();
  const current = useLoad(() => client.get('/api/v1/namespaces/{namespace}', { params: { path: { namespace: ns } } }), [ns]);
  const [text, setText] = useState<string>();
  const save = useAction(async () => {
    await client.put('/api/v1/namespaces/{namespace}/allowed-callers', { params: { path: { namespace: ns } }, body: { allowed_callers: namesOf(text ?? '') } });
    setText(undefined);
    current.reload();
  });
  const why = needs('admin');
  const list = current.data?.allowed_callers ?? [];
  return (
    <Section title="Allowed callers">
      <p className="muted small">
        Flows of <code>{ns}</code> and of its parents may start its flows as subflows and listen to its executions with flow triggers. Flows of other namespaces may only when an
        admin lists their namespace here (each covers its children); anything else is refused when the flow is saved and when it runs.
      </p>
      {current.data ? (
        list.length ? (
          <ul aria-label={`Allowed callers of ${ns}`}>
            {list.map((n) => (
              <li key={n}>
                <code>{n}</code> <span className="muted small">and its children</span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="small" aria-label={`Allowed callers of ${ns}`}>
            No other namespace.
          </p>
        )
      ) : (
        <Loading />
      )}
      {!why ? (
        <ActionForm label={`Set the allowed callers of ${ns}`} action={save} submit="Set callers">
          <label>
            Allowed callers
            <input value={text ?? list.join(', ')} onChange={(e) => setText(e.target.value)} placeholder="team-a, team-b.etl" aria-describedby="callers-help" />
          </label>
          <span id="callers-help" className="muted small">
            Namespaces separated by commas; empty allows none.
          </span>
        </ActionForm>
      ) : (
        <p className="muted small">{why} to change them.</p>
      )}
      <ErrorBox error={current.error ?? save.error} />
    </Section>
  );
}
