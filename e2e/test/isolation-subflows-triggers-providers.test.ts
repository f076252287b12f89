// What a flow names outside its namespace (docs/operating/roles.md),
// on a real stack: a user whose global role is `none`, bound `editor` on
// `team-a` only, saves team-a flows that reach `team-b`. A subflow into
// team-b, a flow trigger on a team-b upstream and a secret() through a
// provider that does not serve team-a are each refused at save (422 naming
// the field). Flows saved while an admin allowed the pair (team-b's
// allowed_callers, a provider scoped to team-a) work; once the allowance is
// removed they are refused when they run: the subflow task fails with a
// clear error and no team-b execution starts, the flow trigger does not
// fire, the provider reference fails the task with no value anywhere. The
// same namespace and a descendant (team-a.sub) keep working throughout.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { boundUser, startStack, type Stack } from './stack.js';
import { flow, sh, sleep, until } from './engine-support.js';

/** The value the env provider serves: it must never appear in an answer, a log line, an event or an error. */
const VALUE = 'PLANTED-iso-provider-value-Kq73';

let s: Stack;
let devToken = '';

async function as(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const r = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: r.status, body: parsed, text };
}

/** The bound user saves one file into team-a (or another namespace). */
const save = (file: string, content: string, ns = 'team-a') =>
  as(devToken, 'POST', `/api/v1/namespaces/${ns}/changes`, { message: 'iso', changes: [{ op: 'put', path: file, content }] });

const trigger = async (token: string, ns: string, id: string) => {
  const r = await as(token, 'POST', `/api/v1/flows/${ns}/${id}/executions`, {});
  assert.equal(r.status, 201, r.text);
  return r.body as { id: string };
};

async function executionsOf(ns: string, flowId: string): Promise<any[]> {
  return (await s.db.query(`SELECT id, state, trigger_type, created_at FROM executions WHERE namespace = $1 AND flow_id = $2 ORDER BY created_at`, [ns, flowId])).rows;
}

const setCallers = (ns: string, callers: string[]) => s.api('PUT', `/api/v1/namespaces/${ns}/allowed-callers`, { allowed_callers: callers });

before(async () => {
  s = await startStack({ env: { ISO_SECRET_TOKEN: VALUE } });
  const leaf = (id: string) => flow({ id, inputs: [{ id: 'x', type: 'string', default: 'x' }], tasks: [{ id: 't', type: 'command', command: sh('echo leaf') }] });
  await s.saveFlow('team-b', { 'target.flow.yaml': leaf('target'), 'up.flow.yaml': leaf('up') });
  await s.saveFlow('team-a.sub', { 'child.flow.yaml': leaf('child'), 'up.flow.yaml': leaf('up') });
  await s.saveFlow('team-a', { 'local.flow.yaml': leaf('local') });
  for (const [name, namespaces] of [
    ['foreign', ['team-b']],
    ['ours', ['team-a']],
  ] as const) {
    const r = await s.api('POST', '/api/v1/secret-providers', { name, type: 'env', config: { prefix: 'ISO_SECRET_' }, namespaces });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body.namespaces, namespaces);
  }
  const bound = await boundUser(s, { email: 'dev@example.com', password: 'dev password 1', namespace: 'team-a', role: 'editor', tokenName: 'dev' });
  devToken = bound.token;
});

after(async () => {
  await s?.stop();
});

