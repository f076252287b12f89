// The runner protocol end to end: `svc exec` as its own process (what runs
// inside docker and kubernetes tasks) fetches its spec and bundle from the real
// api-gateway with a signed run token, runs the task, streams its logs,
// uploads an artifact and completes it. The task run is claimed here the way
// a dispatcher claims it (no dispatcher serves its pool).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { claimTaskRuns, loadRunTokenKey, signRunToken } from '@svc/engine/internal';
import { root, startStack, type Stack } from './stack.js';
import path from 'node:path';

let s: Stack;

before(async () => {
  s = await startStack({ dispatchers: 0, maintenance: false });
  await s.api('POST', '/api/v1/namespaces', { name: 'remote' });
  await s.api('PUT', '/api/v1/namespaces/remote/secrets/TOKEN', { value: 'tok-value-9f3c2' });
  await s.saveFlow(
    'remote',
    {
      'bin/work.sh':
        '#!/bin/sh\necho "working on $1 with $API_TOKEN"\necho "{\\"outputs\\": {\\"answer\\": 42}}" >> "$SVC_OUTPUTS"\necho report > "$SVC_ARTIFACTS_DIR/report.txt"\n',
      'remote.flow.yaml': [
        'id: remote',
        'inputs: [{id: item, type: string, default: widget}]',
        'tasks:',
        '  - id: work',
        '    type: script',
        '    file: bin/work.sh',
        '    args: ["{{ inputs.item }}"]',
        '    env: {API_TOKEN: "{{ secret(\'TOKEN\') }}"}',
        '    executor: {type: process, pool: remote-pool}',
        '',
      ].join('\n'),
    },
    ['bin/work.sh'],
  );
});
after(() => s.stop());

function svcExec(taskRunId: string, token: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'apps/runner/dist/main.js'), '--server', s.url, '--task-run', taskRunId], {
      env: { PATH: process.env.PATH, SVC_RUN_TOKEN: token, SVC_WORK_ROOT: s.dataDir },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

test('svc exec runs a task over the runner protocol with a signed run token', async () => {
  const ex = await s.trigger('remote', 'remote', { inputs: { item: 'gear' } });
  const queued = await s.waitFor(ex.id, (e) => e.task_runs[0]?.state === 'QUEUED');
  assert.equal(queued.task_runs[0].reason, 'no_instance_for_pool');
  const [run] = await claimTaskRuns(s.db, { instanceId: 'test-claimer', pools: ['remote-pool'], executorType: 'process', limit: 1, now: new Date() });
  assert.ok(run, 'claimed');
  const key = await loadRunTokenKey(s.db);
  const token = signRunToken(key, run.id, new Date(Date.now() + 3600_000));

  // Forged, foreign and expired tokens are refused before any work.
  const spec = (t: string, id = run.id) => fetch(`${s.url}/api/runner/v1/task-runs/${id}/spec`, { headers: { authorization: `Bearer ${t}` } });
  assert.equal((await spec(`${token.slice(0, -2)}xx`)).status, 401);
  assert.equal((await spec(signRunToken(key, 'another-run', new Date(Date.now() + 3600_000)))).status, 401);
  assert.equal((await spec(signRunToken(key, run.id, new Date(Date.now() - 1000)))).status, 401);
  assert.equal((await spec(token, 'another-run')).status, 401);
  const got = await spec(token);
  assert.equal(got.status, 200);
  const body = (await got.json()) as Record<string, unknown>;
  for (const f of [
    'task_run_id',
    'execution_id',
    'flow_id',
    'namespace',
    'task_id',
    'bundle_hash',
    'workdir',
    'attempt',
    'command',
    'env',
    'limits',
    'mask_values',
    'timeout_seconds',
  ]) {
    assert.ok(f in body, `spec field ${f}`);
  }
  assert.deepEqual(body.command, ['bin/work.sh', 'gear']);
  assert.equal(body.runtime, 'bash');
  assert.deepEqual(body.mask_values, ['tok-value-9f3c2']);
  assert.match(String(body.bundle_hash), /^[0-9a-f]{64}$/);

  const r = await svcExec(run.id, token);
  assert.equal(r.code, 0, r.out);
  const done = await s.waitEnded(ex.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.deepEqual(done.task_runs[0].outputs, { answer: 42 });
  assert.equal(done.task_runs[0].exit_code, 0);
  assert.deepEqual(done.secret_keys_used, ['TOKEN']);
  const logs = (await s.db.query(`SELECT n, stream, text FROM log_lines WHERE task_run_id = $1 ORDER BY n`, [run.id])).rows;
  assert.deepEqual(
    logs.map((l) => l.text),
    ['working on gear with ***'],
  );
  const art = (await s.db.query(`SELECT name, size FROM artifacts WHERE task_run_id = $1`, [run.id])).rows;
  assert.deepEqual(art, [{ name: 'report.txt', size: '7' }]);
  // Any artifact name is stored (object keys are derived from it, not the name itself).
  const odd = await fetch(`${s.url}/api/runner/v1/task-runs/${run.id}/artifacts/${encodeURIComponent('my report é.txt')}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
    body: 'odd name',
  });
  assert.equal(odd.status, 201, await odd.text());
  assert.equal((await s.db.query(`SELECT count(*)::int AS n FROM artifacts WHERE task_run_id = $1 AND name = 'my report é.txt'`, [run.id])).rows[0].n, 1);
  // After completion, further reports change nothing.
  const again = await fetch(`${s.url}/api/runner/v1/task-runs/${run.id}/complete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ state: 'FAILED', exit_code: 1 }),
  });
  assert.deepEqual(await again.json(), { accepted: false });
  assert.equal((await s.waitEnded(ex.id)).state, 'SUCCESS');
});

