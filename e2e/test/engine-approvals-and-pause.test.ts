// Approval gates and pause/resume (extensions) on a real stack with real
// processes. A release flow `build -> deploy (approval) -> announce`, with a
// `rollback` on failure: while deploy waits (PENDING awaiting_approval, the
// execution RUNNING, nothing dispatched), a viewer bound on the namespace and
// an operator bound on another namespace get 403, the person who started the
// execution is refused (forbid_self_approval), a missing form field is 422,
// and MCP offers no approval tool and cannot run one; the bound operator
// approves and deploy starts within a second, announce reads who approved
// and the ticket. A reject runs the failure branch; a member of the gate's
// IdP group may approve with only a viewer role; gate timeouts (a short
// `timeout`, the maintenance holder's clock) apply on_timeout skip and
// approve; an approval alert reaches a webhook; kill -9 of the gateway,
// dispatcher and maintenance during a wait loses nothing, and two
// approvals sent at once apply once. Pause holds new task runs (running ones
// finish), keeps the concurrency slot, resume goes on, cancel works paused.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { boundUser, startStack, type Stack } from './stack.js';
import { auditOf, emit, flow, ms, run, sh, sleep, until } from './engine-support.js';
import { gatewayUp, kill9, online, procsOf } from './faults/apps.js';

const NS = 'rel';
let s: Stack;
let viewer: { id: string; token: string };
let outsider: { id: string; token: string };
let operator: { id: string; token: string };
let member: { id: string; token: string };
let hook: http.Server;
const hooks: string[] = [];

const gate = (extra: Record<string, unknown> = {}) => ({
  approvers: { role: 'operator', groups: ['release-managers'] },
  form: [{ id: 'ticket', type: 'string', required: true, description: 'Change ticket' }],
  forbid_self_approval: true,
  ...extra,
});

const release = (id: string, approval: Record<string, unknown>, ticket = '{{ tasks.deploy.approval.inputs.ticket }}') =>
  flow({
    id,
    tasks: [
      { id: 'build', type: 'command', command: ['true'] },
      { id: 'deploy', type: 'command', depends_on: ['build'], approval, command: sh(emit({ deployed: true })) },
      {
        id: 'announce',
        type: 'command',
        depends_on: ['deploy'],
        env: { BY: '{{ tasks.deploy.approval.by }}', TICKET: ticket, STATUS: '{{ tasks.deploy.approval.status }}' },
        command: sh(`printf '{"outputs": {"by": "%s", "ticket": "%s", "status": "%s"}}\\n' "$BY" "$TICKET" "$STATUS" >> "$SVC_OUTPUTS"`),
      },
      { id: 'rollback', type: 'command', depends_on: ['deploy'], run_if: 'failure', command: ['true'] },
    ],
  });

