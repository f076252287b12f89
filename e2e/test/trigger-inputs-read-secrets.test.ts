// Trigger `inputs` templates read secret() like every other template (issue
// #32), and the value still never reaches a viewer: the execution's `inputs`
// hold `***` where the secret goes (every viewer reads them), the trigger
// payload holds only the recipe (the template's rendered text and its
// secret() calls), and the task that reads the input gets the real value,
// masked in its logs and outputs like any secret its run resolved, listed in
// `secret_keys_used`. A webhook and a flow trigger, and a rerun, over real
// HTTP with real processes; the stack's secret guard searches every answer
// and app output as well.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { createUser } from '@svc/identity';
import { startStack, type Stack } from './stack.js';
import { flow, run, sh, until } from './engine-support.js';

const NS = 'trigsecrets';
const SECRET = 'tok-Zq8 "deploy"/+&x';
const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
let s: Stack;
let viewer: (p: string) => Promise<{ status: number; text: string }>;

/** The task: prints the input (masked in the log), writes it to outputs (masked), and its sha256 (which proves it got the value). */
const reveal = (env: string) =>
  sh(
    `echo "got $${env}"; node -e 'const v = process.env.${env}; require("fs").appendFileSync(process.env.SVC_OUTPUTS, JSON.stringify({ outputs: { seen: v, sha: require("crypto").createHash("sha256").update(v).digest("hex") } }) + "\\n")'`,
  );

before(async () => {
  s = await startStack();
  await s.api('POST', '/api/v1/namespaces', { name: NS });
  assert.equal((await s.api('PUT', `/api/v1/namespaces/${NS}/secrets/DEPLOY_TOKEN`, { value: SECRET })).status, 200);
  await s.saveFlow(NS, {
    'deploy.flow.yaml': flow({
      id: 'deploy',
      inputs: [
        { id: 'auth', type: 'string' },
        { id: 'who', type: 'string' },
      ],
      triggers: [{ id: 'hook', type: 'webhook', inputs: { auth: "Bearer {{ secret('DEPLOY_TOKEN') }} for {{ trigger.body.who }}", who: '{{ trigger.body.who }}' } }],
      outputs: { auth: '{{ inputs.auth }}' },
      tasks: [{ id: 'use', type: 'command', env: { AUTH: '{{ inputs.auth }}' }, command: reveal('AUTH') }],
    }),
    'up.flow.yaml': flow({ id: 'up', tasks: [{ id: 'a', type: 'command', command: ['true'] }] }),
    'down.flow.yaml': flow({
      id: 'down',
      inputs: [{ id: 'key', type: 'string' }],
      triggers: [{ id: 'after-up', type: 'flow', flow: `${NS}/up`, states: ['SUCCESS'], inputs: { key: "{{ secret('DEPLOY_TOKEN') }}" } }],
      tasks: [{ id: 'use', type: 'command', command: reveal('KEY'), env: { KEY: '{{ inputs.key }}' } }],
    }),
  });
  await createUser(s.db, { email: 'viewer@example.com', role: 'viewer', password: 'viewer password 1' }, new Date());
  const login = await fetch(`${s.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'viewer@example.com', password: 'viewer password 1' }),
  });
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
  const tok = (await (
    await fetch(`${s.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'v', role: 'viewer' }),
    })
  ).json()) as { secret: string };
  viewer = async (p) => {
    const r = await fetch(`${s.url}${p}`, { headers: { authorization: `Bearer ${tok.secret}` } });
    return { status: r.status, text: await r.text() };
  };
});
after(() => s.stop());

const FORMS = [SECRET, JSON.stringify(SECRET).slice(1, -1), encodeURIComponent(SECRET)];
const assertNoSecret = (what: string, text: string) => {
  for (const f of FORMS) assert.ok(!text.includes(f), `${what} holds the secret (${JSON.stringify(f)}): ${text.slice(0, 1500)}`);
};

