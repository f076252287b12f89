// Backfills (docs/using/backfills.md; beyond the spec's operation index, see
// EXTENSION_OPERATION_IDS): a flow's schedule trigger run over a past range.
// createBackfill computes the fire times with @svc/timing's FireTimes (the
// scheduler's own computation: its zone and daylight-saving rules) and writes
// them as rows; the scheduler's BackfillAdvancer creates the executions. A
// dry run answers the preview and writes nothing. Pause, resume and cancel
// change the backfill's row (cancel also cancels its executions in flight);
// every change is audited. A backfill's max_in_flight may not exceed the
// caps the schedulers hold across all backfills of its flow and namespace
// (SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW, ..._PER_NAMESPACE): it could never
// be reached.
import { newId, type Db } from '@svc/db';
import {
  cancelBackfill,
  flowExists,
  getBackfill,
  insertBackfill,
  scheduleTriggersOf,
  listBackfills,
  setBackfillState,
  type BackfillRow,
  type BackfillState,
} from '@svc/scheduling';
import type { Engine } from '@svc/engine';
import { schemas, type components } from '@svc/api-spec';
import { conflict, notFound, reply, validationFailed, type HandlerContext, type OperationHandlers } from '@svc/http';
import { recordAudit } from '@svc/identity';
import { FireTimes, ZoneClock } from '@svc/timing';
import type { AuthPrincipal } from '../identity/principal.js';
import { auditContext } from './audit.js';

type Ctx = HandlerContext<AuthPrincipal>;
type Backfill = components['schemas']['Backfill'];
const { BACKFILL_MAX_FIRE_TIMES, BACKFILL_PREVIEW_LIST } = schemas;

/** The label key on every execution of a backfill (apps/scheduler BACKFILL_LABEL). */
const LABEL = 'backfill';

export interface BackfillRouteDeps {
  db: Db;
  engine: Engine;
  now: () => Date;
  /** SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW: the most a backfill's max_in_flight may be. */
  maxInFlightPerFlow: number;
  /** SVC_BACKFILL_MAX_IN_FLIGHT_PER_NAMESPACE: likewise. */
  maxInFlightPerNamespace: number;
}

/** A backfill's max_in_flight when the request names none (at most the caps). */
const DEFAULT_MAX_IN_FLIGHT = 10;

export function backfillBody(b: BackfillRow): Backfill {
  return {
    id: b.id,
    namespace: b.namespace,
    flow_id: b.flow_id,
    trigger_id: b.trigger_id,
    cron: b.cron,
    timezone: b.timezone,
    from: b.range_from.toISOString(),
    to: b.range_to.toISOString(),
    max_in_flight: b.max_in_flight,
    state: b.state,
    label: `${LABEL}:${b.id}`,
    progress: { total: b.total, done: b.done, running: b.running, failed: b.failed, left: b.left, cancelled: b.cancelled },
    created_by: b.created_by,
    created_at: b.created_at.toISOString(),
    updated_at: b.updated_at.toISOString(),
    ended_at: b.ended_at?.toISOString() ?? null,
  };
}