/** An API call with a bearer token of one of the test's users. */
async function as(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

const approve = (token: string, id: string, body: unknown = { inputs: { ticket: 'CHG-1' } }) => as(token, 'POST', `/api/v1/executions/${id}/tasks/deploy/approve`, body);

/** Waits until deploy waits for approval; returns the execution. */
const waiting = (id: string) => s.waitFor(id, (e) => run(e, 'deploy').reason === 'awaiting_approval', 60_000);

before(async () => {
  hook = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hooks.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  s = await startStack({ env: { SVC_ALERT_ALLOW_PRIVATE_TARGETS: 'true' } });
  for (const ns of [NS, 'other']) assert.equal((await s.api('POST', '/api/v1/namespaces', { name: ns })).status, 201);
  await s.saveFlow(NS, {
    'release.flow.yaml': release('release', gate()),
    'skip.flow.yaml': release('skip', gate({ timeout: '1s', on_timeout: 'skip', form: [] }), 'none'),
    'auto.flow.yaml': release('auto', gate({ timeout: '1s', on_timeout: 'approve', form: [] }), 'none'),
    // A gate on a task with no dependency: it waits from the execution's start.
    'first.flow.yaml': flow({
      id: 'first',
      tasks: [
        { id: 'deploy', type: 'command', approval: { approvers: { role: 'operator' } }, command: ['true'] },
        { id: 'after', type: 'command', depends_on: ['deploy'], command: ['true'] },
      ],
    }),
    'long.flow.yaml': flow({
      id: 'long',
      concurrency: { limit: 1, behavior: 'queue' },
      tasks: [
        { id: 'a', type: 'command', command: sh('sleep 2') },
        { id: 'b', type: 'command', depends_on: ['a'], command: ['true'] },
        { id: 'c', type: 'command', depends_on: ['b'], command: ['true'] },
      ],
    }),
  });
  await s.saveFlow('other', { 'o.flow.yaml': flow({ id: 'o', tasks: [{ id: 't', type: 'command', command: ['true'] }] }) });
  viewer = await boundUser(s, { email: 'viewer@example.com', password: 'viewer password 1', namespace: NS, role: 'viewer', tokenName: 'v', tokenRole: 'viewer' });
  outsider = await boundUser(s, { email: 'outsider@example.com', password: 'outsider password 1', namespace: 'other', role: 'operator', tokenName: 'o', tokenRole: 'operator' });
  operator = await boundUser(s, { email: 'operator@example.com', password: 'operator password 1', namespace: NS, role: 'operator', tokenName: 'op', tokenRole: 'operator' });
  member = await boundUser(s, { email: 'member@example.com', password: 'member password 1', namespace: NS, role: 'viewer', tokenName: 'm', tokenRole: 'viewer' });
  // The member's IdP groups, as a single sign-on records them.
  await s.db.query(`INSERT INTO user_groups (user_id, group_name) VALUES ($1, 'release-managers')`, [member.id]);
});
after(async () => {
  await s?.stop();
  await new Promise<void>((r) => hook?.close(() => r()));
});

test('a gate waits without dispatching; who may not approve gets 403; the bound operator approves and the next task starts within a second', async () => {
  assert.equal((await s.api('PUT', '/api/v1/secrets/ALERT_KEY', { value: 'whsec-approvals-1' })).status, 200);
  const alert = await s.api('POST', '/api/v1/alerts', {
    name: 'approvals',
    namespace: NS,
    events: ['approval_requested'],
    channels: [{ type: 'webhook', url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/svc`, signing_secret: 'ALERT_KEY' }],
  });
  assert.equal(alert.status, 201, JSON.stringify(alert.body));

  const ex = await s.trigger(NS, 'release');
  let e = await waiting(ex.id);
  assert.equal(e.state, 'RUNNING');
  const deploy = run(e, 'deploy');
  assert.equal(deploy.state, 'PENDING');
  assert.equal(deploy.approval.status, 'pending');
  assert.deepEqual(deploy.approval.approvers, { role: 'operator', groups: ['release-managers'] });
  assert.deepEqual(deploy.approval.form, [{ id: 'ticket', type: 'string', required: true, description: 'Change ticket' }]);
  assert.equal(run(e, 'build').state, 'SUCCESS');
  // Nothing is dispatched for it, and it holds no slot, for as long as it waits.
  await sleep(1000);
  e = (await s.api('GET', `/api/v1/executions/${ex.id}`)).body;
  assert.equal(run(e, 'deploy').state, 'PENDING');
  assert.equal(run(e, 'deploy').started_at ?? null, null);

  const refusals: [string, { status: number; body: any }][] = [
    ['a viewer bound on the namespace', await approve(viewer.token, ex.id)],
    ['an operator bound on another namespace', await approve(outsider.token, ex.id)],
    ['the person who started it (forbid_self_approval)', await approve(s.token, ex.id)],
  ];
  for (const [who, r] of refusals) assert.deepEqual([who, r.status, r.body.error.code], [who, 403, 'forbidden'], JSON.stringify(r.body));
  assert.match(refusals[2]![1].body.error.message, /self-approval/);
  assert.equal((await as(viewer.token, 'POST', `/api/v1/executions/${ex.id}/tasks/deploy/reject`, {})).status, 403);

  const missing = await approve(operator.token, ex.id, { inputs: {} });
  assert.equal(missing.status, 422);
  assert.deepEqual(missing.body.error.details, [{ field: 'inputs.ticket', message: 'ticket is required' }]);
  assert.equal((await approve(operator.token, ex.id, { inputs: { ticket: 7 } })).status, 422);
  assert.equal((await as(operator.token, 'POST', `/api/v1/executions/${ex.id}/tasks/nope/approve`, {})).body.error.code, 'task_not_found');

  // MCP: no approval tool is offered, and none runs (the operator's token, which may approve over the API).
  const mcp = async (method: string, params: unknown) => {
    const r = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await r.json()) as any;
  };
  const tools = (await mcp('tools/list', {})).result.tools.map((t: any) => t.name);
  assert.ok(tools.includes('get_execution') && !tools.some((n: string) => /approv|reject/.test(n)), tools.join(','));
  const called = await mcp('tools/call', { name: 'approve_task_run', arguments: { execution_id: ex.id, task: 'deploy' } });
  assert.ok(called.error || called.result?.isError, JSON.stringify(called));
  assert.equal(run((await s.api('GET', `/api/v1/executions/${ex.id}`)).body, 'deploy').reason, 'awaiting_approval', 'still waiting after the refusals');

  const ok = await approve(operator.token, ex.id, { inputs: { ticket: 'CHG-1' }, comment: 'go' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const approved = run(ok.body, 'deploy').approval;
  assert.deepEqual([approved.status, approved.by, approved.inputs, approved.comment], ['approved', 'operator@example.com', { ticket: 'CHG-1' }, 'go']);
  e = await s.waitEnded(ex.id, 60_000);
  assert.equal(e.state, 'SUCCESS');
  const started = run(e, 'deploy').started_at;
  assert.ok(ms(started) - ms(approved.at) < 1000, `deploy started ${ms(started) - ms(approved.at)} ms after the approval`);
  assert.deepEqual(run(e, 'announce').outputs, { by: 'operator@example.com', ticket: 'CHG-1', status: 'approved' });
  assert.equal(run(e, 'rollback').state, 'SKIPPED');
  // A second decision finds nothing waiting.
  assert.equal((await approve(operator.token, ex.id)).body.error.code, 'not_awaiting_approval');

  const audit = await auditOf(s.api, 'execution.approve', ex.id);
  assert.equal(audit.length, 1);
  assert.equal(audit[0].actor, 'operator@example.com');
  // The alert names the execution page and the waiting task.
  const sent = await until('the approval alert', () => hooks.find((h) => h.includes(ex.id)), 60_000, 200).catch(async (err: Error) => {
    const rows = await s.db.query(`SELECT * FROM alert_deliveries`);
    throw new Error(`${err.message}: ${JSON.stringify(rows.rows)} ${JSON.stringify(hooks)}`);
  });
  assert.match(sent, /approval_requested/);
  assert.match(sent, new RegExp(`/executions/${ex.id}`));
  assert.match(sent, /Task deploy waits for approval/);
  assert.ok(!sent.includes('whsec-approvals-1'));
});

test('a reject ends the task FAILED rejected and runs the failure branch; a group member approves with a viewer role', async () => {
  const ex = await s.trigger(NS, 'release');
  await waiting(ex.id);
  const r = await as(operator.token, 'POST', `/api/v1/executions/${ex.id}/tasks/deploy/reject`, { comment: 'not today' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const e = await s.waitEnded(ex.id, 60_000);
  assert.equal(e.state, 'FAILED');
  assert.deepEqual([run(e, 'deploy').state, run(e, 'deploy').reason, run(e, 'deploy').error], ['FAILED', 'rejected', 'rejected by operator@example.com: not today']);
  assert.equal(run(e, 'deploy').approval.status, 'rejected');
  assert.equal(run(e, 'rollback').state, 'SUCCESS');
  assert.equal(run(e, 'announce').state, 'SKIPPED');
  assert.equal((await auditOf(s.api, 'execution.reject', ex.id)).length, 1);

  // A gate with no dependency waits from the start, and a viewer bound on the namespace may not approve it.
  const first = await s.trigger(NS, 'first');
  const w = await waiting(first.id);
  assert.equal(run(w, 'deploy').approval.status, 'pending');
  assert.equal((await as(viewer.token, 'POST', `/api/v1/executions/${first.id}/tasks/deploy/approve`, {})).status, 403);
  assert.equal((await as(operator.token, 'POST', `/api/v1/executions/${first.id}/tasks/deploy/approve`, {})).status, 200);
  assert.equal((await s.waitEnded(first.id, 60_000)).state, 'SUCCESS');

  const ex2 = await s.trigger(NS, 'release');
  await waiting(ex2.id);
  const ok = await approve(member.token, ex2.id, { inputs: { ticket: 'CHG-2' } });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal((await s.waitEnded(ex2.id, 60_000)).state, 'SUCCESS');
});

test('a gate timeout applies on_timeout: skip skips the task, approve runs it', async () => {
  const skip = await s.waitEnded((await s.trigger(NS, 'skip')).id, 60_000);
  assert.deepEqual([run(skip, 'deploy').state, run(skip, 'deploy').reason, run(skip, 'deploy').approval.status], ['SKIPPED', 'approval_timed_out', 'timed_out']);
  assert.equal(run(skip, 'announce').state, 'SKIPPED');
  const auto = await s.waitEnded((await s.trigger(NS, 'auto')).id, 60_000);
  assert.equal(auto.state, 'SUCCESS', JSON.stringify(auto.task_runs.map((r: any) => [r.task_key, r.state, r.reason, r.error, r.approval])));
  assert.deepEqual([run(auto, 'deploy').state, run(auto, 'deploy').approval.status, run(auto, 'deploy').approval.by], ['SUCCESS', 'timed_out', null]);
  assert.equal(run(auto, 'announce').outputs.status, 'timed_out');
});

test('kill -9 of the gateway, dispatcher and maintenance during a wait loses nothing; two approvals at once apply once', async () => {
  const ex = await s.trigger(NS, 'release');
  await waiting(ex.id);
  const victims = [...procsOf(s, 'api-gateway'), ...procsOf(s, 'dispatcher'), ...procsOf(s, 'maintenance')];
  assert.equal(victims.length, 3);
  await Promise.all(victims.map(kill9));
  const fresh = [s.startApp('api-gateway'), s.startApp('dispatcher'), s.startApp('maintenance')];
  await gatewayUp(s);
  await Promise.all(fresh.map((p) => online(s, p)));
  const e = (await s.api('GET', `/api/v1/executions/${ex.id}`)).body;
  assert.deepEqual([e.state, run(e, 'deploy').state, run(e, 'deploy').reason], ['RUNNING', 'PENDING', 'awaiting_approval']);
  const both = await Promise.all([approve(operator.token, ex.id), approve(member.token, ex.id)]);
  assert.deepEqual(both.map((r) => r.status).sort(), [200, 409], JSON.stringify(both.map((r) => r.body)));
  const done = await s.waitEnded(ex.id, 60_000);
  assert.equal(done.state, 'SUCCESS');
  assert.equal(done.task_runs.filter((r: any) => r.task_key === 'deploy').length, 1, 'one deploy run');
  const queued = await s.db.query(
    `SELECT count(*)::int AS n FROM execution_history h JOIN task_runs t ON t.id = h.task_run_id WHERE t.execution_id = $1 AND t.task_key = 'deploy' AND h.to_state = 'QUEUED'`,
    [ex.id],
  );
  assert.equal(queued.rows[0].n, 1, 'deploy was queued once');
});

test('pause holds new task runs while the running one finishes and keeps the concurrency slot; resume goes on; cancel works paused', async () => {
  const ex = await s.trigger(NS, 'long');
  await s.waitFor(ex.id, (e) => run(e, 'a').state === 'RUNNING', 60_000);
  assert.equal((await as(viewer.token, 'POST', `/api/v1/executions/${ex.id}/pause`)).status, 403);
  assert.equal((await as(outsider.token, 'POST', `/api/v1/executions/${ex.id}/pause`)).status, 403);
  const p = await as(operator.token, 'POST', `/api/v1/executions/${ex.id}/pause`);
  assert.equal(p.status, 200, JSON.stringify(p.body));
  assert.deepEqual([p.body.state, p.body.reason, p.body.paused, p.body.paused_by], ['RUNNING', 'paused', true, 'operator@example.com']);
  // The running task finishes; the next one does not start.
  let e = await s.waitFor(ex.id, (x) => run(x, 'a').state === 'SUCCESS', 60_000);
  await sleep(1500);
  e = (await s.api('GET', `/api/v1/executions/${ex.id}`)).body;
  assert.deepEqual([e.state, e.paused, run(e, 'b').state], ['RUNNING', true, 'PENDING']);
  // Paused still counts as running for the flow's concurrency limit.
  const second = await s.trigger(NS, 'long');
  assert.equal(second.state, 'QUEUED');
  const resumedAt = Date.now();
  const r = await as(operator.token, 'POST', `/api/v1/executions/${ex.id}/resume`);
  assert.deepEqual([r.status, r.body.paused, r.body.reason], [200, false, '']);
  e = await s.waitEnded(ex.id, 60_000);
  assert.equal(e.state, 'SUCCESS');
  assert.ok(ms(run(e, 'b').started_at) >= resumedAt - 100, 'b started once resumed');
  assert.equal((await auditOf(s.api, 'execution.pause', ex.id)).length, 1);
  assert.equal((await auditOf(s.api, 'execution.resume', ex.id)).length, 1);

  // The queued one starts; paused, then cancelled, it ends CANCELLED.
  await s.waitFor(second.id, (x) => x.state === 'RUNNING', 60_000);
  assert.equal((await as(operator.token, 'POST', `/api/v1/executions/${second.id}/pause`)).status, 200);
  assert.equal((await s.api('POST', `/api/v1/executions/${second.id}/cancel`)).status, 200);
  const cancelled = await s.waitEnded(second.id, 60_000);
  assert.equal(cancelled.state, 'CANCELLED');
  assert.equal(cancelled.paused, false);
  assert.equal((await as(operator.token, 'POST', `/api/v1/executions/${second.id}/pause`)).body.error.code, 'execution_ended');
});
