// svc executions approve|reject|pause|resume as subprocesses against a real
// stack: an approve with --input (typed by the gate's form) lets the next
// task run and read the decision; a required field left out is the server's
// validation_failed naming it; a reject ends the task FAILED rejected and
// runs the failure branch; pause holds the next task until resume; an
// unknown task is task_not_found. `svc executions get` shows the waiting
// gate and the pause.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, sleep, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
const NS = 'cli.gates';
const ME = 'e2e@example.com'; // the stack's admin, whose token the CLI uses
const sh = (script: string) => JSON.stringify(['sh', '-c', script]);
// The first task of \`steps\` runs until the test creates this file (once it has paused the execution);
// its directory is open to every user, as tasks may run as SVC_TASK_USER.
const GO_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-gates-'));
fs.chmodSync(GO_DIR, 0o1777);
const GO = path.join(GO_DIR, 'go');

before(async () => {
  s = await startStack({ maintenance: false });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await s.saveFlow(NS, {
    'release.flow.yaml': `id: release
tasks:
  - id: build
    type: command
    command: ["echo", "built"]
  - id: deploy
    type: command
    depends_on: [build]
    approval:
      approvers: { role: operator, groups: [release-managers] }
      timeout: 24h
      form:
        - { id: ticket, type: string, required: true, description: Change ticket }
        - { id: canary, type: number }
        - { id: notify, type: boolean }
    command: ["echo", "deployed"]
  - id: announce
    type: command
    depends_on: [deploy]
    env:
      BY: "{{ tasks.deploy.approval.by }}"
      TICKET: "{{ tasks.deploy.approval.inputs.ticket }}"
      CANARY: "{{ tasks.deploy.approval.inputs.canary }}"
    command: ${sh('echo "released $TICKET by $BY at canary $CANARY"')}
  - id: rollback
    type: command
    depends_on: [deploy]
    run_if: failure
    command: ["echo", "rolled back"]
`,
    'steps.flow.yaml': `id: steps
tasks:
  - id: first
    type: command
    command: ${sh(`while [ ! -f ${GO} ]; do sleep 0.05; done; echo first done`)}
  - id: second
    type: command
    depends_on: [first]
    command: ["echo", "second done"]
`,
  });
});
after(async () => {
  await s?.stop();
  home.cleanup();
});

const runOf = (e: any, task: string) =>
  (e.task_runs ?? []).filter((r: any) => r.task_key === task && (r.item_index ?? null) === null).sort((a: any, b: any) => b.attempt - a.attempt)[0];

/** Starts `flow` with the CLI and waits until its deploy task waits at the gate. */
async function atTheGate(flow = 'release'): Promise<string> {
  const started = await svc(['run', `${NS}/${flow}`], { env });
  assert.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();
  await s.waitFor(id, (e) => runOf(e, 'deploy')?.reason === 'awaiting_approval');
  return id;
}

test('get shows the waiting gate; approve with --input sends typed form values and the next task runs with them', async () => {
  const id = await atTheGate();

  const get = await svc(['executions', 'get', id], { env });
  assert.equal(get.code, 0, get.stderr);
  assert.match(get.stdout, /^state:\s+RUNNING/m);
  assert.match(get.stdout, /^TASK\s+ATTEMPT\s+STATE\s+REASON\s+APPROVAL\s+DURATION/m);
  assert.match(
    get.stdout,
    /^deploy\s+1\s+PENDING\s+awaiting_approval\s+awaiting approval by operator or above, or a member of release-managers; deadline \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(then fail\)/m,
  );
  assert.match(get.stdout, /^deploy awaits approval\napprovers: operator or above, or a member of release-managers\ndeadline: {2}\S+ \S+ UTC, then fail\n/m);
  assert.match(get.stdout, /^form: {6}ticket \(string, required\): Change ticket\n {11}canary \(number\)\n {11}notify \(boolean\)$/m);
  assert.match(get.stdout, new RegExp(`^approve: {3}svc executions approve ${id} --task deploy --input ticket=\\.\\.\\.$`, 'm'));
  // -o json: the API's body unchanged, the gate included.
  const json = await svc(['executions', 'get', id, '-o', 'json'], { env });
  assert.deepEqual(JSON.parse(json.stdout), (await s.api('GET', `/api/v1/executions/${id}`)).body);
  assert.equal(runOf(JSON.parse(json.stdout), 'deploy').approval.status, 'pending');

  // A value the form types as a number is checked before anything is sent (a usage error).
  const notANumber = await svc(['executions', 'approve', id, '--task', 'deploy', '--input', 'ticket=CHG-1', '--input', 'canary=lots'], { env });
  assert.equal(notANumber.code, 2, notANumber.stderr);
  assert.match(notANumber.stderr, /input canary is a number, got "lots"/);

  // The required field left out: the server refuses, naming it; nothing is decided.
  const missing = await svc(['executions', 'approve', id, '--task', 'deploy', '--input', 'canary=5'], { env });
  assert.equal(missing.code, 1, missing.stderr);
  assert.match(missing.stderr, /\(code validation_failed, HTTP 422/);
  assert.match(missing.stderr, /^ {2}inputs\.ticket: /m);
  assert.equal(runOf((await s.api('GET', `/api/v1/executions/${id}`)).body, 'deploy').approval.status, 'pending');

  const ok = await svc(['executions', 'approve', id, '--task', 'deploy', '--input', 'ticket=CHG-1', '--input', 'canary=10', '-i', 'notify=true', '--comment', 'window agreed'], {
    env,
  });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, '');
  assert.match(ok.stderr, new RegExp(`^task deploy approved by ${ME} \\(ticket=CHG-1, canary=10, notify=true, comment "window agreed"\\): now (QUEUED|RUNNING|SUCCESS)`, 'm'));

  const end = await s.waitEnded(id);
  assert.equal(end.state, 'SUCCESS');
  const gate = runOf(end, 'deploy').approval;
  assert.equal(gate.status, 'approved');
  assert.equal(gate.by, ME);
  // Typed by the form: the number and the boolean arrive as such.
  assert.deepEqual(gate.inputs, { ticket: 'CHG-1', canary: 10, notify: true });
  assert.equal(gate.comment, 'window agreed');
  assert.equal(runOf(end, 'announce').state, 'SUCCESS');
  assert.equal(runOf(end, 'rollback').state, 'SKIPPED');
  // The next task read the decision: who approved and the form's values.
  const logs = await svc(['executions', 'logs', id, '--task', 'announce'], { env });
  assert.match(logs.stdout, new RegExp(`released CHG-1 by ${ME} at canary 10`));

  const after = await svc(['executions', 'get', id], { env });
  assert.match(after.stdout, new RegExp(`^deploy\\s+1\\s+SUCCESS\\s+.*approved by ${ME} at \\d{4}-`, 'm'));
  assert.doesNotMatch(after.stdout, /awaits approval/);

  // Decided once: a second approve is the server's not_awaiting_approval.
  const again = await svc(['executions', 'approve', id, '--task', 'deploy', '--input', 'ticket=CHG-2'], { env });
  assert.equal(again.code, 1);
  assert.match(again.stderr, /code not_awaiting_approval, HTTP 409/);
});

