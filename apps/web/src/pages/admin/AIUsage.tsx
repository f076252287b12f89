// Settings › AI usage (admin; getAIUsage): the AI requests (assistant turns,
// triages) and provider tokens of one UTC day, the deployment's totals against
// SVC_AI_TOTAL_*_PER_DAY and each user's against SVC_AI_USER_*_PER_DAY. The
// day is in the URL (?day=YYYY-MM-DD), so a look at a past day can be shared;
// today's figures refresh while the screen is open.
import { client } from '../../api';
import { useQueryParam } from '../../router';
import { DataTable } from '../../components/DataTable';
import { Button, ErrorBox, Loading, Section, fmtTime, useLoad } from '../../ui';

const utcToday = () => new Date().toISOString().slice(0, 10);
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const num = (n: number) => n.toLocaleString('en-US');

/** The share of a limit used, floored (100% only once reached), and "<1%" for a small non-zero use. */
export function share(used: number, limit: number): string {
  if (limit <= 0) return '—';
  const pct = (used / limit) * 100;
  return used > 0 && pct < 1 ? '<1%' : `${Math.min(100, Math.floor(pct))}%`;
}

/** `used / limit`, marked once the limit is reached (further requests get 429 until the day resets). */
function Against({ used, limit }: { used: number; limit: number }) {
  const reached = used >= limit;
  return (
    <>
      {num(used)} <span className="muted">/ {num(limit)}</span>
      {reached && (
        <>
          {' '}
          <span className="badge state-failed">limit reached</span>
        </>
      )}
    </>
  );
}

export function AIUsage() {
  const [dayParam, setDay] = useQueryParam('day');
  const today = utcToday();
  const day = DAY.test(dayParam) ? dayParam : today;
  const usage = useLoad(() => client.get('/api/v1/ai/usage', { params: { query: { day } } }), [day], day === today ? 30_000 : undefined);
  const u = usage.data?.day === day ? usage.data : undefined;
  return (
    <Section
      title="AI usage"
      actions={
        <div className="row">
          <label>
            Day (UTC)
            <input type="date" value={day} max={today} required onChange={(e) => DAY.test(e.target.value) && setDay(e.target.value === today ? '' : e.target.value)} />
          </label>
          <Button disabled={day === today} onClick={() => setDay('')}>
            Today
          </Button>
          <Button disabled={usage.loading} onClick={usage.reload}>
            Refresh
          </Button>
        </div>
      }
    >
      <ErrorBox error={usage.error} />
      {!u ? (
        !usage.error && <Loading what="the AI usage" />
      ) : (
        <>
          <p>
            AI requests (assistant turns and triages) and provider tokens of <strong>{u.day}</strong> (UTC). The counts reset at {fmtTime(u.resets_at)}; past a limit, requests are
            refused until then.
          </p>
          <h3>Deployment totals</h3>
          <DataTable
            label="Deployment totals"
            rows={
              [
                ['Requests', u.total.requests, u.limits.total_requests, 'SVC_AI_TOTAL_REQUESTS_PER_DAY'],
                ['Tokens', u.total.tokens, u.limits.total_tokens, 'SVC_AI_TOTAL_TOKENS_PER_DAY'],
              ] as const
            }
            rowKey={([what]) => what}
            columns={[
              { header: 'Counted', rowHeader: true, cell: ([what]) => what },
              { header: 'Used', className: 'num', cell: ([, used]) => num(used) },
              { header: 'Daily limit', className: 'num', cellTitle: ([, , , setting]) => setting, cell: ([, , limit]) => num(limit) },
              { header: 'Share', className: 'num', cell: ([, used, limit]) => share(used, limit) },
              {
                header: <span className="sr-only">Gauge</span>,
                cell: ([what, used, limit]) => (
                  <meter min={0} max={limit} value={Math.min(used, limit)} high={limit * 0.8} optimum={0} aria-label={`${what} used of the daily limit`} />
                ),
              },
            ]}
          />
          <h3>Per user</h3>
          <p className="muted small">
            Each user may make {num(u.limits.user_requests)} requests and use {num(u.limits.user_tokens)} tokens a day (SVC_AI_USER_REQUESTS_PER_DAY, SVC_AI_USER_TOKENS_PER_DAY);
            automatic triage counts only toward the totals.
          </p>
          <DataTable
            label="AI usage per user"
            rows={u.users}
            rowKey={(x) => x.user_id}
            empty={`No AI requests on ${u.day}.`}
            columns={[
              { header: 'User', rowHeader: true, cell: (x) => (x.user_id === 'auto' ? <span className="muted">Automatic triage</span> : (x.email ?? <code>{x.user_id}</code>)) },
              {
                header: 'Requests',
                className: 'num',
                cell: (x) => (x.user_id === 'auto' ? num(x.requests) : <Against used={x.requests} limit={u.limits.user_requests} />),
              },
              { header: 'Tokens', className: 'num', cell: (x) => (x.user_id === 'auto' ? num(x.tokens) : <Against used={x.tokens} limit={u.limits.user_tokens} />) },
            ]}
          />
        </>
      )}
    </Section>
  );
}
