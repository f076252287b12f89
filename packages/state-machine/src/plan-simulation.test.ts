// Property test: random flows driven to their end by plan → apply → one random
// runner event, with every move checked against the transition table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plan, type PlanRun, type PlanTask, type RunIf } from './plan.js';
import { shouldRetry } from './retry.js';
import { isTaskRunEnded, type TaskRunState } from './states.js';
import { nextTaskRunState, type TaskRunEvent } from './transitions.js';

/** mulberry32: a small seeded PRNG, so a failing seed can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Flow {
  tasks: PlanTask[];
  maxParallel: number;
  maxAttempts: number;
}

function randomFlow(rand: () => number): Flow {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const n = 1 + Math.floor(rand() * 12);
  const ids = Array.from({ length: n }, (_, i) => `t${i}`);
  // Edges only go from a lower to a higher index (a DAG); the task list order is shuffled
  // independently, so the planner cannot rely on dependencies being listed first.
  const tasks = ids.map((id, i) => ({
    id,
    dependsOn: ids.slice(0, i).filter(() => rand() < 0.3),
    runIf: pick<RunIf>(['success', 'success', 'failure', 'always']),
  }));
  for (let i = tasks.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [tasks[i], tasks[j]] = [tasks[j]!, tasks[i]!];
  }
  return { tasks, maxParallel: pick([0, 1, 2, 3]), maxAttempts: pick([1, 1, 2, 3]) };
}

class Sim {
  readonly runs: PlanRun[];
  constructor(readonly flow: Flow) {
    this.runs = flow.tasks.map((t) => ({ taskKey: t.id, attempt: 1, state: 'PENDING' }));
  }

  latest(key: string): PlanRun {
    let best: PlanRun | undefined;
    for (const r of this.runs) if (r.taskKey === key && (!best || r.attempt > best.attempt)) best = r;
    return best!;
  }

  latestAll(): PlanRun[] {
    return this.flow.tasks.map((t) => this.latest(t.id));
  }

  /** Applies an event through the transition table, failing the test on a refusal. */
  move(run: PlanRun, event: TaskRunEvent, error?: string): void {
    const r = nextTaskRunState(run.state, event);
    assert.ok(r.ok, `${run.taskKey}#${run.attempt} ${run.state} + ${event} refused: ${r.ok ? '' : r.refusal}`);
    run.state = r.to;
    if (error !== undefined) run.error = error;
  }

  active(): number {
    return this.latestAll().filter((r) => r.state === 'QUEUED' || r.state === 'RUNNING').length;
  }
}

function runIfHolds(task: PlanTask, stateOf: (id: string) => TaskRunState): boolean {
  const deps = task.dependsOn.map(stateOf);
  if (deps.length === 0) return true;
  if (!deps.every(isTaskRunEnded)) return false;
  if (task.runIf === 'success') return deps.every((s) => s === 'SUCCESS');
  if (task.runIf === 'failure') return deps.some((s) => s === 'FAILED' || s === 'TIMED_OUT');
  return true;
}

const SEEDS = 600;

