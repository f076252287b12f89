// Alerts (docs/using/alerts.md): the alert rules (scope, events, channels), a form to
// create or edit one, and the deliveries of the rule opened (?rule=ID) with
// their attempts. Channels name secrets (the webhook's signing key, the Slack
// URL), never hold one. Reads are the viewer's; changes need the editor role
// on the rule's namespace (a role binding counts).
import { useState } from 'react';
import type { components } from '@svc/api-spec/openapi-types';
import { ALERT_EVENTS } from '@svc/vocabulary';
import { client } from '../api';
import { Link, useQueryParam } from '../router';
import { usePermission } from '../session';
import { DataTable } from '../components/DataTable';
import { Button, ErrorBox, Section, fmtTime, useAction, useLoad } from '../ui';

type AlertRule = components['schemas']['AlertRule'];
type Channel = AlertRule['channels'][number];
type AlertEvent = AlertRule['events'][number];

// Every event ALERT_EVENTS names, in its order; a new event without a label here breaks the build.
const EVENT_LABELS: Record<AlertEvent, string> = {
  failed: 'Failed',
  timed_out: 'Timed out',
  recovered: 'Recovered (first success after a failure)',
  late: 'Late',
  approval_requested: 'Approval requested (a task waits for a person)',
};
const EVENTS: { value: AlertEvent; label: string }[] = ALERT_EVENTS.map((value) => ({ value, label: EVENT_LABELS[value] }));

function channelText(c: Channel): string {
  switch (c.type) {
    case 'email':
      return `Email ${c.to} (from ${c.from}, organization ${c.organization})`;
    case 'webhook':
      return `Webhook ${c.url} (signed with secret ${c.signing_secret})`;
    case 'slack':
      return `Slack (URL in secret ${c.url_secret})`;
  }
}

export function Alerts() {
  const [open, setOpen] = useQueryParam('rule');
  const [editing, setEditing] = useState<AlertRule | 'new' | undefined>();
  const { needs, needsSomewhere } = usePermission();
  const list = useLoad(() => client.all('/api/v1/alerts'), []);
  const remove = useAction(async (r: AlertRule) => {
    if (!window.confirm(`Delete the alert rule "${r.name}" and its deliveries?`)) return;
    await client.delete('/api/v1/alerts/{ruleId}', { params: { path: { ruleId: r.id } } });
    if (open === r.id) setOpen('');
    list.reload();
  });
  const current = list.data?.find((r) => r.id === open);
  return (
    <>
      <Section
        title="Alert rules"
        actions={
          <Button onClick={() => setEditing('new')} disabledReason={needsSomewhere('editor')}>
            New rule
          </Button>
        }
      >
        <p className="muted small">
          A rule watches a namespace (and its children) or one flow, and sends failed, timed-out, recovered or late executions by email, signed webhook or Slack. Each execution and
          event is sent once per channel, retried until it is delivered.
        </p>
        <ErrorBox error={list.error ?? remove.error} />
        <DataTable
          label="Alert rules"
          rows={list.data}
          error={list.error}
          loading="the alert rules"
          rowKey={(r) => r.id}
          selected={(r) => r.id === open}
          empty="No alert rules yet."
          columns={[
            {
              header: 'Name',
              cell: (r) => (
                <button type="button" className="linkish" onClick={() => setOpen(r.id)}>
                  {r.name}
                </button>
              ),
            },
            { header: 'Scope', cell: (r) => (r.flow_id ? `${r.namespace}/${r.flow_id}` : `${r.namespace} and children`) },
            { header: 'Events', cell: (r) => r.events.join(', ') },
            { header: 'Channels', cell: (r) => r.channels.map((c, i) => <div key={i}>{channelText(c)}</div>) },
            { header: 'Enabled', cell: (r) => (r.enabled ? 'yes' : 'no') },
          ]}
          actions={(r) => (
            <>
              <Button onClick={() => setEditing(r)} disabledReason={needs('editor', r.namespace)} aria-label={`Edit ${r.name}`}>
                Edit
              </Button>
              <Button onClick={() => void remove.run(r)} disabledReason={needs('editor', r.namespace)} aria-label={`Delete ${r.name}`}>
                Delete
              </Button>
            </>
          )}
        />
      </Section>
      {editing && (
        <RuleForm
          key={editing === 'new' ? 'form-new' : `form-${editing.id}`}
          rule={editing === 'new' ? undefined : editing}
          onDone={(saved) => {
            setEditing(undefined);
            list.reload();
            if (saved) setOpen(saved.id);
          }}
        />
      )}
      {current && <Deliveries key={`deliveries-${current.id}`} rule={current} />}
    </>
  );
}

