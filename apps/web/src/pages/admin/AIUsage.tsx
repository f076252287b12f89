// Settings › AI usage (admin; getAIUsage): the AI requests (assistant turns,
// triages) and provider tokens of one UTC day, the deployment's totals against
// SVC_AI_TOTAL_*_PER_DAY and each user's against SVC_AI_USER_*_PER_DAY. The
// day is in the URL (?day=YYYY-MM-DD), so a look at a past day can be shared;
// today's figures refresh while the screen is open.
import { api } from '../../api';
import { useQueryParam } from '../../router';
import type { AIUsage as Usage } from '../../types';
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
  const usage = useLoad(() => api<Usage>('GET', '/ai/usage', undefined, { day }), [day], day === today ? 30_000 : undefined);
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
          <table aria-label="Deployment totals">
            <thead>
              <tr>
                <th>Counted</th>
                <th className="num">Used</th>
                <th className="num">Daily limit</th>
                <th className="num">Share</th>
                <th>
                  <span className="sr-only">Gauge</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {(
                [
                  ['Requests', u.total.requests, u.limits.total_requests, 'SVC_AI_TOTAL_REQUESTS_PER_DAY'],
                  ['Tokens', u.total.tokens, u.limits.total_tokens, 'SVC_AI_TOTAL_TOKENS_PER_DAY'],
                ] as const
              ).map(([what, used, limit, setting]) => (
                <tr key={what}>
                  <th scope="row">{what}</th>
                  <td className="num">{num(used)}</td>
                  <td className="num" title={setting}>
                    {num(limit)}
                  </td>
                  <td className="num">{share(used, limit)}</td>
                  <td>
                    <meter min={0} max={limit} value={Math.min(used, limit)} high={limit * 0.8} optimum={0} aria-label={`${what} used of the daily limit`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Per user</h3>
          <p className="muted small">
            Each user may make {num(u.limits.user_requests)} requests and use {num(u.limits.user_tokens)} tokens a day (SVC_AI_USER_REQUESTS_PER_DAY, SVC_AI_USER_TOKENS_PER_DAY);
            automatic triage counts only toward the totals.
          </p>
          <table aria-label="AI usage per user">
            <thead>
              <tr>
                <th>User</th>
                <th className="num">Requests</th>
                <th className="num">Tokens</th>
              </tr>
            </thead>
            <tbody>
              {u.users.map((x) =>
                x.user_id === 'auto' ? (
                  <tr key={x.user_id}>
                    <th scope="row">
                      <span className="muted">Automatic triage</span>
                    </th>
                    <td className="num">{num(x.requests)}</td>
                    <td className="num">{num(x.tokens)}</td>
                  </tr>
                ) : (
                  <tr key={x.user_id}>
                    <th scope="row">{x.email ?? <code>{x.user_id}</code>}</th>
                    <td className="num">
                      <Against used={x.requests} limit={u.limits.user_requests} />
                    </td>
                    <td className="num">
                      <Against used={x.tokens} limit={u.limits.user_tokens} />
                    </td>
                  </tr>
                ),
              )}
              {!u.users.length && (
                <tr>
                  <td colSpan={3} className="muted">
                    No AI requests on {u.day}.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </>
      )}
    </Section>
  );
}
