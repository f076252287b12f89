// Fault injection: runners cut off from the api for 30 s. Six `svc exec`
// runners (the runner of docker and kubernetes tasks, here as plain
// processes) talk to the gateway through a TCP proxy; their task runs are
// claimed the way a dispatcher claims them, by an instance this test
// registers and keeps heartbeating (a dispatcher that is alive while its
// runners' network is cut). The tasks print numbered lines for 2 to 45 s and
// leave an artifact and an output. A few seconds after every runner has
// started its task, the proxy blackholes
// every connection for 15 s (bytes held, requests hang), then resets every
// connection for 15 s (the api gone), then lets everything through again: the
// shortest run may end before the cut, two end during it (their last lines
// and their completion wait), three run across it. After: every runner exits 0, every
// execution succeeds, every line the tasks printed is stored once and in
// order, artifacts and outputs arrived, nothing is left RUNNING, and the
// dashboard agrees with a recount.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { heartbeatInstance, markInstanceStopped, registerInstance } from '@svc/db';
import { claimTaskRuns, loadRunTokenKey, signRunToken } from '@svc/engine/internal';
import { root, startStack, type Stack } from './stack.js';
import { flow, sh, sleep, until } from './engine-support.js';
import { checkDashboard, drain, q } from './faults/invariants.js';
import { startTcpProxy, type TcpProxy } from './faults/tcp-proxy.js';

const NS = 'runner-cut';
const HOST = 'faults-runner-host';
/** Lines and seconds between them, per run: the first may end before the cut, two end during it, three after it. */
const RUNS = [
  { lines: 20, pause: 0.1 },
  { lines: 60, pause: 0.25 },
  { lines: 80, pause: 0.25 },
  { lines: 150, pause: 0.3 },
  { lines: 150, pause: 0.3 },
  { lines: 300, pause: 0.15 },
];
const CUT_AT_MS = 4_000;
const BLACKHOLE_MS = 15_000;
const REFUSE_MS = 15_000;

let s: Stack;
let proxy: TcpProxy;
let beat: NodeJS.Timeout | undefined;

before(async () => {
  s = await startStack({ dispatchers: 0 });
  proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(s.url).port) });
  await s.saveFlow(NS, {
    'remote.flow.yaml': flow({
      id: 'remote',
      inputs: [
        { id: 'lines', type: 'int' },
        { id: 'pause', type: 'number' },
      ],
      tasks: [
        {
          id: 'work',
          type: 'command',
          executor: { type: 'process', pool: 'remote' },
          env: { N: '{{ inputs.lines }}', PAUSE: '{{ inputs.pause }}' },
          command: sh(
            'i=1; while [ $i -le $N ]; do echo "line $i of $N"; i=$((i+1)); sleep $PAUSE; done; ' +
              'echo "report of $SVC_TASK_RUN_ID" > "$SVC_ARTIFACTS_DIR/report.txt"; ' +
              'printf \'{"outputs": {"printed": %s}}\\n\' "$N" >> "$SVC_OUTPUTS"',
          ),
        },
      ],
    }),
  });
  // The dispatcher of the runners' pool: alive (heartbeating) throughout, so nothing is `lost`.
  await registerInstance(s.db, { id: HOST, kind: 'dispatcher', hostname: 'faults', version: 'test', pools: ['remote'], executors: ['process'] });
  beat = setInterval(() => void heartbeatInstance(s.db, HOST).catch(() => undefined), 5_000);
});
after(async () => {
  clearInterval(beat);
  await markInstanceStopped(s.db, HOST).catch(() => undefined);
  await proxy?.close();
  await s?.stop();
});

function svcExec(taskRunId: string, token: string): Promise<{ code: number | null; out: string; endedAt: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'apps/runner/dist/main.js'), '--server', `http://${proxy.host}`, '--task-run', taskRunId], {
      env: { PATH: process.env.PATH, SVC_RUN_TOKEN: token, SVC_WORK_ROOT: s.dataDir },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out, endedAt: Date.now() }));
  });
}

