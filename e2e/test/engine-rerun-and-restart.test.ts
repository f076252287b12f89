// Rerun and restart over HTTP with real processes: rerun is a new execution of
// the same pinned snapshot, inputs and labels where every task runs; restart
// copies the SUCCESS task runs (reason `reused`, reused_from_id) and runs the
// others; restart of an execution not FAILED, TIMED_OUT or CANCELLED is 409
// not_restartable. Both write audit events.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { auditOf, emit, flow, run, runsOf, sh, tmpDir } from './engine-support.js';

let s: Stack;
const NS = 'again';

/** Each run of `setup` appends a line to <dir>/setup.count; `check` fails until <dir>/ok exists. */
const gated = (version: string) =>
  flow({
    id: 'gated',
    labels: { team: 'ops' },
    inputs: [{ id: 'dir', type: 'string' }],
    tasks: [
      { id: 'setup', type: 'command', command: sh(`echo run >> "{{ inputs.dir }}/setup.count"; ${emit({ token: 'abc', version })}`) },
      { id: 'check', type: 'command', depends_on: ['setup'], command: sh('test -f "{{ inputs.dir }}/ok" || { echo "not ready" >&2; exit 1; }') },
      {
        id: 'report',
        type: 'command',
        depends_on: ['check'],
        env: { T: '{{ tasks.setup.outputs.token }}' },
        command: sh(`printf '{"outputs": {"t": "%s"}}\\n' "$T" >> "$SVC_OUTPUTS"; sh ./script.sh`),
      },
    ],
  });

before(async () => {
  s = await startStack();
  await s.saveFlow(NS, {
    'gated.flow.yaml': gated('v1'),
    'script.sh': `printf '{"outputs": {"script": "v1"}}\\n' >> "$SVC_OUTPUTS"\n`,
    'long.flow.yaml': flow({ id: 'long', tasks: [{ id: 'wait', type: 'command', command: ['sleep', '300'] }] }),
    // Like gated, under a concurrency limit of 1; `setup` holds the place while <dir>/block exists.
    'limited.flow.yaml': flow({
      id: 'limited',
      concurrency: { limit: 1 },
      inputs: [{ id: 'dir', type: 'string' }],
      tasks: [
        { id: 'setup', type: 'command', command: sh('echo run >> "{{ inputs.dir }}/setup.count"; while [ -f "{{ inputs.dir }}/block" ]; do sleep 0.1; done') },
        { id: 'check', type: 'command', depends_on: ['setup'], command: sh('test -f "{{ inputs.dir }}/ok"') },
      ],
    }),
    'capped.flow.yaml': flow({ id: 'capped', timeout: '1s', tasks: [{ id: 'wait', type: 'command', command: ['sleep', '300'] }] }),
  });
});
after(() => s.stop());

const count = (dir: string) => fs.readFileSync(path.join(dir, 'setup.count'), 'utf8').trim().split('\n').length;