function RuleForm({ rule, onDone }: { rule?: AlertRule; onDone: (saved?: AlertRule) => void }) {
  const [name, setName] = useState(rule?.name ?? '');
  const [namespace, setNamespace] = useState(rule?.namespace ?? '');
  const [flowId, setFlowId] = useState(rule?.flow_id ?? '');
  const [events, setEvents] = useState<AlertEvent[]>(rule?.events ?? ['failed', 'timed_out']);
  const [lateAfter, setLateAfter] = useState(rule?.late_after_seconds ? String(rule.late_after_seconds / 60) : '');
  const [grace, setGrace] = useState(rule?.schedule_grace_seconds ? String(rule.schedule_grace_seconds / 60) : '');
  const [channels, setChannels] = useState<Channel[]>(rule?.channels ?? [{ type: 'email', organization: '', from: '', to: '' }]);
  const [rate, setRate] = useState(String(rule?.rate_limit_per_hour ?? 20));
  const [enabled, setEnabled] = useState(rule?.enabled ?? true);
  const minutes = (v: string) => (v.trim() === '' ? null : Math.round(Number(v) * 60));
  const save = useAction(async () => {
    const body = {
      name,
      namespace,
      flow_id: flowId.trim() === '' ? null : flowId.trim(),
      events,
      late_after_seconds: minutes(lateAfter),
      schedule_grace_seconds: minutes(grace),
      channels,
      rate_limit_per_hour: Number(rate),
      enabled,
    };
    const saved = rule ? await client.patch('/api/v1/alerts/{ruleId}', { params: { path: { ruleId: rule.id } }, body }) : await client.post('/api/v1/alerts', { body });
    onDone(saved);
  });
  const setChannel = (i: number, c: Channel) => setChannels(channels.map((x, j) => (j === i ? c : x)));
  const blank = (type: Channel['type']): Channel =>
    type === 'email' ? { type, organization: '', from: '', to: '' } : type === 'webhook' ? { type, url: '', signing_secret: '' } : { type, url_secret: '' };
  return (
    <Section title={rule ? `Edit rule ${rule.name}` : 'New alert rule'}>
      <form
        aria-label="Alert rule"
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <label>
          Name <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        </label>
        <div className="row wrap">
          <label>
            Namespace <input value={namespace} onChange={(e) => setNamespace(e.target.value)} required placeholder="team.etl" />
          </label>
          <label>
            Flow (empty: every flow of the namespace and its children) <input value={flowId} onChange={(e) => setFlowId(e.target.value)} placeholder="nightly" />
          </label>
        </div>
        <fieldset>
          <legend>Events</legend>
          <div className="row wrap">
            {EVENTS.map((ev) => (
              <label key={ev.value} className="check">
                <input
                  type="checkbox"
                  checked={events.includes(ev.value)}
                  onChange={(e) => setEvents(e.target.checked ? [...events, ev.value] : events.filter((x) => x !== ev.value))}
                />
                {ev.label}
              </label>
            ))}
          </div>
          {events.includes('late') && (
            <div className="row wrap">
              <label>
                Running longer than (minutes) <input type="number" min={1} value={lateAfter} onChange={(e) => setLateAfter(e.target.value)} />
              </label>
              <label>
                Schedule not fired after its due time by (minutes) <input type="number" min={1} value={grace} onChange={(e) => setGrace(e.target.value)} />
              </label>
            </div>
          )}
        </fieldset>
        <fieldset>
          <legend>Channels</legend>
          {channels.map((c, i) => (
            <div key={i} className="row wrap" role="group" aria-label={`Channel ${i + 1}`}>
              <label>
                Type
                <select value={c.type} onChange={(e) => setChannel(i, blank(e.target.value as Channel['type']))}>
                  <option value="email">Email</option>
                  <option value="webhook">Signed webhook</option>
                  <option value="slack">Slack</option>
                </select>
              </label>
              {c.type === 'email' && (
                <>
                  <label>
                    Organization <input value={c.organization} onChange={(e) => setChannel(i, { ...c, organization: e.target.value })} required />
                  </label>
                  <label>
                    From <input value={c.from} onChange={(e) => setChannel(i, { ...c, from: e.target.value })} required placeholder="alerts@acme.example" />
                  </label>
                  <label>
                    To <input value={c.to} onChange={(e) => setChannel(i, { ...c, to: e.target.value })} required placeholder="oncall@acme.example" />
                  </label>
                  <span className="muted small">The organization must allow the rule&apos;s namespace (an admin lists them in Settings › Organizations).</span>
                </>
              )}
              {c.type === 'webhook' && (
                <>
                  <label>
                    URL <input value={c.url} onChange={(e) => setChannel(i, { ...c, url: e.target.value })} required placeholder="https://hooks.acme.example/svc" />
                  </label>
                  <label>
                    Signing secret (name){' '}
                    <input value={c.signing_secret} onChange={(e) => setChannel(i, { ...c, signing_secret: e.target.value })} required placeholder="ALERT_SIGNING_KEY" />
                  </label>
                </>
              )}
              {c.type === 'slack' && (
                <label>
                  Secret holding the webhook URL (name){' '}
                  <input value={c.url_secret} onChange={(e) => setChannel(i, { ...c, url_secret: e.target.value })} required placeholder="SLACK_URL" />
                </label>
              )}
              {channels.length > 1 && <Button onClick={() => setChannels(channels.filter((_, j) => j !== i))}>Remove channel</Button>}
            </div>
          ))}
          {channels.length < 10 && <Button onClick={() => setChannels([...channels, blank('webhook')])}>Add channel</Button>}
        </fieldset>
        <div className="row wrap">
          <label>
            Alerts per hour at most <input type="number" min={1} max={10000} value={rate} onChange={(e) => setRate(e.target.value)} />
          </label>
          <label className="check">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled
          </label>
        </div>
        <ErrorBox error={save.error} />
        <div className="row">
          <Button type="submit" disabled={save.busy}>
            {rule ? 'Save rule' : 'Create rule'}
          </Button>
          <Button onClick={() => onDone()}>Cancel</Button>
        </div>
      </form>
    </Section>
  );
}