export function backfillHandlers(deps: BackfillRouteDeps) {
  const pool = deps.db.pool;

  const one = async (id: string): Promise<BackfillRow> => {
    const b = await getBackfill(pool, id);
    if (!b) throw notFound(`no backfill ${id}`);
    return b;
  };
  const flowOrThrow = async (namespace: string, flowId: string) => {
    if (!(await flowExists(pool, namespace, flowId))) throw notFound(`no flow ${namespace}/${flowId}`);
  };
  const audit = (ctx: Ctx, action: string, b: { id: string; namespace: string; flow_id: string }, details: Record<string, unknown> = {}) =>
    recordAudit(pool, {
      action,
      ...auditContext(ctx),
      targetType: 'backfill',
      targetId: b.id,
      details: { namespace: b.namespace, flow_id: b.flow_id, ...details },
      at: deps.now(),
    });
  /** pause and resume: one state to another, 409 from any other. */
  const move = async (ctx: Ctx, from: BackfillState, to: BackfillState, action: string) => {
    const id = ctx.params.backfillId;
    const b = await one(id);
    if (!(await setBackfillState(pool, id, [from], to, deps.now()))) throw conflict('conflict', `backfill ${id} is ${b.state}, not ${from}`);
    await audit(ctx, action, b);
    return backfillBody(await one(id));
  };

  return {
    async createBackfill(ctx) {
      const { namespace, flowId } = ctx.params;
      const body = ctx.body;
      await flowOrThrow(namespace, flowId);
      const triggers = await scheduleTriggersOf(pool, namespace, flowId);
      let trigger: (typeof triggers)[number] | undefined = triggers[0];
      if (body.trigger_id !== undefined) {
        trigger = triggers.find((t) => t.trigger_id === body.trigger_id);
        if (!trigger) throw notFound(`flow ${namespace}/${flowId} has no schedule trigger ${body.trigger_id}`);
      } else if (triggers.length !== 1) {
        throw validationFailed([
          {
            field: 'trigger_id',
            message: triggers.length
              ? `the flow has ${triggers.length} schedule triggers: name one (${triggers.map((t) => t.trigger_id).join(', ')})`
              : 'the flow has no schedule trigger',
          },
        ]);
      }
      const cron = trigger.definition.cron ?? '';
      const timezone = trigger.definition.timezone ?? 'UTC';
      const from = new Date(body.from);
      const to = new Date(body.to);
      if (!(from.getTime() <= to.getTime())) throw validationFailed([{ field: 'to', message: 'must not be before from' }]);
      if (to.getTime() > deps.now().getTime()) throw validationFailed([{ field: 'to', message: 'must not be in the future (the scheduler fires those)' }]);
      let fireTimes: Date[];
      try {
        fireTimes = new FireTimes(cron, new ZoneClock(timezone)).between(from, to, BACKFILL_MAX_FIRE_TIMES);
      } catch (err) {
        throw validationFailed([{ field: 'trigger_id', message: `the trigger's schedule is not usable: ${(err as Error).message}` }]);
      }
      if (fireTimes.length > BACKFILL_MAX_FIRE_TIMES)
        throw validationFailed([{ field: 'to', message: `the range holds more than ${BACKFILL_MAX_FIRE_TIMES} fire times: split it` }]);
      if (!fireTimes.length) throw validationFailed([{ field: 'from', message: 'no fire time of the schedule in the range' }]);
      const triggerId = trigger.trigger_id;
      const cap = Math.min(deps.maxInFlightPerFlow, deps.maxInFlightPerNamespace);
      if (body.max_in_flight !== undefined && body.max_in_flight > cap) {
        const which = deps.maxInFlightPerFlow <= deps.maxInFlightPerNamespace ? 'SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW' : 'SVC_BACKFILL_MAX_IN_FLIGHT_PER_NAMESPACE';
        throw validationFailed([{ field: 'max_in_flight', message: `at most ${cap} (${which}: the executions in flight of all backfills of the flow or namespace together)` }]);
      }
      if (body.dry_run) {
        return {
          namespace,
          flow_id: flowId,
          trigger_id: triggerId,
          cron,
          timezone,
          from: from.toISOString(),
          to: to.toISOString(),
          total: fireTimes.length,
          fire_times: fireTimes.slice(0, BACKFILL_PREVIEW_LIST).map((t) => t.toISOString()),
        };
      }
      const id = newId();
      const maxInFlight = body.max_in_flight ?? Math.min(DEFAULT_MAX_IN_FLIGHT, cap);
      await insertBackfill(pool, { id, namespace, flowId, triggerId, cron, timezone, from, to, maxInFlight, createdBy: ctx.principal.email, fireTimes, now: deps.now() });
      const b = await one(id);
      await audit(ctx, 'backfill.create', b, { trigger_id: triggerId, from: b.range_from.toISOString(), to: b.range_to.toISOString(), total: b.total, max_in_flight: maxInFlight });
      return reply(201, backfillBody(b));
    },

    async listBackfills({ params, query, cursor: c, encodeCursor }) {
      const { namespace, flowId } = params;
      const { limit } = query;
      await flowOrThrow(namespace, flowId);
      const rows = await listBackfills(pool, { namespace, flowId, limit: limit + 1, ...(c ? { before: { created_at: new Date(c.created_at), id: c.id } } : {}) });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map(backfillBody),
        ...(rows.length > limit && last ? { next_cursor: encodeCursor({ created_at: last.created_at.toISOString(), id: last.id }) } : {}),
      };
    },

    getBackfill: async ({ params }) => backfillBody(await one(params.backfillId)),

    pauseBackfill: (ctx) => move(ctx, 'running', 'paused', 'backfill.pause'),

    resumeBackfill: (ctx) => move(ctx, 'paused', 'running', 'backfill.resume'),

    async cancelBackfill(ctx) {
      const id = ctx.params.backfillId;
      const b = await one(id);
      const inFlight = await cancelBackfill(pool, id, deps.now());
      if (!inFlight) throw conflict('conflict', `backfill ${id} is ${b.state}`);
      for (const e of inFlight) {
        try {
          await deps.engine.executions.cancel(e, ctx.principal.email);
        } catch {
          // Ended meanwhile: nothing to cancel.
        }
      }
      await audit(ctx, 'backfill.cancel', b, { executions_cancelled: inFlight.length });
      return backfillBody(await one(id));
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
