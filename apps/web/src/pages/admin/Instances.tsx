// Settings › Instances (admin): the service's processes from their
// heartbeats, online or not, the versions they run and the pools (with their
// executors) served now.
import { useEffect, useState } from 'react';
import { client } from '../../api';
import { DataTable } from '../../components/DataTable';
import { Button, ErrorBox, Loading, Section, fmtDuration, fmtTime, useLoad } from '../../ui';

/** "12 s ago", "3m 5s ago" from `iso` to now. */
function ago(iso: string, now: number): string {
  const ms = Math.max(0, now - Date.parse(iso));
  return ms < 1000 ? 'just now' : `${fmtDuration(ms).replace(/\.\d+ s$/, ' s')} ago`;
}

export function Instances() {
  const list = useLoad(() => client.all('/api/v1/instances'), [], 10_000);
  const [showOffline, setShowOffline] = useState(false);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 5000);
    return () => clearInterval(t);
  }, []);
  const all = list.data ?? [];
  const online = all.filter((i) => i.online);
  const shown = [...(showOffline ? all : online)].sort((a, b) => Number(b.online) - Number(a.online) || a.kind.localeCompare(b.kind) || a.hostname.localeCompare(b.hostname));
  const versions = [...new Set(online.map((i) => i.version))];
  // What can run where: each pool with the executors its online instances serve.
  const pools = new Map<string, Set<string>>();
  for (const i of online) for (const p of i.pools) for (const e of i.executors) (pools.get(p) ?? pools.set(p, new Set()).get(p)!).add(e);
  return (
    <Section title="Instances" actions={<Button onClick={list.reload}>Refresh</Button>}>
      <ErrorBox error={list.error} />
      {!list.data ? (
        !list.error && <Loading />
      ) : (
        <>
          <p data-testid="instance-summary">
            <strong>{online.length}</strong> online, <strong>{all.length - online.length}</strong> offline. Online means a heartbeat in the last 60 seconds (sent every 10).
          </p>
          {versions.length > 1 && (
            <p className="notice" role="note">
              Online instances run different versions ({versions.join(', ')}): finish the rollout so every instance runs the same one.
            </p>
          )}
          <h3>Pools served now</h3>
          {pools.size ? (
            <ul className="inline-list" aria-label="Pools served now">
              {[...pools]
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([p, ex]) => (
                  <li key={p}>
                    <code>{p}</code>: {[...ex].sort().join(', ')}
                  </li>
                ))}
            </ul>
          ) : (
            <p className="muted">No online instance serves a pool: task runs wait (besides inline tasks).</p>
          )}
          <label className="check">
            <input type="checkbox" checked={showOffline} onChange={(e) => setShowOffline(e.target.checked)} /> Show offline instances
          </label>
          <DataTable
            label="Instances"
            rows={shown}
            rowKey={(i) => i.id}
            rowTitle={(i) => i.id}
            empty={`No ${showOffline ? '' : 'online '}instances.`}
            columns={[
              { header: 'Status', cell: (i) => (i.online ? <span className="badge state-success">Online</span> : <span className="badge">Offline</span>) },
              { header: 'Kind', cell: (i) => i.kind },
              { header: 'Host', cell: (i) => i.hostname },
              { header: 'Version', cell: (i) => <code>{i.version}</code> },
              {
                header: 'Pools',
                cell: (i) =>
                  i.pools.length ? (
                    i.pools.map((p) => (
                      <code key={p} className="chip">
                        {p}
                      </code>
                    ))
                  ) : (
                    <span className="muted">none</span>
                  ),
              },
              { header: 'Executors', cell: (i) => (i.executors.length ? i.executors.join(', ') : <span className="muted">none</span>) },
              { header: 'Started', cell: (i) => fmtTime(i.started_at) },
              {
                header: 'Last heartbeat',
                cell: (i) => (
                  <>
                    {ago(i.last_heartbeat_at, now)}
                    {i.stopped_at ? <span className="muted small"> · stopped {fmtTime(i.stopped_at)}</span> : null}
                  </>
                ),
              },
            ]}
          />
        </>
      )}
    </Section>
  );
}