function Deliveries({ rule }: { rule: AlertRule }) {
  const rows = useLoad(
    () => client.get('/api/v1/alerts/{ruleId}/deliveries', { params: { path: { ruleId: rule.id }, query: { limit: 100 } } }).then((p) => p.items),
    [rule.id],
    5_000,
  );
  return (
    <Section title={`Deliveries of ${rule.name}`} actions={<Button onClick={rows.reload}>Refresh</Button>}>
      <ErrorBox error={rows.error} />
      <DataTable
        label="Deliveries"
        rows={rows.data}
        error={rows.error}
        loading="the deliveries"
        rowKey={(d) => d.id}
        empty="No deliveries yet."
        columns={[
          { header: 'Created', cell: (d) => fmtTime(d.created_at) },
          { header: 'Event', cell: (d) => d.event },
          { header: 'Execution', cell: (d) => (d.execution_id ? <Link to={`/executions/${encodeURIComponent(d.execution_id)}`}>{d.execution_id}</Link> : d.subject) },
          {
            header: 'Channel',
            cell: (d) => (
              <>
                {d.channel_type} {d.target}
              </>
            ),
          },
          {
            header: 'Status',
            cell: (d) => (
              <>
                {d.status}
                {d.error && <div className="muted small">{d.error}</div>}
                {d.next_attempt_at && <div className="muted small">next try {fmtTime(d.next_attempt_at)}</div>}
              </>
            ),
          },
          {
            header: 'Attempts',
            cell: (d) => (
              <ul aria-label={`Attempts of delivery ${d.id}`} className="plain">
                {d.attempt_log.map((a) => (
                  <li key={a.number}>
                    #{a.number} {fmtTime(a.at)} {a.ok ? 'ok' : 'failed'}
                    {a.http_status !== null ? ` · HTTP ${a.http_status}` : ''} · {a.duration_ms} ms{a.detail ? ` · ${a.detail}` : ''}
                  </li>
                ))}
              </ul>
            ),
          },
        ]}
      />
    </Section>
  );
}
