// Settings › Audit log (admin): the recorded events, filtered by actor,
// action, resource, namespace and time (the filters live in the URL), paged
// with the cursor, each event's details shown on demand; Download takes every
// event the filters select as NDJSON (exportAuditEvents).
import { useState } from 'react';
import { API, client, withQuery } from '../../api';
import { useQueryParam } from '../../router';
import { Button, ErrorBox, Json, Loading, Section, fmtTime, useLoad } from '../../ui';

/** Actions the service records, offered as suggestions (any other value filters too; `user.*` is a prefix). */
const AUDIT_ACTIONS = [
  'auth.*',
  'auth.login',
  'auth.login_failed',
  'user.*',
  'user.create',
  'user.update',
  'user.role_change',
  'user.disable',
  'user.enable',
  'user.password_reset',
  'user.password_change',
  'token.*',
  'token.create',
  'token.revoke',
  'secret.*',
  'variable.*',
  'secret_provider.*',
  'execution.*',
  'execution.cancel',
  'execution.rerun',
  'execution.restart',
  'execution.trigger',
  'namespace.*',
  'namespace.create',
  'namespace.delete',
  'namespace.save',
  'namespace.revert',
  'file.*',
  'file.upload',
  'file.run',
  'flow.*',
  'flow.enable',
  'flow.disable',
  'flow.webhook_key.rotate',
  'git_source.*',
  'ai_provider.*',
  'ai.action.confirm',
];
const RESOURCE_TYPES = ['execution', 'namespace', 'file', 'flow', 'user', 'token', 'secret', 'variable', 'secret_provider', 'git_source', 'session', 'ai_provider', 'ai_action'];

