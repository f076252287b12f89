// listUpcomingSchedules: the next fire time of each active schedule (the rows
// the scheduler keeps in `schedules` for enabled flows), soonest first; the
// statement is @svc/scheduling's, shared with the scheduler's notion of active.
// `namespace` selects that namespace and its children, as listFlows does.
import { type Db } from '@svc/db';
import { listUpcomingSchedules } from '@svc/scheduling';
import type { OperationHandlers } from '@svc/http';
import type { AuthPrincipal } from '../identity/principal.js';
import { readScope } from '../identity/namespace-roles.js';
import type { Answer, Schemas } from '@svc/api-spec';

export function scheduleHandlers(deps: { db: Db }) {
  return {
    async listUpcomingSchedules({ query, cursor: after, principal, encodeCursor }) {
      const q = query;
      const within = await readScope(deps.db.pool, principal);
      // One row more than the page tells whether there is a next page.
      const rows = await listUpcomingSchedules(deps.db.pool, { namespace: q.namespace, after, limit: q.limit + 1, ...(within ? { within } : {}) });
      const page = rows.slice(0, q.limit);
      const last = page[page.length - 1];
      return {
        items: page.map((s) => ({
          namespace: s.namespace,
          flow_id: s.flow_id,
          trigger_id: s.trigger_id,
          cron: s.cron,
          timezone: s.timezone,
          catch_up: s.catch_up as Schemas['UpcomingSchedule']['catch_up'],
          next_fire_at: s.next_fire_at.toISOString(),
          last_fired_at: s.last_fired_at?.toISOString() ?? null,
        })),
        ...(rows.length > q.limit && last
          ? { next_cursor: encodeCursor({ next_fire_at: last.next_fire_at.toISOString(), namespace: last.namespace, flow_id: last.flow_id, trigger_id: last.trigger_id }) }
          : {}),
      } satisfies Answer<'listUpcomingSchedules'>;
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
