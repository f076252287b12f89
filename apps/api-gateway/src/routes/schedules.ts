// listUpcomingSchedules: the next fire time of each active schedule (the rows
// the scheduler keeps in `schedules` for enabled flows), soonest first.
// `namespace` selects that namespace and its children, as listFlows does.
import type { Db } from '@svc/db';
import { encodeCursor, type HandlerContext, type OperationHandlers } from '@svc/http';
import type { AuthPrincipal } from '../identity/principal.js';

type Ctx = HandlerContext<AuthPrincipal>;

interface UpcomingRow {
  namespace: string;
  flow_id: string;
  trigger_id: string;
  cron: string;
  timezone: string;
  catch_up: string;
  next_fire_at: Date;
  last_fired_at: Date | null;
}

export function scheduleHandlers(deps: { db: Db }): OperationHandlers<AuthPrincipal> {
  return {
    async listUpcomingSchedules({ query, cursor }: Ctx) {
      const q = query as { limit: number; namespace?: string };
      const after = cursor as { next_fire_at: string; namespace: string; flow_id: string; trigger_id: string } | undefined;
      const r = await deps.db.pool.query<UpcomingRow>(
        `SELECT s.namespace, s.flow_id, s.trigger_id, s.cron, s.timezone, s.catch_up, s.next_fire_at, s.last_fired_at
         FROM schedules s JOIN flows f ON f.namespace = s.namespace AND f.flow_id = s.flow_id AND f.enabled AND f.deleted_at IS NULL
         WHERE s.next_fire_at IS NOT NULL
           AND ($1::text IS NULL OR s.namespace = $1 OR s.namespace LIKE $1 || '.%')
           AND ($2::timestamptz IS NULL OR (s.next_fire_at, s.namespace, s.flow_id, s.trigger_id) > ($2, $3, $4, $5))
         ORDER BY s.next_fire_at, s.namespace, s.flow_id, s.trigger_id
         LIMIT $6`,
        [q.namespace ?? null, after?.next_fire_at ?? null, after?.namespace ?? null, after?.flow_id ?? null, after?.trigger_id ?? null, q.limit + 1],
      );
      const page = r.rows.slice(0, q.limit);
      const last = page[page.length - 1];
      return {
        items: page.map((s) => ({
          namespace: s.namespace,
          flow_id: s.flow_id,
          trigger_id: s.trigger_id,
          cron: s.cron,
          timezone: s.timezone,
          catch_up: s.catch_up,
          next_fire_at: s.next_fire_at.toISOString(),
          last_fired_at: s.last_fired_at?.toISOString() ?? null,
        })),
        ...(r.rows.length > q.limit && last
          ? { next_cursor: encodeCursor({ next_fire_at: last.next_fire_at.toISOString(), namespace: last.namespace, flow_id: last.flow_id, trigger_id: last.trigger_id }) }
          : {}),
      };
    },
  };
}
