// The flow page's Backfill section (docs/using/backfills.md): pick a schedule trigger and a
// past range, preview the fire times (createBackfill with dry_run: the
// server's computation, the scheduler's zone and DST rules) in UTC and in
// the schedule's zone, start it, then follow its progress with pause,
// resume and cancel. The flow's backfills are listed newest first and
// refreshed every 2 s while one is running.
import { useEffect, useState } from 'react';
import { client } from '../api';
import { Link } from '../router';
import { usePermission } from '../session';
import type { Answer, RequestBody, Trigger } from '../types';
import { Button, ErrorBox, fmtTime, useAction, useLoad } from '../ui';

type Preview = Answer<'createBackfill', 200>;

/** `2026-03-29 03:00 +02:00`: an instant on the schedule's wall clock. */
export function zoned(iso: string, timeZone: string): string {
  const d = new Date(iso);
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(d)
      .map((x) => [x.type, x.value]),
  );
  const off = Math.round((Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second) - Math.floor(d.getTime() / 1000) * 1000) / 60_000);
  const abs = Math.abs(off);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${off < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** A `datetime-local` value read as UTC (the range is given in UTC, as the API takes it). */
const utc = (local: string) => (local ? new Date(`${local}:00Z`).toISOString() : '');

export function BackfillSection({ ns, flowId, triggers }: { ns: string; flowId: string; triggers: Trigger[] }) {
  const at = { params: { path: { namespace: ns, flowId } } };
  const { needs } = usePermission();
  const schedules = triggers.filter((t) => t.type === 'schedule');
  const [trigger, setTrigger] = useState(schedules[0]?.id ?? '');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [maxInFlight, setMaxInFlight] = useState('10');
  const [preview, setPreview] = useState<Preview>();
  const list = useLoad(() => client.all('/api/v1/flows/{namespace}/{flowId}/backfills', at, 20), [ns, flowId]);
  const running = (list.data ?? []).some((b) => b.state === 'running' || b.progress.running > 0);
  // While one runs, follow its progress.
  const { reload } = list;
  useEffect(() => {
    if (!running) return;
    const t = setInterval(reload, 2000);
    return () => clearInterval(t);
  }, [running, reload]);

  const body = (dryRun: boolean): RequestBody<'createBackfill'> => ({
    trigger_id: trigger,
    from: utc(from),
    to: utc(to),
    max_in_flight: Number(maxInFlight) || 10,
    dry_run: dryRun,
  });
  const doPreview = useAction(async () => {
    // A dry run answers the preview (200); without dry_run the backfill is created (201).
    const r = await client.post('/api/v1/flows/{namespace}/{flowId}/backfills', { ...at, body: body(true) });
    if ('fire_times' in r) setPreview(r);
  });
  const start = useAction(async () => {
    await client.post('/api/v1/flows/{namespace}/{flowId}/backfills', { ...at, body: body(false) });
    setPreview(undefined);
    list.reload();
  });
  const act = useAction(async (id: string, what: 'pause' | 'resume' | 'cancel') => {
    const params = { params: { path: { backfillId: id } } };
    if (what === 'pause') await client.post('/api/v1/backfills/{backfillId}/pause', params);
    else if (what === 'resume') await client.post('/api/v1/backfills/{backfillId}/resume', params);
    else await client.post('/api/v1/backfills/{backfillId}/cancel', params);
    list.reload();
  });

  if (!schedules.length) return <p className="muted">No schedule trigger: a backfill runs a schedule over past dates.</p>;
  const why = needs('operator', ns);
  return (
    <div className="backfill">
      <form
        aria-label="Backfill a schedule"
        className="row wrap"
        onSubmit={(e) => {
          e.preventDefault();
          void doPreview.run();
        }}
      >
        <div className="field">
          <label htmlFor="bf-trigger">Schedule</label>
          <select id="bf-trigger" value={trigger} onChange={(e) => (setTrigger(e.target.value), setPreview(undefined))}>
            {schedules.map((t) => (
              <option key={t.id} value={t.id}>
                {t.id}
                {typeof t.cron === 'string' ? ` (${t.cron}, ${typeof t.timezone === 'string' ? t.timezone : 'UTC'})` : ''}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="bf-from">From (UTC)</label>
          <input id="bf-from" type="datetime-local" required value={from} onChange={(e) => (setFrom(e.target.value), setPreview(undefined))} />
        </div>
        <div className="field">
          <label htmlFor="bf-to">To (UTC)</label>
          <input id="bf-to" type="datetime-local" required value={to} onChange={(e) => (setTo(e.target.value), setPreview(undefined))} />
        </div>
        <div className="field">
          <label htmlFor="bf-max">In flight at most</label>
          <input id="bf-max" type="number" min={1} max={1000} value={maxInFlight} onChange={(e) => setMaxInFlight(e.target.value)} />
        </div>
        <Button type="submit" disabledReason={why} disabled={doPreview.busy || !from || !to}>
          Preview
        </Button>
      </form>
      <ErrorBox error={doPreview.error ?? start.error} />
      {preview && (
        <div aria-label="Backfill preview" role="region">
          <p>
            <strong data-testid="backfill-total">{preview.total}</strong> fire time(s) of <code>{preview.trigger_id}</code> ({preview.cron}, {preview.timezone})
            {preview.total > preview.fire_times.length && `, the first ${preview.fire_times.length} shown`}
          </p>
          <ol className="backfill-times small">
            {preview.fire_times.map((t) => (
              <li key={t}>
                <time dateTime={t}>{t.replace('.000Z', 'Z')}</time> · {zoned(t, preview.timezone)}
              </li>
            ))}
          </ol>
          <Button disabledReason={why} disabled={start.busy} onClick={() => void start.run()}>
            Start backfill ({preview.total})
          </Button>
        </div>
      )}
      <ErrorBox error={list.error ?? act.error} />
      {!!list.data?.length && (
        <table className="table" aria-label="Backfills">
          <thead>
            <tr>
              <th>Started</th>
              <th>Schedule</th>
              <th>Range (UTC)</th>
              <th>State</th>
              <th>Progress</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.data.map((b) => (
              <tr key={b.id} aria-label={`Backfill ${b.id}`}>
                <td>{fmtTime(b.created_at)}</td>
                <td>{b.trigger_id}</td>
                <td className="small">
                  {b.from.slice(0, 16).replace('T', ' ')} – {b.to.slice(0, 16).replace('T', ' ')}
                </td>
                <td>
                  <span className="badge" data-testid="backfill-state">
                    {b.state}
                  </span>
                </td>
                <td>
                  <progress max={b.progress.total} value={b.progress.done + b.progress.failed + b.progress.cancelled} aria-label="Backfill progress" />{' '}
                  <span className="small" data-testid="backfill-progress">
                    {b.progress.done} done, {b.progress.running} running, {b.progress.failed} failed, {b.progress.left} left
                  </span>{' '}
                  <Link className="small" to={`/executions?label=${encodeURIComponent(b.label)}`}>
                    executions
                  </Link>
                </td>
                <td className="row">
                  {b.state === 'running' && (
                    <Button disabledReason={why} disabled={act.busy} onClick={() => void act.run(b.id, 'pause')}>
                      Pause
                    </Button>
                  )}
                  {b.state === 'paused' && (
                    <Button disabledReason={why} disabled={act.busy} onClick={() => void act.run(b.id, 'resume')}>
                      Resume
                    </Button>
                  )}
                  {(b.state === 'running' || b.state === 'paused') && (
                    <Button
                      disabledReason={why}
                      disabled={act.busy}
                      onClick={() => confirm('Cancel the backfill? Its fire times left are dropped and its running executions cancelled.') && void act.run(b.id, 'cancel')}
                    >
                      Cancel
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