test(`random flows (${SEEDS} seeds) always end with every task ended, within max_parallel at every step`, () => {
  const ends = new Map<string, number>();
  for (let seed = 1; seed <= SEEDS; seed++) {
    const rand = prng(seed);
    const flow = randomFlow(rand);
    const sim = new Sim(flow);
    let stopping: 'cancel' | 'timeout' | null = null;
    let ended = false;
    for (let step = 0; step < 2000 && !ended; step++) {
      const at = `seed ${seed} step ${step}`;
      const input = () => ({ tasks: flow.tasks, maxParallel: flow.maxParallel, runs: sim.runs.map((r) => ({ ...r })), stopping });
      const before = new Map(sim.latestAll().map((r) => [r.taskKey, r.state]));
      const p = plan(input());

      if (stopping) assert.deepEqual(p.queue, [], `${at}: nothing is queued while stopping`);
      for (const s of p.skip) {
        assert.equal(before.get(s.taskKey), 'PENDING', at);
        sim.move(sim.latest(s.taskKey), 'skip');
      }
      for (const s of p.skip) {
        const task = flow.tasks.find((t) => t.id === s.taskKey)!;
        const deps = task.dependsOn.map((id) => sim.latest(id).state);
        assert.ok(deps.every(isTaskRunEnded) && !runIfHolds(task, (id) => sim.latest(id).state), `${at}: ${s.taskKey} skipped with run_if ${task.runIf} met or undecided`);
      }
      // Judged on the states after this plan's skips, which a queued task may depend on.
      for (const key of p.queue) {
        const task = flow.tasks.find((t) => t.id === key)!;
        assert.ok(
          runIfHolds(task, (id) => sim.latest(id).state),
          `${at}: ${key} queued with run_if ${task.runIf} not met`,
        );
        sim.move(sim.latest(key), 'queue');
      }
      for (const c of p.cancel) {
        assert.equal(c.reason, stopping === 'cancel' ? 'cancelled' : 'execution_timed_out', at);
        sim.move(sim.latest(c.taskKey), 'cancel');
      }
      if (flow.maxParallel > 0) assert.ok(sim.active() <= flow.maxParallel, `${at}: ${sim.active()} active > max_parallel ${flow.maxParallel}`);

      // Applying a plan reaches a fixed point: planning again at once has nothing more to do.
      const again = plan(input());
      assert.deepEqual([again.queue, again.skip, again.cancel], [[], [], []], `${at}: replanning after apply`);
      assert.deepEqual(again.end, p.end, `${at}: replanning changes the end`);

      const latest = sim.latestAll();
      if (p.end) {
        assert.ok(
          latest.every((r) => isTaskRunEnded(r.state)),
          `${at}: ended with a task not ended`,
        );
        const failed = latest.find((r) => r.state === 'FAILED' || r.state === 'TIMED_OUT');
        const expected =
          stopping === 'cancel'
            ? { state: 'CANCELLED' }
            : stopping === 'timeout'
              ? { state: 'TIMED_OUT' }
              : failed
                ? { state: 'FAILED', failedTask: failed.taskKey, error: failed.error ?? '' }
                : { state: 'SUCCESS' };
        assert.deepEqual(p.end, expected, at);
        ends.set(p.end.state, (ends.get(p.end.state) ?? 0) + 1);
        ended = true;
        break;
      }

      const open = latest.filter((r) => r.state === 'QUEUED' || r.state === 'RUNNING');
      assert.ok(open.length > 0, `${at}: no end and nothing can move (stuck): ${JSON.stringify(latest)}`);
      if (!stopping && rand() < 0.03) stopping = rand() < 0.5 ? 'cancel' : 'timeout';

      const run = open[Math.floor(rand() * open.length)]!;
      if (run.state === 'QUEUED') {
        sim.move(run, 'claim');
        continue;
      }
      const events: TaskRunEvent[] = stopping ? ['cancel', 'cancel', 'succeed', 'fail'] : ['succeed', 'succeed', 'fail', 'time_out', 'lose', 'shutdown'];
      const event = events[Math.floor(rand() * events.length)]!;
      sim.move(run, event, event === 'fail' ? `${run.taskKey}#${run.attempt} broke` : undefined);
      if ((run.state === 'FAILED' || run.state === 'TIMED_OUT') && !stopping && shouldRetry({ maxAttempts: flow.maxAttempts }, run.attempt)) {
        const next = nextTaskRunState('new', 'queue');
        assert.ok(next.ok);
        sim.runs.push({ taskKey: run.taskKey, attempt: run.attempt + 1, state: next.to });
      }
    }
    assert.ok(ended, `seed ${seed}: no end within the step budget`);
  }
  // The generator must reach every kind of end, or the property says little.
  assert.deepEqual([...ends.keys()].sort(), ['CANCELLED', 'FAILED', 'SUCCESS', 'TIMED_OUT']);
});