test('saving a team-a flow that reaches team-b is refused with 422 naming the field', async () => {
  const sub = await save(
    'sub.flow.yaml',
    flow({
      id: 'sub',
      tasks: [
        { id: 'a', type: 'command', command: sh('true') },
        { id: 'call', type: 'subflow', flow: 'team-b/target' },
      ],
    }),
  );
  assert.equal(sub.status, 422, sub.text);
  assert.equal(sub.body.error.code, 'flow_invalid');
  const subDetail = sub.body.error.details.find((d: any) => d.field === 'sub.flow.yaml:/tasks/1/flow');
  assert.ok(subDetail, JSON.stringify(sub.body.error.details));
  assert.match(subDetail.message, /namespace team-a may not start a flow of namespace team-b/);
  assert.match(subDetail.message, /allowed callers of team-b/);

  const trig = await save(
    'trig.flow.yaml',
    flow({ id: 'trig', triggers: [{ id: 'after_b', type: 'flow', flow: 'team-b/up', states: ['SUCCESS'] }], tasks: [{ id: 't', type: 'command', command: sh('true') }] }),
  );
  assert.equal(trig.status, 422, trig.text);
  assert.deepEqual(
    trig.body.error.details.map((d: any) => d.field),
    ['trig.flow.yaml:/triggers/0/flow'],
  );
  assert.match(trig.body.error.details[0].message, /may not listen to executions of namespace team-b/);

  const sec = await save('sec.flow.yaml', flow({ id: 'sec', tasks: [{ id: 't', type: 'command', env: { T: "{{ secret('foreign:TOKEN') }}" }, command: sh('true') }] }));
  assert.equal(sec.status, 422, sec.text);
  assert.deepEqual(
    sec.body.error.details.map((d: any) => d.field),
    ['sec.flow.yaml:/tasks/0/env/T'],
  );
  assert.match(sec.body.error.details[0].message, /secret provider foreign does not serve namespace team-a/);
  assert.ok(!sec.text.includes(VALUE));

  // The editor's check (validateFile) says the same before a save.
  const checked = await as(devToken, 'POST', '/api/v1/namespaces/team-a/validate', {
    path: 'sub.flow.yaml',
    content: flow({ id: 'sub', tasks: [{ id: 'call', type: 'subflow', flow: 'team-b/target' }] }),
  });
  assert.equal(checked.status, 200, checked.text);
  assert.equal(checked.body.valid, false);
  assert.deepEqual(
    checked.body.errors.map((e: any) => [e.field, e.pointer]),
    [['tasks[0].flow', '/tasks/0/flow']],
  );
  for (const id of ['sub', 'trig', 'sec']) assert.equal((await as(devToken, 'GET', `/api/v1/flows/team-a/${id}`)).status, 404, `${id} was not saved`);
  // The bound user cannot widen anything: allowed callers and provider scopes are admins' (403), and it never reaches team-b itself.
  assert.equal((await as(devToken, 'PUT', '/api/v1/namespaces/team-b/allowed-callers', { allowed_callers: ['team-a'] })).status, 403);
  assert.equal((await as(devToken, 'PUT', '/api/v1/namespaces/team-a/allowed-callers', { allowed_callers: ['team-b'] })).status, 403);
  assert.equal((await as(devToken, 'PUT', '/api/v1/secret-providers/foreign', { namespaces: ['team-a'] })).status, 403);
  assert.equal((await save('x.flow.yaml', flow({ id: 'x', tasks: [{ id: 't', type: 'command', command: sh('true') }] }), 'team-b')).status, 403);
});

test('the same namespace, a descendant and a provider scoped to team-a work', async () => {
  const r = await save(
    'near.flow.yaml',
    flow({
      id: 'near',
      triggers: [{ id: 'after_sub', type: 'flow', flow: 'team-a.sub/up', states: ['SUCCESS'] }],
      tasks: [
        { id: 'same', type: 'subflow', flow: 'team-a/local' },
        { id: 'below', type: 'subflow', flow: 'team-a.sub/child' },
        { id: 'sec', type: 'command', env: { T: "{{ secret('ours:TOKEN') }}" }, command: sh('[ -n "$T" ] && echo "got it"') },
      ],
    }),
  );
  assert.equal(r.status, 201, r.text);
  const e = await trigger(devToken, 'team-a', 'near');
  const done = await s.waitEnded(e.id, 60_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done.task_runs));
  // A team-a.sub execution fires the team-a flow trigger.
  const before = (await executionsOf('team-a', 'near')).length;
  const up = await trigger(s.token, 'team-a.sub', 'up');
  await s.waitEnded(up.id, 60_000);
  const fired = await until('the descendant upstream fires team-a/near', async () => (await executionsOf('team-a', 'near')).find((x) => x.trigger_type === 'flow'), 30_000);
  assert.ok((await executionsOf('team-a', 'near')).length > before);
  await s.waitEnded(fired.id, 60_000);
});

test('an admin allows team-a into team-b: the pair works; removed, the flows saved meanwhile are refused when they run', async () => {
  const setA = await setCallers('team-b', ['team-a']);
  assert.equal(setA.status, 200, JSON.stringify(setA.body));
  assert.deepEqual(setA.body.allowed_callers, ['team-a']);
  // Viewers of team-b read it; the bound user reads team-a's (none set).
  assert.deepEqual((await as(devToken, 'GET', '/api/v1/namespaces/team-a')).body.allowed_callers, []);
  const audit = await s.api('GET', '/api/v1/audit?action=namespace.allowed_callers');
  assert.ok(
    audit.body.items.some((a: any) => a.target === 'namespace:team-b' && JSON.stringify(a.payload).includes('team-a')),
    JSON.stringify(audit.body.items),
  );

  const cross = await save('cross.flow.yaml', flow({ id: 'cross', tasks: [{ id: 'call', type: 'subflow', flow: 'team-b/target', inputs: { x: 'from-a' } }] }));
  assert.equal(cross.status, 201, cross.text);
  const listen = await save(
    'listen.flow.yaml',
    flow({ id: 'listen', triggers: [{ id: 'after_b', type: 'flow', flow: 'team-b/up', states: ['SUCCESS'] }], tasks: [{ id: 't', type: 'command', command: sh('true') }] }),
  );
  assert.equal(listen.status, 201, listen.text);

  // Allowed: the subflow starts its team-b child, the trigger fires.
  const ok = await trigger(devToken, 'team-a', 'cross');
  assert.equal((await s.waitEnded(ok.id, 60_000)).state, 'SUCCESS');
  assert.equal((await executionsOf('team-b', 'target')).length, 1);
  const up1 = await trigger(s.token, 'team-b', 'up');
  await s.waitEnded(up1.id, 60_000);
  await until('team-b/up fires team-a/listen', async () => (await executionsOf('team-a', 'listen')).length === 1, 30_000);

  // Removed: the same saved flows are refused when they run.
  assert.deepEqual((await setCallers('team-b', [])).body.allowed_callers, []);
  const refused = await trigger(devToken, 'team-a', 'cross');
  const ended = await s.waitEnded(refused.id, 60_000);
  assert.equal(ended.state, 'FAILED');
  const run = ended.task_runs.find((r: any) => r.task_key === 'call');
  assert.equal(run.reason, 'namespace_not_allowed');
  assert.match(run.error, /namespace team-a may not start a flow of namespace team-b/);
  assert.equal((await executionsOf('team-b', 'target')).length, 1, 'no team-b execution started');

  const up2 = await trigger(s.token, 'team-b', 'up');
  await s.waitEnded(up2.id, 60_000);
  const firing = await until(
    'the firing of team-b/up is recorded without an execution',
    async () => (await s.db.query(`SELECT execution_id FROM flow_trigger_firings WHERE upstream_execution_id = $1 AND namespace = 'team-a'`, [up2.id])).rows[0],
    30_000,
  );
  assert.equal(firing.execution_id, null);
  await sleep(1000);
  assert.equal((await executionsOf('team-a', 'listen')).length, 1, 'the flow trigger did not fire');

  // Saving it again now is refused as at first.
  const again = await save('cross.flow.yaml', flow({ id: 'cross', description: 'changed', tasks: [{ id: 'call', type: 'subflow', flow: 'team-b/target' }] }));
  assert.equal(again.status, 422);
});

