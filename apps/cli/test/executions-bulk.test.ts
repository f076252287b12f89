// svc executions bulk cancel|rerun|restart as subprocesses against a real
// stack: --dry-run counts and lists what the action would refuse and changes
// nothing; without --yes and without a terminal the dry run's count is shown
// and the command stops (exit 2); --yes restarts the failed ones and reports
// the refused one; -o json is the API's answer; a bulk cancel stops running
// executions; an empty filter and a bad --since are refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
const NS = 'cli.bulk';
// Open to every user: tasks may run as SVC_TASK_USER.
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-bulk-'));
fs.chmodSync(DIR, 0o1777);
const OK = path.join(DIR, 'ok');

before(async () => {
  s = await startStack({ maintenance: false });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await s.saveFlow(NS, {
    'flaky.flow.yaml': `id: flaky
tasks:
  - id: check
    type: command
    command: ["test", "-f", "${OK}"]
`,
    'long.flow.yaml': `id: long
tasks:
  - id: wait
    type: command
    command: ["sleep", "300"]
`,
  });
});
after(async () => {
  await s?.stop();
  home.cleanup();
  fs.rmSync(DIR, { recursive: true, force: true });
});

const executionCount = async () => Number((await s.db.query(`SELECT count(*) AS n FROM executions`)).rows[0].n);

test('dry run, the refusal without --yes off a terminal, then --yes: failed executions restarted, the successful one reported', async () => {
  const failed: string[] = [];
  for (let i = 0; i < 3; i++) failed.push((await s.trigger(NS, 'flaky', { labels: { wave: 'w1' } })).id);
  for (const id of failed) assert.equal((await s.waitEnded(id)).state, 'FAILED');
  fs.writeFileSync(OK, '');
  const good = (await s.trigger(NS, 'flaky', { labels: { wave: 'w1' } })).id;
  assert.equal((await s.waitEnded(good)).state, 'SUCCESS');
  const before = await executionCount();
  const filter = ['--namespace', NS, '--label', 'wave=w1', '--since', '1h'];

  const dry = await svc(['executions', 'bulk', 'restart', ...filter, '--dry-run'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stderr, /^4 execution\(s\) match; 3 would be restarted, 1 refused by their state$/m);
  assert.match(dry.stdout, /^ID\s+FLOW\s+STATE\s+REFUSED/m);
  assert.match(dry.stdout, new RegExp(`^${good}\\s+${NS}/flaky\\s+SUCCESS\\s+not_restartable`, 'm'));
  const dryJson = await svc(['executions', 'bulk', 'restart', ...filter, '--dry-run', '-o', 'json'], { env });
  assert.equal(dryJson.code, 0, dryJson.stderr);
  assert.deepEqual((({ matched, eligible, dry_run }) => ({ matched, eligible, dry_run }))(JSON.parse(dryJson.stdout)), { matched: 4, eligible: 3, dry_run: true });

  // No --yes, no terminal (stdin is a pipe): the count, then a usage error; nothing restarted.
  const asked = await svc(['executions', 'bulk', 'restart', ...filter], { env });
  assert.equal(asked.code, 2, asked.stderr);
  assert.match(asked.stderr, /4 execution\(s\) match; 3 would be restarted/);
  assert.match(asked.stderr, /needs --yes when there is no terminal to confirm on/);
  assert.equal(await executionCount(), before);

  const done = await svc(['executions', 'bulk', 'restart', ...filter, '--yes'], { env });
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stderr, /^restarted 3 of 4 matched execution\(s\); 1 not \(see RESULT\)$/m);
  assert.match(done.stdout, /^ID\s+RESULT\s+NEW EXECUTION/m);
  assert.match(done.stdout, new RegExp(`^${good}\\s+not_restartable\\s+`, 'm'));
  for (const id of failed) assert.match(done.stdout, new RegExp(`^${id}\\s+ok\\s+\\S+`, 'm'));
  assert.equal(await executionCount(), before + 3);
  const restarted = (await s.db.query(`SELECT id, restart_of_id FROM executions WHERE restart_of_id = ANY($1)`, [failed])).rows;
  assert.equal(restarted.length, 3);
  for (const r of restarted) assert.equal((await s.waitEnded(r.id)).state, 'SUCCESS');
  const audit = await s.db.query(`SELECT count(*) AS n FROM audit_events WHERE action = 'execution.restart' AND target_id = ANY($1)`, [failed]);
  assert.equal(Number(audit.rows[0].n), 3);
});

test('bulk cancel --yes -o json stops the running executions of a flow; an empty filter and a bad --since are refused', async () => {
  const running: string[] = [];
  for (let i = 0; i < 2; i++) running.push((await s.trigger(NS, 'long')).id);
  for (const id of running) await s.waitFor(id, (e) => e.state === 'RUNNING');

  const r = await svc(['executions', 'bulk', 'cancel', '--flow', `${NS}/long`, '--state', 'running', '--yes', '-o', 'json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout);
  assert.equal(body.action, 'cancel');
  assert.equal(body.matched, 2);
  assert.deepEqual(body.results.map((x: any) => x.execution_id).sort(), [...running].sort());
  for (const id of running) assert.equal((await s.waitEnded(id)).state, 'CANCELLED');

  const empty = await svc(['executions', 'bulk', 'cancel', '--yes'], { env });
  assert.equal(empty.code, 1, empty.stderr);
  assert.match(empty.stderr, /validation_failed, HTTP 422/);
  assert.match(empty.stderr, /filter: is empty/);

  const bad = await svc(['executions', 'bulk', 'cancel', '--namespace', NS, '--since', 'yesterday', '--yes'], { env });
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--since takes an ISO date or date-time/);
});
