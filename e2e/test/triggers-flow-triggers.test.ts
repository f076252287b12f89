// Flow triggers with real processes (two dispatchers, maintenance and two
// schedulers whose sweeps run every 200 ms): a downstream flow starts when an
// upstream execution ends in one of the trigger's states (SUCCESS, FAILED,
// TIMED_OUT, CANCELLED) with trigger.outputs in its inputs, trigger_type
// `flow` and chain_depth + 1, exactly once per upstream execution; a flow
// that triggers itself is stopped by the depth limit; the sweep fires what no
// follow-up fired.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_CHAIN_DEPTH } from '@svc/engine/internal';
import { startStack, type Stack } from './stack.js';
import { emit, flow, run, sh, sleep, until } from './engine-support.js';

let s: Stack;
const NS = 'ft';
const STATES = ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED'] as const;
const DOWNSTREAM: Record<(typeof STATES)[number], string> = { SUCCESS: 'on-success', FAILED: 'on-failed', TIMED_OUT: 'on-timed-out', CANCELLED: 'on-cancelled' };

/** Executions a flow trigger started for one upstream execution. */
const downstreamOf = async (upstreamId: string) =>
  (
    await s.db.query(
      `SELECT id, flow_id, trigger_id, chain_depth, trigger_type, created_by FROM executions WHERE trigger_type = 'flow' AND trigger_payload->>'upstream_execution_id' = $1 ORDER BY flow_id`,
      [upstreamId],
    )
  ).rows;

before(async () => {
  s = await startStack({ dispatchers: 2, env: { SVC_WORKER_SLOTS: '16' } });
  for (let i = 0; i < 2; i++) s.startApp('scheduler', { SVC_SCHEDULER_SWEEP_MS: '200', SVC_SCHEDULER_SYNC_MS: '500' });
  const downstream = (id: string, state: string) =>
    flow({
      id,
      inputs: [
        { id: 'v', type: 'string' },
        { id: 'up_state', type: 'string' },
      ],
      triggers: [{ id: 'after_up', type: 'flow', flow: `${NS}/up`, states: [state], inputs: { v: "{{ default(trigger.outputs.v, 'none') }}", up_state: state } }],
      tasks: [{ id: 'show', type: 'command', env: { V: '{{ inputs.v }}' }, command: sh(`echo "got $V"; printf '{"outputs": {"seen": "%s"}}\\n' "$V" >> "$SVC_OUTPUTS"`) }],
    });
  await s.saveFlow(NS, {
    'up.flow.yaml': flow({
      id: 'up',
      timeout: '2s',
      inputs: [{ id: 'mode', type: 'select', values: ['ok', 'fail', 'slow'], default: 'ok' }],
      tasks: [
        {
          id: 't',
          type: 'command',
          env: { MODE: '{{ inputs.mode }}' },
          command: sh(`case "$MODE" in ok) ${emit({ v: 'from-upstream' })};; fail) exit 3;; slow) sleep 30;; esac`),
        },
      ],
      outputs: { v: '{{ tasks.t.outputs.v }}' },
    }),
    ...Object.fromEntries(STATES.map((st) => [`${DOWNSTREAM[st]}.flow.yaml`, downstream(DOWNSTREAM[st], st)])),
    'loop.flow.yaml': flow({
      id: 'loop',
      triggers: [{ id: 'again', type: 'flow', flow: `${NS}/loop`, states: ['SUCCESS'] }],
      tasks: [{ id: 't', type: 'command', command: sh('true') }],
    }),
  });
});
after(() => s.stop());

/** Starts `up` and brings it to `state`. */
async function upstreamEnding(state: (typeof STATES)[number]): Promise<any> {
  const mode = state === 'SUCCESS' ? 'ok' : state === 'FAILED' ? 'fail' : 'slow';
  const e = await s.trigger(NS, 'up', { inputs: { mode } });
  if (state === 'CANCELLED') {
    await s.waitFor(e.id, (x) => x.task_runs.some((r: any) => r.state === 'RUNNING'));
    assert.equal((await s.api('POST', `/api/v1/executions/${e.id}/cancel`)).status, 200);
  }
  const done = await s.waitEnded(e.id, 30_000);
  assert.equal(done.state, state, JSON.stringify(done));
  return done;
}