/** getExecution, listExecutions, the events, the logs (page, download, stream), as a viewer; and the rows kept for the execution. */
async function assertNowhere(executionId: string): Promise<void> {
  for (const p of [
    `/api/v1/executions/${executionId}`,
    `/api/v1/executions?limit=200`,
    `/api/v1/executions?namespace=${NS}&limit=200`,
    `/api/v1/executions/${executionId}/events`,
    `/api/v1/executions/${executionId}/logs?limit=5000`,
    `/api/v1/executions/${executionId}/logs/download`,
    `/api/v1/executions/${executionId}/logs/stream`,
  ]) {
    const r = await viewer(p);
    assert.equal(r.status, 200, `${p}: ${r.text}`);
    assertNoSecret(p, r.text);
  }
  for (const table of ['executions', 'task_runs', 'execution_history', 'log_lines']) {
    const rows = (await s.db.query(`SELECT * FROM ${table} WHERE ${table === 'executions' ? 'id' : 'execution_id'} = $1`, [executionId])).rows;
    assertNoSecret(table, JSON.stringify(rows));
  }
}

const logText = async (id: string) => JSON.stringify((await s.api('GET', `/api/v1/executions/${id}/logs?limit=5000`)).body);

test('a webhook input reading secret() is *** in the execution, and its task gets the value, masked in logs and outputs', async () => {
  const keyOf = ((await s.api('GET', `/api/v1/flows/${NS}/deploy`)).body.triggers as any[]).find((t) => t.id === 'hook').webhook_key as string;
  const hook = await fetch(`${s.url}/hooks/${keyOf}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ who: 'ana' }) });
  const answer = await hook.text();
  assert.equal(hook.status, 201, answer);
  assertNoSecret('the webhook answer', answer);
  const id = JSON.parse(answer).execution_id as string;
  const ex = await s.waitEnded(id);
  assert.equal(ex.state, 'SUCCESS', JSON.stringify(ex));
  assert.deepEqual(ex.inputs, { auth: 'Bearer *** for ana', who: 'ana' });
  assert.deepEqual(ex.trigger_payload.secret_inputs, { auth: "Bearer {{ secret('DEPLOY_TOKEN') }} for ana" });
  assert.deepEqual(ex.secret_keys_used, ['DEPLOY_TOKEN']);
  const out = run(ex, 'use').outputs;
  assert.equal(out.sha, sha(`Bearer ${SECRET} for ana`), 'the task read the real value');
  assert.equal(out.seen, 'Bearer *** for ana');
  assert.deepEqual(ex.outputs, { auth: 'Bearer *** for ana' }, 'flow outputs read the stored (masked) input');
  await until("the task's log line", async () => (await logText(id)).includes('got Bearer *** for ana'));
  await assertNowhere(id);

  // A rerun copies the inputs (masked) and the recipe: its task gets the value again.
  const r = await s.api('POST', `/api/v1/executions/${id}/rerun`);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const again = await s.waitEnded(r.body.id ?? r.body.execution_id);
  assert.equal(again.state, 'SUCCESS', JSON.stringify(again));
  assert.equal(run(again, 'use').outputs.sha, sha(`Bearer ${SECRET} for ana`));
  assert.deepEqual(again.inputs, { auth: 'Bearer *** for ana', who: 'ana' });
  await assertNowhere(again.id);
});

test('a flow trigger input reading secret() reaches its task the same way', async () => {
  const up = await s.trigger(NS, 'up');
  assert.equal((await s.waitEnded(up.id)).state, 'SUCCESS');
  const down = await until("the flow trigger's execution", async () => {
    const list = (await s.api('GET', `/api/v1/executions?namespace=${NS}&flow_id=down&limit=10`)).body.items as any[];
    return list.find((e) => e.trigger_type === 'flow');
  });
  const ex = await s.waitEnded(down.id);
  assert.equal(ex.state, 'SUCCESS', JSON.stringify(ex));
  assert.deepEqual(ex.inputs, { key: '***' });
  assert.deepEqual(ex.secret_keys_used, ['DEPLOY_TOKEN']);
  assert.equal(run(ex, 'use').outputs.sha, sha(SECRET));
  assert.equal(run(ex, 'use').outputs.seen, '***');
  await until("the task's log line", async () => (await logText(ex.id)).includes('got ***'));
  await assertNowhere(ex.id);
});