test('reject ends the task FAILED rejected and the failure branch runs; -o json prints the execution', async () => {
  const id = await atTheGate();
  const r = await svc(['executions', 'reject', id, '--task', 'deploy', '--comment', 'not this week', '-o', 'json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout);
  assert.equal(body.id, id);
  const deploy = runOf(body, 'deploy');
  assert.equal(deploy.state, 'FAILED');
  assert.equal(deploy.reason, 'rejected');
  assert.equal(deploy.approval.comment, 'not this week');
  assert.match(r.stderr, new RegExp(`^task deploy rejected by ${ME} \\(comment "not this week"\\): now FAILED \\(rejected\\)$`, 'm'));

  const end = await s.waitEnded(id);
  assert.equal(runOf(end, 'rollback').state, 'SUCCESS');
  assert.equal(runOf(end, 'announce').state, 'SKIPPED');
  const get = await svc(['executions', 'get', id], { env });
  assert.match(get.stdout, new RegExp(`^deploy\\s+1\\s+FAILED\\s+rejected\\s+rejected by ${ME} at `, 'm'));
});

test('pause holds the next task run until resume; get says who paused it', async () => {
  const started = await svc(['run', `${NS}/steps`], { env });
  assert.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();
  await s.waitFor(id, (e) => runOf(e, 'first')?.state === 'RUNNING');

  const pause = await svc(['executions', 'pause', id], { env });
  assert.equal(pause.code, 0, pause.stderr);
  assert.match(pause.stderr, new RegExp(`^execution ${id} is RUNNING, paused by ${ME} since \\d{4}-`, 'm'));
  const get = await svc(['executions', 'get', id], { env });
  assert.match(get.stdout, new RegExp(`^state:\\s+RUNNING \\(paused by ${ME} since \\d{4}-`, 'm'));

  // The running task finishes; the next one does not start while paused.
  fs.writeFileSync(GO, '');
  await s.waitFor(id, (e) => runOf(e, 'first')?.state === 'SUCCESS');
  await sleep(1500);
  const held = (await s.api('GET', `/api/v1/executions/${id}`)).body;
  assert.equal(held.state, 'RUNNING');
  assert.equal(held.paused, true);
  assert.ok(!['QUEUED', 'RUNNING', 'SUCCESS'].includes(runOf(held, 'second')?.state), JSON.stringify(runOf(held, 'second')));

  const resume = await svc(['executions', 'resume', id, '-o', 'json'], { env });
  assert.equal(resume.code, 0, resume.stderr);
  assert.equal(JSON.parse(resume.stdout).paused, false);
  assert.match(resume.stderr, new RegExp(`^execution ${id} is RUNNING, not paused$`, 'm'));
  const end = await s.waitEnded(id);
  assert.equal(end.state, 'SUCCESS');
  assert.equal(runOf(end, 'second').state, 'SUCCESS');

  // An ended execution cannot be paused: the server's code, exit code 1.
  const late = await svc(['executions', 'pause', id], { env });
  assert.equal(late.code, 1);
  assert.match(late.stderr, /code execution_ended, HTTP 409/);
});

test('an unknown task is task_not_found, with or without --input', async () => {
  const id = await atTheGate();
  for (const extra of [[], ['--input', 'ticket=CHG-1']]) {
    const r = await svc(['executions', 'approve', id, '--task', 'nope', ...extra], { env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /\(code task_not_found, HTTP 404/);
  }
  const rej = await svc(['executions', 'reject', id, '--task', 'nope'], { env });
  assert.equal(rej.code, 1);
  assert.match(rej.stderr, /\(code task_not_found, HTTP 404/);
  const gone = await svc(['executions', 'approve', '01nonexistent0000000000000', '--task', 'deploy'], { env });
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /\(code execution_not_found, HTTP 404/);
  // Still waiting: nothing above decided anything.
  assert.equal(runOf((await s.api('GET', `/api/v1/executions/${id}`)).body, 'deploy').approval.status, 'pending');
  await svc(['executions', 'cancel', id], { env });
});