for (const state of STATES) {
  test(`an upstream execution ending ${state} starts exactly the downstream flow listening for ${state}, with trigger.outputs and chain_depth + 1`, async () => {
    const up = await upstreamEnding(state);
    const [down] = await until(`the ${DOWNSTREAM[state]} execution`, async () => {
      const rows = await downstreamOf(up.id);
      return rows.length ? rows : undefined;
    });
    const done = await s.waitEnded(down.id);
    assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
    assert.equal(done.flow_id, DOWNSTREAM[state]);
    assert.equal(done.trigger_type, 'flow');
    assert.equal(done.chain_depth, up.chain_depth + 1);
    assert.deepEqual(done.inputs, { v: state === 'SUCCESS' ? 'from-upstream' : 'none', up_state: state });
    assert.equal(done.trigger_payload.upstream_execution_id, up.id);
    assert.equal(done.trigger_payload.upstream_state, state);
    assert.deepEqual(done.trigger_payload.outputs, state === 'SUCCESS' ? { v: 'from-upstream' } : (up.outputs ?? {}));
    assert.deepEqual(run(done, 'show').outputs, { seen: done.inputs.v });
    // Sweeps of two schedulers and two dispatchers later, still exactly one, and only for this state.
    await sleep(800);
    const all = await downstreamOf(up.id);
    assert.deepEqual(
      all.map((r) => r.flow_id),
      [DOWNSTREAM[state]],
    );
    const firings = (await s.db.query(`SELECT flow_id, execution_id FROM flow_trigger_firings WHERE upstream_execution_id = $1`, [up.id])).rows;
    assert.deepEqual(firings, [{ flow_id: DOWNSTREAM[state], execution_id: down.id }]);
  });
}

test(`a flow that triggers itself on SUCCESS is stopped by the depth limit: ${MAX_CHAIN_DEPTH} firings start executions, the next starts nothing and its firing row records it`, async () => {
  assert.equal(MAX_CHAIN_DEPTH, 10);
  const first = await s.trigger(NS, 'loop');
  const chain = await until(
    'the whole chain',
    async () => {
      const rows = (
        await s.db.query(`SELECT id, chain_depth, state, trigger_type, trigger_payload->>'upstream_execution_id' AS up FROM executions WHERE flow_id = 'loop' ORDER BY chain_depth`)
      ).rows;
      const last = rows.find((r) => r.chain_depth === MAX_CHAIN_DEPTH);
      if (!last || last.state !== 'SUCCESS') return undefined;
      const stop = (await s.db.query(`SELECT execution_id FROM flow_trigger_firings WHERE upstream_execution_id = $1`, [last.id])).rows;
      return stop.length ? { rows, stop } : undefined;
    },
    60_000,
  );
  assert.deepEqual(
    chain.rows.map((r) => r.chain_depth),
    [...Array(MAX_CHAIN_DEPTH + 1).keys()],
    'depths 0 to 10, one execution each',
  );
  assert.equal(chain.rows[0].id, first.id);
  for (let d = 1; d <= MAX_CHAIN_DEPTH; d++) {
    assert.equal(chain.rows[d].trigger_type, 'flow');
    assert.equal(chain.rows[d].up, chain.rows[d - 1].id, 'each started by the one before');
  }
  assert.deepEqual(chain.stop, [{ execution_id: null }], 'the 11th firing is recorded, with no execution');
  await sleep(800);
  assert.equal((await s.db.query(`SELECT count(*)::int AS n FROM executions WHERE flow_id = 'loop'`)).rows[0].n, MAX_CHAIN_DEPTH + 1);
});

test("the schedulers' sweep fires a flow trigger that no follow-up fired (a trigger added after the upstream ended), once", async () => {
  const up = await upstreamEnding('SUCCESS');
  await sleep(500);
  const already = (await downstreamOf(up.id)).map((r) => r.flow_id);
  assert.deepEqual(already, ['on-success']);
  await s.saveFlow(NS, {
    'late.flow.yaml': flow({
      id: 'late',
      inputs: [{ id: 'v', type: 'string' }],
      triggers: [{ id: 'late_up', type: 'flow', flow: `${NS}/up`, states: ['SUCCESS'], inputs: { v: '{{ trigger.outputs.v }}' } }],
      tasks: [{ id: 't', type: 'command', command: sh('true') }],
    }),
  });
  const late = await until('the swept execution', async () => (await downstreamOf(up.id)).find((r) => r.flow_id === 'late'));
  assert.equal(late.trigger_id, 'late_up');
  assert.equal(late.chain_depth, 1);
  await sleep(800);
  assert.equal((await downstreamOf(up.id)).filter((r) => r.flow_id === 'late').length, 1);
});
