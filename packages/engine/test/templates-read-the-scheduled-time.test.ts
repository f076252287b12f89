// Templates read `trigger.date`, the fire time a schedule-triggered (or
// backfilled) execution is for, in RFC 3339 with the schedule's UTC offset
// at that instant, from the trigger payload the scheduler records
// ({ fire_time (UTC), schedule, cron, timezone }); and `execution.id` and
// `execution.start_date` everywhere: the trigger's input templates (before
// the execution exists: its id is chosen first) and the task's templates at
// dispatch. Over both daylight-saving changes of Europe/Berlin in 2026.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { TemplateError } from '@svc/flow-schema';
import { FlowCache, prepareTask, rerunExecution, triggerFlow, type StartDeps } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;

before(async () => {
  fx = await engineFixture('sched', {
    'nightly.flow.yaml': {
      id: 'nightly',
      inputs: [
        { id: 'day', type: 'string' },
        { id: 'made_for', type: 'string' },
      ],
      triggers: [{ id: 'hourly', type: 'schedule', cron: '30 * * * *', timezone: 'Europe/Berlin', inputs: { day: '{{ trigger.date }}', made_for: '{{ execution.id }}' } }],
      tasks: [
        { id: 'report', type: 'command', command: ['echo', '{{ trigger.date }}', '{{ inputs.day }}'], env: { RUN: '{{ execution.id }}', STARTED: '{{ execution.start_date }}' } },
      ],
    },
  });
  ({ pool, deps } = fx);
  deps = { ...deps, flows: new FlowCache() };
});
after(() => fx.close());

const specDeps = () => ({ pool, storage: deps.storage!, masterKeys: [], maxArtifactBytes: 1 << 20, maxBundleBytes: 1 << 20 });

/** What the scheduler does when `fireTime` comes (apps/scheduler: triggerFlow with the trigger's input templates and this payload). */
const fire = (fireTime: string, timezone = 'Europe/Berlin') =>
  triggerFlow(pool, deps, {
    namespace: 'sched',
    flowId: 'nightly',
    triggerType: 'schedule',
    triggerId: 'hourly',
    createdBy: 'schedule',
    inputTemplates: { templates: { day: '{{ trigger.date }}', made_for: '{{ execution.id }}' } },
    triggerPayload: { fire_time: fireTime, schedule: 'hourly', cron: '30 * * * *', timezone },
  });

async function prepared(executionId: string) {
  const tr = (await pool.query(`SELECT id FROM task_runs WHERE execution_id = $1`, [executionId])).rows[0].id as string;
  return prepareTask(specDeps(), tr, async () => 'hash');
}

test("trigger.date carries the schedule's offset at the fire time, on both sides of each DST change", async () => {
  const cases: [string, string][] = [
    ['2026-03-29T00:30:00.000Z', '2026-03-29T01:30:00+01:00'], // CET, the last hour before the spring change
    ['2026-03-29T01:30:00.000Z', '2026-03-29T03:30:00+02:00'], // CEST: 02:30 does not exist that night
    ['2026-10-25T00:30:00.000Z', '2026-10-25T02:30:00+02:00'], // the first 02:30 (still CEST)
    ['2026-10-25T01:30:00.000Z', '2026-10-25T02:30:00+01:00'], // the repeated 02:30 (CET): same wall time, other offset
    ['2026-07-01T22:30:00.000Z', '2026-07-02T00:30:00+02:00'], // the local date is a day after the UTC one
  ];
  for (const [fireTime, date] of cases) {
    const x = await fire(fireTime);
    const row = (await pool.query(`SELECT inputs, started_at FROM executions WHERE id = $1`, [x.id])).rows[0];
    assert.deepEqual(row.inputs, { day: date, made_for: x.id }, `inputs of the execution for ${fireTime}`);
    const p = await prepared(x.id);
    assert.deepEqual(p.spec.command, ['echo', date, date]);
    assert.equal(p.spec.env.RUN, x.id);
    assert.equal(p.spec.env.STARTED, (row.started_at as Date).toISOString());
    // The same instant as the fire time.
    assert.equal(new Date(date).toISOString(), fireTime);
  }
});

test('a schedule in UTC (and one in a zone with a half-hour offset) gives its offset too', async () => {
  const utc = await fire('2026-03-29T01:30:00.000Z', 'UTC');
  assert.equal((await prepared(utc.id)).spec.command[1], '2026-03-29T01:30:00+00:00');
  const india = await fire('2026-03-29T01:30:00.000Z', 'Asia/Kolkata');
  assert.equal((await prepared(india.id)).spec.command[1], '2026-03-29T07:00:00+05:30');
  const newYork = await fire('2026-03-08T07:30:00.000Z', 'America/New_York');
  assert.equal((await prepared(newYork.id)).spec.command[1], '2026-03-08T03:30:00-04:00');
});

test('a rerun renders the date of the execution it reruns', async () => {
  const x = await fire('2026-10-25T01:30:00.000Z');
  await pool.query(`UPDATE executions SET state = 'FAILED', ended_at = now() WHERE id = $1`, [x.id]);
  const r = await rerunExecution(pool, deps, x.id, 'someone');
  const p = await prepared(r.id);
  assert.deepEqual(p.spec.command, ['echo', '2026-10-25T02:30:00+01:00', '2026-10-25T02:30:00+01:00']);
  assert.equal(p.spec.env.RUN, r.id);
});

test('an execution not started by a schedule has no trigger.date: its task fails template_error naming it', async () => {
  const x = await triggerFlow(pool, deps, { namespace: 'sched', flowId: 'nightly', inputs: { day: 'd', made_for: 'm' }, triggerType: 'manual', createdBy: 'someone' });
  await assert.rejects(prepared(x.id), (err: Error & { reason?: string }) => {
    assert.equal(err.reason, 'template_error');
    assert.match(err.message, /trigger\.date is not available: the execution was not started by a schedule/);
    return true;
  });
  // And a webhook's input template that reads it is refused before anything starts.
  await assert.rejects(
    triggerFlow(pool, deps, {
      namespace: 'sched',
      flowId: 'nightly',
      inputTemplates: { templates: { day: '{{ trigger.date }}', made_for: 'x' }, trigger: { body: {}, headers: {} } },
      triggerType: 'webhook',
      createdBy: 'webhook',
    }),
    TemplateError,
  );
});
