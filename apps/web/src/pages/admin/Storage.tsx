// Settings › Storage (admin): what the object store holds by kind, from a
// scan with a time budget, and what the last daily cleanup removed.
import { client } from '../../api';
import type { StorageStatus } from '../../types';
import { DataTable } from '../../components/DataTable';
import { Button, ErrorBox, Loading, Section, fmtDuration, fmtTime, useLoad } from '../../ui';

type Count = StorageStatus['total'];
/** The object kinds of a scan and of a cleanup, in the order shown. */
const KINDS = ['files', 'bundles', 'artifacts', 'logs', 'other'] as const;
const byKind = (objects: StorageStatus['objects']): [string, Count][] => KINDS.map((k) => [k, objects[k]]);

/** A byte count in binary units: "512 B", "1.5 KiB", "20 MiB". */
export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

const KIND_HELP: Record<string, string> = {
  files: 'namespace files',
  bundles: 'bundles of namespace files sent to runners',
  artifacts: 'files tasks stored',
  logs: 'archived log lines',
  other: 'anything else under the store',
};

export function Storage() {
  const s = useLoad(() => client.get('/api/v1/storage'), []);
  const d = s.data;
  const last = d?.last_cleanup;
  const removed = last ? byKind(last.objects).reduce((t, [, k]) => ({ objects: t.objects + k.objects, bytes: t.bytes + k.bytes }), { objects: 0, bytes: 0 }) : null;
  return (
    <Section
      title="Storage"
      actions={
        <Button disabled={s.loading} onClick={s.reload}>
          Scan again
        </Button>
      }
    >
      <ErrorBox error={s.error} />
      {!d ? (
        !s.error && <Loading />
      ) : (
        <>
          <p>
            Store <code>{d.store}</code> · scanned {fmtTime(d.scanned_at)}
            {!d.complete && <strong> · partial: the scan stopped at its time budget, so the counts are lower bounds</strong>}
          </p>
          <DataTable
            label="Stored objects by kind"
            rows={byKind(d.objects)}
            rowKey={([k]) => k}
            columns={[
              {
                header: 'Kind',
                rowHeader: true,
                cell: ([k]) => (
                  <>
                    {k} <span className="muted small">{KIND_HELP[k] ?? ''}</span>
                  </>
                ),
              },
              { header: 'Objects', className: 'num', cell: ([, v]) => v.objects.toLocaleString('en-US') },
              { header: 'Size', className: 'num', cell: ([, v]) => fmtBytes(v.bytes) },
            ]}
            after={
              <tr>
                <th scope="row">total</th>
                <td className="num">
                  <strong>{d.total.objects.toLocaleString('en-US')}</strong>
                </td>
                <td className="num">
                  <strong>{fmtBytes(d.total.bytes)}</strong>
                </td>
              </tr>
            }
          />
          <h3>Cleanup</h3>
          {last ? (
            <div data-testid="last-cleanup">
              <p>
                Last run started {fmtTime(last.started_at)}:{' '}
                <span className={`badge ${last.outcome === 'ok' ? 'state-success' : last.outcome === 'running' ? 'state-running' : 'state-failed'}`}>{last.outcome}</span>
                {last.duration_ms !== null ? ` in ${fmtDuration(last.duration_ms)}` : ''}
                {removed ? ` · removed ${removed.objects.toLocaleString('en-US')} objects (${fmtBytes(removed.bytes)})` : ''}
                {` · ${last.rows.snapshots} snapshots, ${last.rows.file_objects} file rows`}
              </p>
              {last.error && <p className="error">{last.error}</p>}
            </div>
          ) : (
            <p className="muted">No cleanup has run yet.</p>
          )}
          <p className="muted small">Cleanup runs at most once a day{d.next_cleanup_after ? `; the next one not before ${fmtTime(d.next_cleanup_after)}` : ''}.</p>
        </>
      )}
    </Section>
  );
}
