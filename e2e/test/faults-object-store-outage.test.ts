// Fault injection: the object store fails. The stack stores its files,
// bundles and artifacts on an S3 store (a real s3rver in this process) that
// it reaches through a TCP proxy; in the middle of a busy run of 100
// executions whose tasks each upload an artifact, the proxy resets every
// connection for OUTAGE_MS (the store is gone), then lets them through again.
// Logs are not kept in the object store (they are rows: log_lines), so the
// outage touches the artifacts, the bundles and namespace saves. After the
// run: every invariant of faults/invariants.ts holds, every task that
// succeeded has its artifact stored and downloadable with the right bytes,
// /readyz said `storage` failed during the outage and passes after it, and a
// save refused during the outage left no version behind and works after it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import S3rver from 's3rver';
import { startStack, type Stack } from './stack.js';
import { sleep, until } from './engine-support.js';
import { keepSchedulesDue, setUpBusy, startHttpTarget, submitBusy, type HttpTarget } from './faults/busy-run.js';
import { checkRound, drain, q } from './faults/invariants.js';
import { startTcpProxy, type TcpProxy } from './faults/tcp-proxy.js';

const EXECUTIONS = 100;
const OUTAGE_MS = 20_000;

let s: Stack;
let target: HttpTarget;
let s3: S3rver;
let s3dir: string;
let proxy: TcpProxy;

before(async () => {
  s3dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-faults-s3-'));
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3dir });
  const { port } = await s3.run();
  proxy = await startTcpProxy({ host: '127.0.0.1', port });
  target = await startHttpTarget();
  s = await startStack({ dispatchers: 2, env: { SVC_STORAGE_URL: `s3://S3RVER:S3RVER@127.0.0.1:${proxy.port}/svc-faults?ssl=false` } });
  s.startApp('scheduler');
});
after(async () => {
  await s?.stop();
  await proxy?.close();
  await s3?.close();
  await target?.close();
  fs.rmSync(s3dir, { recursive: true, force: true });
});

const readyz = async () => {
  const r = await fetch(`${s.url}/readyz`);
  return { status: r.status, body: (await r.json()) as { failed?: string[] } };
};

test('the object store down for 20 s mid-run: artifacts survive, saves fail cleanly, readiness tells; nothing lost, nothing stuck, nothing doubled', async (t) => {
  const ns = 'store-outage';
  const hookKey = await setUpBusy(s, ns, target.url, { artifact: true });
  assert.equal((await readyz()).status, 200);
  const stopSchedules = keepSchedulesDue(s, ns);
  const run = submitBusy(s, ns, { count: EXECUTIONS, webhookKey: hookKey });
  await until('the run to be busy', async () => run.sent() >= EXECUTIONS / 3, 180_000, 100);
  const versionsBefore = (await q(s, `SELECT count(*)::int AS n FROM namespace_versions WHERE namespace = $1`, [ns]))[0].n;

  proxy.setMode('refuse');
  const outageAt = Date.now();
  const notReady = await until(
    '/readyz to report the store',
    async () => {
      const r = await readyz();
      return r.status === 503 ? r : undefined;
    },
    15_000,
    200,
  );
  // A save while the store is down: refused with the envelope, and no version is left behind.
  const save = await s.api('POST', `/api/v1/namespaces/${ns}/changes`, {
    message: 'during the outage',
    changes: [{ op: 'put', path: 'notes/outage.txt', content: `written at ${Date.now()}` }],
  });
  await sleep(Math.max(0, OUTAGE_MS - (Date.now() - outageAt)));
  proxy.setMode('open');
  const resets = proxy.stats().reset;
  await until('/readyz to pass again', async () => (await readyz()).status === 200, 30_000, 200);
  const readyAfterMs = Date.now() - outageAt - OUTAGE_MS;

  assert.deepEqual(notReady.body.failed, ['storage'], JSON.stringify(notReady.body));
  assert.ok(save.status >= 500, `a save without the store fails: ${save.status} ${JSON.stringify(save.body)}`);
  assert.equal(typeof save.body?.error?.code, 'string', 'in the error envelope');
  assert.equal((await q(s, `SELECT count(*)::int AS n FROM namespace_versions WHERE namespace = $1`, [ns]))[0].n, versionsBefore, 'no version from the refused save');

  const subs = await run.done;
  await stopSchedules();
  assert.equal((await s.api('PATCH', `/api/v1/flows/${ns}/busy`, { enabled: false })).status, 200);
  const drainMs = await drain(s, ns);
  const figures = await checkRound(s, ns, subs, { httpCalls: (k) => target.calls.get(k) ?? 0 });
  figures.drainMs = drainMs;

  // Every `lines` run that succeeded has its artifact, and the store gives back its bytes.
  const arts = await q(
    s,
    `SELECT t.id AS task_run, t.execution_id, a.id AS artifact FROM task_runs t JOIN executions e ON e.id = t.execution_id
     LEFT JOIN artifacts a ON a.task_run_id = t.id AND a.name = 'report.txt'
     WHERE e.namespace = $1 AND t.task_key = 'lines' AND t.state = 'SUCCESS'`,
    [ns],
  );
  assert.deepEqual(
    arts.filter((a) => !a.artifact),
    [],
    'every succeeded task has its artifact row',
  );
  for (const a of arts) {
    const r = await fetch(`${s.url}/api/v1/executions/${a.execution_id}/artifacts/${a.artifact}`, { headers: { authorization: `Bearer ${s.token}` } });
    assert.equal(r.status, 200, `artifact of ${a.task_run}`);
    assert.equal(await r.text(), `report of ${a.task_run}\n`);
  }
  // Saving works again.
  const again = await s.api('POST', `/api/v1/namespaces/${ns}/changes`, { message: 'after the outage', changes: [{ op: 'put', path: 'notes/outage.txt', content: 'after' }] });
  assert.equal(again.status, 201, JSON.stringify(again.body));

  const artifactRetries = s.procs.reduce((n, p) => n + (p.output().match(/cannot store an artifact; retrying/g)?.length ?? 0), 0);
  const failedRuns = await q(s, `SELECT t.reason, t.error FROM task_runs t JOIN executions e ON e.id = t.execution_id WHERE e.namespace = $1 AND t.reason = 'executor_error'`, [
    ns,
  ]);
  t.diagnostic(
    JSON.stringify({
      fault: `object store connections reset for ${OUTAGE_MS / 1000} s`,
      connectionsReset: resets,
      readyzFailedWith: notReady.body,
      saveDuringOutage: { status: save.status, code: save.body?.error?.code },
      readyAfterMs,
      artifactsChecked: arts.length,
      artifactUploadRetries: artifactRetries,
      executorErrors: failedRuns.length,
      executorErrorSample: failedRuns[0]?.error,
      ...figures,
    }),
  );
  assert.equal(figures.submissions.acknowledged, EXECUTIONS);
  assert.ok(artifactRetries > 0, 'artifact uploads met the outage and were retried');
});
