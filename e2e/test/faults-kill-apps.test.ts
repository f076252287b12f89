// Fault injection: kill -9 each app in turn in the middle of a busy run.
// A stack with every app (gateway, two dispatchers, scheduler, maintenance)
// runs 100 executions of `busy` per round (faults/busy-run.ts: numbered log
// lines, retries, http tasks, subflows, a flow trigger, a minutely schedule
// and a webhook), submitted over the API and the webhook while one app is
// SIGKILLed and restarted. After each round: everything drains within 2
// minutes and every invariant of faults/invariants.ts holds.
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { sleep, until } from './engine-support.js';
import { keepSchedulesDue, setUpBusy, startHttpTarget, submitBusy, type HttpTarget } from './faults/busy-run.js';
import { checkRound, drain, q } from './faults/invariants.js';
import { gatewayUp, kill9, online, procsOf, type App } from './faults/apps.js';

const EXECUTIONS = 100;

let s: Stack;
let target: HttpTarget;

before(async () => {
  target = await startHttpTarget();
  s = await startStack({ dispatchers: 2 });
  s.startApp('scheduler');
});
after(async () => {
  await s?.stop();
  await target?.close();
});

/** Task runs of `ns` RUNNING now. */
const inFlight = async (ns: string) =>
  (await q(s, `SELECT count(*)::int AS n FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE e.namespace = $1 AND t.state = 'RUNNING'`, [ns]))[0].n as number;

async function round(t: TestContext, app: App): Promise<void> {
  const ns = `kill-${app}`;
  const hookKey = await setUpBusy(s, ns, target.url);
  const stopSchedules = keepSchedulesDue(s, ns);
  const run = submitBusy(s, ns, { count: EXECUTIONS, webhookKey: hookKey });
  // In the middle of the run: half submitted and tasks running.
  await until('the run to be busy', async () => run.sent() >= EXECUTIONS / 2 && (await inFlight(ns)) >= 4, 180_000, 100);
  const running = await inFlight(ns);
  const victims = procsOf(s, app);
  assert.ok(victims.length, `a live ${app}`);
  // The dispatcher that runs the most of this namespace's task runs.
  let victim = victims[0]!;
  if (app === 'dispatcher') {
    const busiest = await q(
      s,
      `SELECT (i.metadata->>'pid')::int AS pid FROM task_runs t JOIN instances i ON i.id = t.claimed_by JOIN executions e ON e.id = t.execution_id
       WHERE e.namespace = $1 AND t.state = 'RUNNING' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
      [ns],
    );
    victim = victims.find((p) => p.child.pid === busiest[0]?.pid) ?? victim;
  }
  const victimRuns = (
    await q(s, `SELECT count(*)::int AS n FROM task_runs t JOIN instances i ON i.id = t.claimed_by WHERE t.state = 'RUNNING' AND (i.metadata->>'pid')::int = $1`, [
      victim.child.pid,
    ])
  )[0].n as number;
  await kill9(victim);
  const killedAt = Date.now();
  await sleep(2000);
  const fresh = s.startApp(app);
  if (app === 'api-gateway') await gatewayUp(s);
  await online(s, fresh);
  const downMs = Date.now() - killedAt;

  const subs = await run.done;
  const submittedAt = Date.now();
  await stopSchedules();
  // No more schedule fires or webhooks: the namespace can drain.
  assert.equal((await s.api('PATCH', `/api/v1/flows/${ns}/busy`, { enabled: false })).status, 200);
  const drainMs = await drain(s, ns);
  const figures = await checkRound(s, ns, subs, { httpCalls: (k) => target.calls.get(k) ?? 0 });
  figures.drainMs = drainMs;
  t.diagnostic(
    JSON.stringify({
      fault: `kill -9 ${app}`,
      taskRunsInFlightAtKill: running,
      victimRunningTaskRuns: victimRuns,
      downMs,
      drainAfterLastSubmissionMs: Date.now() - submittedAt,
      ...figures,
    }),
  );
  assert.equal(figures.submissions.acknowledged, EXECUTIONS);
  assert.ok(figures.scheduleFires >= 1, 'the schedule fired during the round');
}

for (const app of ['api-gateway', 'scheduler', 'dispatcher', 'maintenance'] as const) {
  test(`kill -9 the ${app} mid-run, restart it: nothing lost, nothing stuck, nothing doubled`, (t) => round(t, app));
}