// svc exec asks the gateway for two seconds whether a stop signal is a cancel; a loaded gateway can
// let it report FAILED instance_shutdown. A container stopped on cancel can also be killed after its
// grace before its runner reports, and its executor ends it FAILED executor_error. The engine knows
// better in both cases: the execution is CANCELLING.
for (const reason of ['instance_shutdown', 'executor_error'])
  test(`a task stopped while its execution is being cancelled, reported FAILED ${reason}, ends CANCELLED`, async () => {
    const ex = await s.trigger('remote', 'remote');
    await s.waitFor(ex.id, (e) => e.task_runs[0]?.state === 'QUEUED');
    const [run] = await claimTaskRuns(s.db, { instanceId: 'test-claimer', pools: ['remote-pool'], executorType: 'process', limit: 1, now: new Date() });
    assert.ok(run, 'claimed');
    const token = signRunToken(await loadRunTokenKey(s.db), run.id, new Date(Date.now() + 3600_000));
    assert.equal((await s.api('POST', `/api/v1/executions/${ex.id}/cancel`)).status, 200);
    await s.waitFor(ex.id, (e) => e.state === 'CANCELLING');
    const complete = await fetch(`${s.url}/api/runner/v1/task-runs/${run.id}/complete`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'FAILED', reason, error: 'the task was stopped', exit_code: 143 }),
    });
    assert.deepEqual(await complete.json(), { accepted: true });
    const done = await s.waitEnded(ex.id);
    assert.equal(done.state, 'CANCELLED');
    assert.equal(done.task_runs.length, 1, 'no retry of a cancelled run');
    assert.equal(done.task_runs[0].state, 'CANCELLED');
    assert.equal(done.task_runs[0].reason, 'cancelled');
  });

test('a runner stopped by a signal outside a cancel still ends FAILED instance_shutdown', async () => {
  const ex = await s.trigger('remote', 'remote');
  await s.waitFor(ex.id, (e) => e.task_runs[0]?.state === 'QUEUED');
  const [run] = await claimTaskRuns(s.db, { instanceId: 'test-claimer', pools: ['remote-pool'], executorType: 'process', limit: 1, now: new Date() });
  const token = signRunToken(await loadRunTokenKey(s.db), run!.id, new Date(Date.now() + 3600_000));
  const complete = await fetch(`${s.url}/api/runner/v1/task-runs/${run!.id}/complete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ state: 'FAILED', reason: 'instance_shutdown', error: 'the runner was stopped while the task ran', exit_code: 143 }),
  });
  assert.deepEqual(await complete.json(), { accepted: true });
  const done = await s.waitEnded(ex.id);
  assert.equal(done.state, 'FAILED');
  assert.equal(done.task_runs[0].reason, 'instance_shutdown');
});