test('runners cut off from the api for 30 s (15 s blackholed, 15 s refused) lose no line, artifact, output or completion', async (t) => {
  const ids: string[] = [];
  for (const r of RUNS) ids.push((await s.trigger(NS, 'remote', { inputs: { lines: r.lines, pause: r.pause } })).id);
  await until('every run queued', async () => (await q(s, `SELECT count(*)::int AS n FROM task_runs WHERE state = 'QUEUED' AND pool = 'remote'`))[0].n === RUNS.length);
  const runs = await claimTaskRuns(s.db, { instanceId: HOST, pools: ['remote'], executorType: 'process', limit: RUNS.length, now: new Date() });
  assert.equal(runs.length, RUNS.length);
  const key = await loadRunTokenKey(s.db);
  const started = Date.now();
  const runners = runs.map((r) => ({ run: r, done: svcExec(r.id, signRunToken(key, r.id, new Date(Date.now() + 3600_000))) }));

  // Every runner has started its task (a first line is stored), then a few seconds more.
  await until(
    'every runner started',
    async () => (await q(s, `SELECT count(DISTINCT task_run_id)::int AS n FROM log_lines WHERE execution_id = ANY($1)`, [ids]))[0].n === RUNS.length,
    60_000,
    100,
  );
  await sleep(CUT_AT_MS);
  const linesAtCut = (await q(s, `SELECT count(*)::int AS n FROM log_lines WHERE execution_id = ANY($1)`, [ids]))[0].n;
  proxy.setMode('blackhole');
  const cutAt = Date.now();
  await sleep(BLACKHOLE_MS);
  const linesAfterBlackhole = (await q(s, `SELECT count(*)::int AS n FROM log_lines WHERE execution_id = ANY($1)`, [ids]))[0].n;
  proxy.setMode('refuse');
  await sleep(REFUSE_MS);
  const linesAfterRefuse = (await q(s, `SELECT count(*)::int AS n FROM log_lines WHERE execution_id = ANY($1)`, [ids]))[0].n;
  proxy.setMode('open');
  const reopenedAt = Date.now();
  const cutStats = proxy.stats();

  const results = await Promise.all(runners.map((r) => r.done));
  for (const r of results) assert.equal(r.code, 0, r.out);
  const drainMs = await drain(s, NS);
  const lastRunnerAfterReopenMs = Math.max(...results.map((r) => r.endedAt)) - reopenedAt;

  for (const [i, id] of ids.entries()) {
    const ex = (await s.api('GET', `/api/v1/executions/${id}`)).body;
    assert.equal(ex.state, 'SUCCESS', JSON.stringify(ex));
    const [tr] = ex.task_runs;
    assert.equal(ex.task_runs.length, 1, 'one attempt: the cut failed nothing');
    assert.deepEqual(tr.outputs, { printed: RUNS[i]!.lines });
    const lines = await q(s, `SELECT n, text FROM log_lines WHERE task_run_id = $1 AND stream = 'stdout' ORDER BY n`, [tr.id]);
    assert.deepEqual(
      lines.map((l) => l.text),
      Array.from({ length: RUNS[i]!.lines }, (_, k) => `line ${k + 1} of ${RUNS[i]!.lines}`),
      `run ${i}: every printed line stored once, in order`,
    );
    const all = await q(s, `SELECT n FROM log_lines WHERE task_run_id = $1 ORDER BY n`, [tr.id]);
    assert.deepEqual(
      all.map((l) => l.n),
      all.map((_, k) => k + 1),
      `run ${i}: line numbers without a gap`,
    );
    const art = await q(s, `SELECT id FROM artifacts WHERE task_run_id = $1 AND name = 'report.txt'`, [tr.id]);
    assert.equal(art.length, 1, `run ${i}: its artifact`);
    const body = await (await fetch(`${s.url}/api/v1/executions/${id}/artifacts/${art[0].id}`, { headers: { authorization: `Bearer ${s.token}` } })).text();
    assert.equal(body, `report of ${tr.id}\n`);
  }
  assert.equal((await q(s, `SELECT count(*)::int AS n FROM executions WHERE namespace = $1`, [NS]))[0].n, RUNS.length, 'no execution doubled');
  assert.deepEqual(await q(s, `SELECT id FROM task_runs WHERE state IN ('PENDING', 'QUEUED', 'RUNNING')`), [], 'nothing left running');
  await checkDashboard(s, NS);
  // The cut was real: no line got through while it lasted, and the runners retried through it.
  assert.equal(linesAfterRefuse, linesAfterBlackhole, 'no line stored while the api was refused');
  assert.ok(cutStats.reset > 0, 'connections were reset');
  const ended = results.map((r) => Math.round((r.endedAt - started) / 1000));
  t.diagnostic(
    JSON.stringify({
      fault: `runner to api: ${BLACKHOLE_MS / 1000} s blackhole then ${REFUSE_MS / 1000} s refused`,
      runners: RUNS.length,
      linesPrinted: RUNS.reduce((a, r) => a + r.lines, 0),
      linesStoredAtCut: linesAtCut,
      linesStoredDuringBlackhole: linesAfterBlackhole - linesAtCut,
      linesStoredDuringRefusal: linesAfterRefuse - linesAfterBlackhole,
      connections: cutStats,
      runnerExitSecondsFromStart: ended,
      cutStartedAtS: Math.round((cutAt - started) / 1000),
      lastRunnerAfterReopenMs,
      drainMs,
    }),
  );
});