/** A datetime-local value (local time, no zone) as an ISO instant; empty stays empty. */
function localToIso(v: string): string {
  if (!v) return '';
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

export function Audit() {
  // The filters live in the URL, so a filtered view can be linked and survives a reload.
  const [actor, setActor] = useQueryParam('actor');
  const [action, setAction] = useQueryParam('action');
  const [resource, setResource] = useQueryParam('resource');
  const [namespace, setNamespace] = useQueryParam('namespace');
  const [from, setFrom] = useQueryParam('from');
  const [to, setTo] = useQueryParam('to');
  const [perPage, setPerPage] = useQueryParam('limit');
  const limit = Math.min(200, Math.max(1, Number(perPage) || 50));
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const [open, setOpen] = useState<string>();
  const page = useLoad(
    () =>
      client.get('/api/v1/audit', {
        params: {
          query: {
            actor: actor.trim(),
            action: action.trim(),
            resource: resource.trim(),
            namespace: namespace.trim(),
            from: localToIso(from),
            to: localToIso(to),
            limit,
            cursor,
          },
        },
      }),
    [actor, action, resource, namespace, from, to, limit, cursor],
  );
  // The same filters, every page: the browser downloads what the server streams.
  const download = withQuery(`${API}/audit/export`, {
    actor: actor.trim(),
    action: action.trim(),
    resource: resource.trim(),
    namespace: namespace.trim(),
    from: localToIso(from),
    to: localToIso(to),
  });
  const reset = () => setCursors([]);
  const filter = (set: (v: string) => void) => (e: { target: { value: string } }) => {
    set(e.target.value);
    reset();
  };
  const filtered = !!(actor || action || resource || namespace || from || to);
  return (
    <Section
      title="Audit log"
      actions={
        <>
          <a className="button" href={download} download title="Every event these filters select, as NDJSON (one JSON object a line)">
            Download
          </a>
          <Button onClick={page.reload}>Refresh</Button>
        </>
      }
    >
      <form className="row wrap filters" role="search" aria-label="Filter audit events" onSubmit={(e) => e.preventDefault()}>
        <label>
          Actor <input type="search" value={actor} onChange={filter(setActor)} placeholder="email or user id" />
        </label>
        <label>
          Action <input type="search" list="audit-actions" value={action} onChange={filter(setAction)} placeholder="e.g. user.* or execution.cancel" />
          <datalist id="audit-actions">
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <label>
          Resource <input type="search" list="audit-resources" value={resource} onChange={filter(setResource)} placeholder="type or type:id" />
          <datalist id="audit-resources">
            {RESOURCE_TYPES.map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <label>
          Namespace <input type="search" value={namespace} onChange={filter(setNamespace)} placeholder="and the ones below it" />
        </label>
        <label>
          From <input type="datetime-local" step={1} value={from} onChange={filter(setFrom)} />
        </label>
        <label>
          To <input type="datetime-local" step={1} value={to} onChange={filter(setTo)} />
        </label>
        <label>
          Per page
          <select
            value={String(limit)}
            onChange={(e) => {
              setPerPage(e.target.value === '50' ? '' : e.target.value);
              reset();
            }}
          >
            {[...new Set([20, 50, 100, 200, limit])]
              .sort((a, b) => a - b)
              .map((n) => (
                <option key={n}>{n}</option>
              ))}
          </select>
        </label>
        {filtered && (
          <Button
            onClick={() => {
              for (const set of [setActor, setAction, setResource, setNamespace, setFrom, setTo]) set('');
              reset();
            }}
          >
            Clear filters
          </Button>
        )}
      </form>
      <ErrorBox error={page.error} />
      {!page.data ? (
        !page.error && <Loading what="audit events" />
      ) : (
        <>
          {page.data.items.length ? (
            <div className="scroll-x">
              <table aria-label="Audit events">
                <thead>
                  <tr>
                    <th>Time</th>
                    <th>Action</th>
                    <th>Actor</th>
                    <th>Resource</th>
                    <th>IP</th>
                    <th>Details</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.items.map((e) => (
                    <tr key={e.id}>
                      <td>{fmtTime(e.created_at)}</td>
                      <td>
                        <code>{e.action}</code>
                      </td>
                      <td>
                        <button
                          type="button"
                          className="linkish"
                          title={`Only events of ${e.actor}`}
                          onClick={() => {
                            setActor(e.actor);
                            reset();
                          }}
                        >
                          {e.actor}
                        </button>
                      </td>
                      <td>
                        {e.target ? (
                          <button
                            type="button"
                            className="linkish"
                            title={`Only events on ${e.target}`}
                            onClick={() => {
                              setResource(e.target!);
                              reset();
                            }}
                          >
                            {e.target}
                          </button>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                      <td>{e.ip || <span className="muted">—</span>}</td>
                      <td>
                        {e.payload && Object.keys(e.payload).length ? (
                          <>
                            <Button
                              aria-expanded={open === e.id}
                              aria-label={`Details of ${e.action} at ${fmtTime(e.created_at)}`}
                              onClick={() => setOpen(open === e.id ? undefined : e.id)}
                            >
                              {open === e.id ? 'Hide' : 'Show'}
                            </Button>
                            {open === e.id && <Json value={{ ...e.payload, ...(e.request_id ? { request_id: e.request_id } : {}) }} />}
                          </>
                        ) : (
                          <span className="muted small">{e.request_id ? `request ${e.request_id}` : '—'}</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p className="muted">No audit events{filtered ? ' match these filters' : ''}.</p>
          )}
          <div className="row">
            <span className="muted small" data-testid="audit-page">
              Page {cursors.length + 1} · {page.data.items.length} event{page.data.items.length === 1 ? '' : 's'}
            </span>
            <Button disabled={!cursors.length} onClick={() => setCursors((c) => c.slice(0, -1))}>
              ← Newer
            </Button>
            <Button disabled={!page.data.next_cursor} onClick={() => setCursors((c) => [...c, page.data!.next_cursor!])}>
              Older →
            </Button>
          </div>
        </>
      )}
    </Section>
  );
}