test('rerun creates a new execution with the same snapshot, definition, inputs and labels, where every task runs again', async () => {
  const dir = tmpDir();
  const first = await s.trigger(NS, 'gated', { inputs: { dir }, labels: { ticket: 't-1' } });
  const failed = await s.waitEnded(first.id);
  assert.equal(failed.state, 'FAILED');
  assert.equal(run(failed, 'report').state, 'SKIPPED');
  fs.writeFileSync(path.join(dir, 'ok'), '');

  const r = await s.api('POST', `/api/v1/executions/${first.id}/rerun`);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const re = r.body;
  assert.notEqual(re.id, first.id);
  for (const f of ['snapshot_id', 'snapshot_version', 'flow_revision_id', 'namespace', 'flow_id']) assert.deepEqual(re[f], failed[f], f);
  assert.deepEqual(re.inputs, failed.inputs);
  assert.deepEqual(re.labels, { team: 'ops', ticket: 't-1' });
  const done = await s.waitEnded(re.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  // Every task ran again: nothing reused, setup executed a second time.
  for (const k of ['setup', 'check', 'report']) {
    assert.equal(run(done, k).reused_from_id, null, k);
    assert.notEqual(run(done, k).reason, 'reused', k);
  }
  assert.equal(count(dir), 2);
  assert.deepEqual(run(done, 'report').outputs, { t: 'abc', script: 'v1' });

  // Rerun is allowed from SUCCESS too (docs/using/executions.md).
  const again = await s.api('POST', `/api/v1/executions/${re.id}/rerun`);
  assert.equal(again.status, 201, JSON.stringify(again.body));
  assert.equal((await s.waitEnded(again.body.id)).state, 'SUCCESS');

  const audit = await auditOf(s.api, 'execution.rerun', first.id);
  assert.equal(audit.length, 1);
  assert.equal(audit[0].target, `execution:${first.id}`);
});

test('rerun and restart use the pinned snapshot; a new trigger uses the current files', async () => {
  const dir = tmpDir();
  const first = await s.trigger(NS, 'gated', { inputs: { dir } });
  const failed = await s.waitEnded(first.id);
  assert.equal(failed.state, 'FAILED');
  assert.deepEqual(run(failed, 'setup').outputs, { token: 'abc', version: 'v1' });

  // The flow and the script it runs change after the first execution.
  await s.saveFlow(NS, { 'gated.flow.yaml': gated('v2'), 'script.sh': `printf '{"outputs": {"script": "v2"}}\\n' >> "$SVC_OUTPUTS"\n` });
  fs.writeFileSync(path.join(dir, 'ok'), '');

  const re = await s.api('POST', `/api/v1/executions/${first.id}/rerun`);
  const reDone = await s.waitEnded(re.body.id);
  assert.equal(reDone.state, 'SUCCESS');
  assert.equal(reDone.snapshot_id, failed.snapshot_id);
  assert.deepEqual(run(reDone, 'setup').outputs, { token: 'abc', version: 'v1' });
  assert.deepEqual(run(reDone, 'report').outputs, { t: 'abc', script: 'v1' });

  const rs = await s.api('POST', `/api/v1/executions/${first.id}/restart`);
  const rsDone = await s.waitEnded(rs.body.id);
  assert.equal(rsDone.state, 'SUCCESS');
  assert.equal(rsDone.snapshot_id, failed.snapshot_id);
  assert.deepEqual(run(rsDone, 'report').outputs, { t: 'abc', script: 'v1' });

  const fresh = await s.waitEnded((await s.trigger(NS, 'gated', { inputs: { dir } })).id);
  assert.notEqual(fresh.snapshot_id, failed.snapshot_id);
  assert.deepEqual(run(fresh, 'setup').outputs, { token: 'abc', version: 'v2' });
  assert.deepEqual(run(fresh, 'report').outputs, { t: 'abc', script: 'v2' });
  await s.saveFlow(NS, { 'gated.flow.yaml': gated('v1'), 'script.sh': `printf '{"outputs": {"script": "v1"}}\\n' >> "$SVC_OUTPUTS"\n` });
});

test('restart copies the SUCCESS task runs with reason reused and reused_from_id, and runs the others', async () => {
  const dir = tmpDir();
  const first = await s.trigger(NS, 'gated', { inputs: { dir }, labels: { ticket: 't-2' } });
  const failed = await s.waitEnded(first.id);
  assert.equal(failed.state, 'FAILED');
  assert.equal(count(dir), 1);
  fs.writeFileSync(path.join(dir, 'ok'), '');

  const r = await s.api('POST', `/api/v1/executions/${first.id}/restart`);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const re = r.body;
  assert.notEqual(re.id, first.id);
  assert.equal(re.restart_of_id, first.id);
  assert.equal(re.snapshot_id, failed.snapshot_id);
  assert.deepEqual(re.inputs, failed.inputs);
  assert.deepEqual(re.labels, failed.labels);
  const done = await s.waitEnded(re.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));

  const setup = run(done, 'setup');
  assert.equal(runsOf(done, 'setup').length, 1);
  assert.equal(setup.state, 'SUCCESS');
  assert.equal(setup.reason, 'reused');
  assert.equal(setup.reused_from_id, run(failed, 'setup').id);
  assert.notEqual(setup.id, run(failed, 'setup').id);
  assert.deepEqual(setup.outputs, run(failed, 'setup').outputs);
  assert.equal(count(dir), 1, 'the reused task did not run again');
  for (const k of ['check', 'report']) {
    assert.equal(run(done, k).state, 'SUCCESS', k);
    assert.equal(run(done, k).reused_from_id, null, k);
  }
  // The tasks that ran read the reused outputs.
  assert.deepEqual(run(done, 'report').outputs, { t: 'abc', script: 'v1' });

  const audit = await auditOf(s.api, 'execution.restart', first.id);
  assert.equal(audit.length, 1);
  assert.equal(audit[0].target, `execution:${first.id}`);

  // SUCCESS is not restartable.
  const no = await s.api('POST', `/api/v1/executions/${re.id}/restart`);
  assert.equal(no.status, 409, JSON.stringify(no.body));
  assert.equal(no.body.error.code, 'not_restartable');
});