test('a provider narrowed after the save fails the task with its name and namespace and no value anywhere', async () => {
  assert.equal((await s.api('PUT', '/api/v1/secret-providers/foreign', { namespaces: ['team-a', 'team-b'] })).status, 200);
  const saved = await save(
    'usesecret.flow.yaml',
    flow({
      id: 'usesecret',
      tasks: [
        { id: 'use', type: 'command', env: { T: "{{ secret('foreign:TOKEN') }}" }, command: sh('echo "value=$T"; printf \'{"outputs": {"v": "%s"}}\\n\' "$T" >> "$SVC_OUTPUTS"') },
      ],
    }),
  );
  assert.equal(saved.status, 201, saved.text);
  const ok = await trigger(devToken, 'team-a', 'usesecret');
  assert.equal((await s.waitEnded(ok.id, 60_000)).state, 'SUCCESS');

  const narrowed = await s.api('PUT', '/api/v1/secret-providers/foreign', { namespaces: ['team-b'] });
  assert.deepEqual(narrowed.body.namespaces, ['team-b']);
  const audit = await s.api('GET', '/api/v1/audit?action=secret_provider.update');
  assert.ok(
    audit.body.items.some((a: any) => JSON.stringify(a.payload?.namespaces) === JSON.stringify(['team-b'])),
    JSON.stringify(audit.body.items),
  );

  const e = await trigger(devToken, 'team-a', 'usesecret');
  const ended = await s.waitEnded(e.id, 60_000);
  assert.equal(ended.state, 'FAILED');
  const run = ended.task_runs.find((r: any) => r.task_key === 'use');
  assert.equal(run.reason, 'secret_provider_not_allowed');
  assert.match(run.error, /secret provider foreign does not serve namespace team-a/);
  const surfaces = [
    JSON.stringify(ended),
    (await as(devToken, 'GET', `/api/v1/executions/${e.id}/logs`)).text,
    (await as(devToken, 'GET', `/api/v1/executions/${e.id}/events`)).text,
    (await as(devToken, 'GET', `/api/v1/executions/${ok.id}/logs`)).text,
    JSON.stringify((await s.api('GET', `/api/v1/executions/${ok.id}`)).body),
    JSON.stringify((await s.db.query(`SELECT outputs, error FROM task_runs WHERE execution_id = ANY($1)`, [[e.id, ok.id]])).rows),
  ];
  for (const text of surfaces) assert.ok(!text.includes(VALUE), 'the provider value never shows');
  assert.ok(!surfaces[1].includes('value='), 'the refused task never ran');
  // The namespace secret check says the same, without a value.
  const check = await as(devToken, 'POST', `/api/v1/namespaces/team-a/secrets/${encodeURIComponent('foreign:TOKEN')}/check`);
  assert.equal(check.body.ok, false);
  assert.equal(check.body.error, 'secret_provider_not_allowed');
  assert.ok(!check.text.includes(VALUE));
});

test('a provider scope must name namespaces or *', async () => {
  const bad = await s.api('PUT', '/api/v1/secret-providers/ours', { namespaces: ['Team A'] });
  assert.equal(bad.status, 422);
  assert.ok(
    bad.body.error.details.some((d: any) => String(d.field).startsWith('namespaces')),
    JSON.stringify(bad.body),
  );
  const callers = await setCallers('team-b', ['not a namespace']);
  assert.equal(callers.status, 422);
  assert.equal((await setCallers('ghost', ['team-a'])).status, 404);
});