test('restart of a CANCELLED execution is allowed; of a RUNNING one it is 409 not_restartable, as is rerun', async () => {
  const e = await s.trigger(NS, 'long');
  await s.waitFor(e.id, (x) => run(x, 'wait').state === 'RUNNING');
  for (const op of ['restart', 'rerun']) {
    const r = await s.api('POST', `/api/v1/executions/${e.id}/${op}`);
    assert.equal(r.status, 409, `${op}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, 'not_restartable');
  }
  await s.api('POST', `/api/v1/executions/${e.id}/cancel`);
  assert.equal((await s.waitEnded(e.id)).state, 'CANCELLED');
  const r = await s.api('POST', `/api/v1/executions/${e.id}/restart`);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.restart_of_id, e.id);
  await s.waitFor(r.body.id, (x) => run(x, 'wait').state === 'RUNNING');
  await s.api('POST', `/api/v1/executions/${r.body.id}/cancel`);
  assert.equal((await s.waitEnded(r.body.id)).state, 'CANCELLED');

  const missing = await s.api('POST', '/api/v1/executions/01nonexistent0000000000000/restart');
  assert.equal(missing.status, 404);
});

test('rerun and restart are allowed from TIMED_OUT', async () => {
  const e = await s.trigger(NS, 'capped');
  const timedOut = await s.waitEnded(e.id);
  assert.equal(timedOut.state, 'TIMED_OUT');
  for (const op of ['rerun', 'restart']) {
    const r = await s.api('POST', `/api/v1/executions/${e.id}/${op}`);
    assert.equal(r.status, 201, `${op}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.snapshot_id, timedOut.snapshot_id);
    assert.equal(r.body.restart_of_id, op === 'restart' ? e.id : null);
    await s.api('POST', `/api/v1/executions/${r.body.id}/cancel`);
    assert.ok(['CANCELLED', 'TIMED_OUT'].includes((await s.waitEnded(r.body.id)).state));
  }
});

test('a restart held QUEUED by the concurrency limit still reuses the SUCCESS task runs when it starts', async () => {
  const dir = tmpDir();
  const first = await s.trigger(NS, 'limited', { inputs: { dir } });
  const failed = await s.waitEnded(first.id);
  assert.equal(failed.state, 'FAILED');
  assert.equal(run(failed, 'setup').state, 'SUCCESS');

  // Another execution of the flow holds the only place.
  const other = tmpDir();
  fs.writeFileSync(path.join(other, 'block'), '');
  const holder = await s.trigger(NS, 'limited', { inputs: { dir: other } });
  await s.waitFor(holder.id, (x) => x.task_runs.some((t: any) => t.state === 'RUNNING'));

  const r = await s.api('POST', `/api/v1/executions/${first.id}/restart`);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.state, 'QUEUED');
  fs.writeFileSync(path.join(dir, 'ok'), '');
  fs.rmSync(path.join(other, 'block'));
  assert.equal((await s.waitEnded(holder.id)).state, 'FAILED');

  const done = await s.waitEnded(r.body.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(done.restart_of_id, first.id);
  const setup = run(done, 'setup');
  assert.equal(setup.reason, 'reused');
  assert.equal(setup.reused_from_id, run(failed, 'setup').id);
  assert.equal(count(dir), 1, 'the reused task did not run again');
});
