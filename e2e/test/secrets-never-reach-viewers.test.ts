// No secret value reaches a viewer: everything a task run that resolved
// secrets reports (error, reason, outputs at any depth and their keys,
// metrics' names and tags) is masked with *** before it is stored, whoever
// reports it (the inline executor's http tasks, the process executor, a
// runner over the runner protocol). The execution's error and its flow
// outputs, built from those, are masked with them. Real loopback HTTP servers
// echo the secret back in headers and bodies; http tasks follow redirects by
// hand and drop credentials and custom headers when the origin changes.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { claimTaskRuns, loadRunTokenKey, signRunToken } from '@svc/engine/internal';
import { createUser } from '@svc/identity';
import { startStack, type Stack } from './stack.js';
import { flow, run, sh } from './engine-support.js';

const NS = 'leaks';
const SECRET = 'Sec/ret "value"+91&x';
let s: Stack;
let viewer: (p: string) => Promise<{ status: number; text: string }>;
let a: http.Server;
let b: http.Server;
let baseA = '';
let baseB = '';
const seenByB: { url: string; method: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
const seenByA: { url: string; method: string; headers: http.IncomingHttpHeaders }[] = [];

async function listen(handler: http.RequestListener): Promise<[http.Server, string]> {
  const srv = http.createServer(handler);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return [srv, `http://127.0.0.1:${(srv.address() as AddressInfo).port}`];
}

before(async () => {
  [a, baseA] = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      seenByA.push({ url: req.url!, method: req.method!, headers: req.headers });
      const u = new URL(req.url!, baseA);
      const key = String(req.headers['x-api-key'] ?? '');
      const echo = JSON.stringify({ url: req.url, header: key, nested: { [key || 'none']: [key] } });
      if (u.pathname === '/echo')
        return void res.writeHead(200, { 'content-type': 'application/json', 'x-echo-key': encodeURIComponent(key), location: `/x?k=${encodeURIComponent(key)}` }).end(echo);
      if (u.pathname === '/fail') return void res.writeHead(500, { 'content-type': 'application/json' }).end(echo);
      if (u.pathname === '/same') return void res.writeHead(302, { location: '/echo' }).end();
      if (u.pathname === '/away') return void res.writeHead(302, { location: `${baseB}/land` }).end();
      if (u.pathname === '/post-away') return void res.writeHead(303, { location: `${baseB}/land` }).end();
      if (u.pathname === '/keep-away') return void res.writeHead(307, { location: `${baseB}/land` }).end();
      if (u.pathname === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
      res.writeHead(404).end();
    });
  });
  [b, baseB] = await listen((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seenByB.push({ url: req.url!, method: req.method!, headers: req.headers, body });
      if (req.url === '/back') return void res.writeHead(302, { location: `${baseA}/echo` }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('landed');
    });
  });

  s = await startStack();
  await s.api('POST', '/api/v1/namespaces', { name: NS });
  assert.equal((await s.api('PUT', `/api/v1/namespaces/${NS}/secrets/API_KEY`, { value: SECRET })).status, 200);
  const key = "{{ secret('API_KEY') }}";
  const httpTask = (id: string, url: string, extra: Record<string, unknown> = {}) => ({ id, type: 'http', url, headers: { 'X-Api-Key': key }, ...extra });
  await s.saveFlow(NS, {
    'leaky.flow.yaml': flow({
      id: 'leaky',
      inputs: [{ id: 'a', type: 'string' }],
      tasks: [
        httpTask('echo', `{{ inputs.a }}/echo?key=${key}`),
        httpTask('bad', `{{ inputs.a }}/fail?key=${key}`),
        httpTask('unreachable', `http://127.0.0.1:1/nothing?key=${key}`),
        {
          id: 'script',
          type: 'command',
          env: { S: key },
          command: sh(
            [
              'echo "stdout says $S"',
              `printf '{"outputs": {"plain": "%s", "nested": {"deep": ["%s", {"k": "%s"}]}, "%s": "as a key"}, "metrics": [{"name": "m-%s", "value": 1, "tags": {"t": "%s"}}]}\\n' "$Q" "$Q" "$Q" "$Q" "$Q" "$Q" >> "$SVC_OUTPUTS"`,
              'echo "stderr says $S" >&2',
              'exit 3',
            ]
              .join('; ')
              .replace(/\$Q/g, '$(printf %s "$S" | sed \'s/"/\\\\"/g\')'),
          ),
        },
      ],
    }),
    'fine.flow.yaml': flow({
      id: 'fine',
      inputs: [{ id: 'a', type: 'string' }],
      tasks: [httpTask('echo', `{{ inputs.a }}/echo?key=${key}`)],
      outputs: { body: '{{ tasks.echo.outputs.body }}', header: '{{ tasks.echo.outputs.headers["x-echo-key"] }}' },
    }),
    'redirects.flow.yaml': flow({
      id: 'redirects',
      inputs: [
        { id: 'a', type: 'string' },
        { id: 'b', type: 'string' },
      ],
      tasks: [
        httpTask('same', '{{ inputs.a }}/same'),
        httpTask('away', '{{ inputs.a }}/away', {
          headers: {
            'X-Api-Key': key,
            Authorization: `Bearer ${key}`,
            Cookie: `c=${key}`,
            'Proxy-Authorization': `Basic ${key}`,
            'X-Trace': 'custom',
            Accept: 'text/plain',
            'User-Agent': 'svc-test',
          },
        }),
        httpTask('post_away', '{{ inputs.a }}/post-away', { method: 'POST', body: 'payload', headers: { 'X-Api-Key': key, 'Content-Type': 'text/plain' } }),
        httpTask('keep_away', '{{ inputs.a }}/keep-away', { method: 'POST', body: 'kept', headers: { 'X-Api-Key': key, 'Content-Type': 'text/plain' } }),
        httpTask('and_back', '{{ inputs.b }}/back'),
        httpTask('loop', '{{ inputs.a }}/loop'),
      ],
    }),
    'remote.flow.yaml': flow({
      id: 'remote',
      tasks: [{ id: 'work', type: 'command', env: { S: key }, command: ['true'], executor: { type: 'process', pool: 'remote-pool' } }],
    }),
  });

  // A viewer with an API token of their own.
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
after(async () => {
  await s.stop();
  for (const srv of [a, b]) {
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  }
});

/** The secret and the forms it takes inside JSON and URLs (the servers see it percent-encoded as a URL does). */
const FORMS = [SECRET, JSON.stringify(SECRET).slice(1, -1), encodeURIComponent(SECRET), encodeURI(SECRET)];
const assertNoSecret = (what: string, text: string) => {
  for (const f of FORMS) assert.ok(!text.includes(f), `${what} holds the secret (${JSON.stringify(f)}): ${text.slice(0, 2000)}`);
};

/** Every viewer read of an execution: detail, events stream, logs (page and download), metrics, artifacts. */
async function assertViewerSeesNoSecret(executionId: string): Promise<void> {
  for (const p of [
    `/api/v1/executions/${executionId}`,
    `/api/v1/executions/${executionId}/events`,
    `/api/v1/executions/${executionId}/logs?limit=5000`,
    `/api/v1/executions/${executionId}/logs/download`,
    `/api/v1/executions/${executionId}/logs/stream`,
    `/api/v1/executions/${executionId}/metrics`,
    `/api/v1/executions/${executionId}/artifacts`,
    `/api/v1/executions?limit=200`,
  ]) {
    const r = await viewer(p);
    assert.equal(r.status, 200, `${p}: ${r.text}`);
    assertNoSecret(p, r.text);
  }
  // Nor is it stored anywhere with the execution (the run's record of its secrets is sealed, and gone once it ended).
  for (const table of ['executions', 'task_runs', 'execution_history', 'task_metrics', 'log_lines']) {
    const rows = (await s.db.query(`SELECT * FROM ${table} WHERE ${table === 'executions' ? 'id' : 'execution_id'} = $1`, [executionId])).rows;
    assertNoSecret(table, JSON.stringify(rows));
  }
  const specs = (await s.db.query(`SELECT spec FROM task_runs WHERE execution_id = $1 AND state <> 'RUNNING'`, [executionId])).rows;
  for (const r of specs) assert.ok(!r.spec || !('secrets' in r.spec), `an ended run keeps its secrets record: ${JSON.stringify(r.spec)}`);
}

test('http and process tasks that echo, print and write a secret leave only *** in errors, outputs, metrics, logs and events', async () => {
  const e = await s.trigger(NS, 'leaky', { inputs: { a: baseA } });
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'FAILED', JSON.stringify(done));
  assert.deepEqual(done.secret_keys_used, ['API_KEY']);

  // The servers did get the real value: masking is of what is stored, not of what is sent.
  assert.ok(seenByA.some((r) => r.url.startsWith('/echo') && r.headers['x-api-key'] === SECRET));

  const echo = run(done, 'echo');
  assert.equal(echo.state, 'SUCCESS', JSON.stringify(echo));
  const body = JSON.parse(echo.outputs.body);
  assert.equal(body.header, '***');
  assert.equal(body.url, '/echo?key=***');
  assert.deepEqual(body.nested, { '***': ['***'] });
  assert.equal(echo.outputs.headers['x-echo-key'], '***');
  assert.equal(echo.outputs.headers.location, '/x?k=***');

  const bad = run(done, 'bad');
  assert.equal(bad.state, 'FAILED');
  assert.equal(bad.reason, 'unexpected_status');
  assert.match(bad.error, /^HTTP 500 from GET http:\/\/127\.0\.0\.1:\d+\/fail\?key=\*\*\* is not an expected status$/);

  const unreachable = run(done, 'unreachable');
  assert.equal(unreachable.reason, 'http_error');
  assert.match(unreachable.error, /\/nothing\?key=\*\*\* failed/);

  const script = run(done, 'script');
  assert.equal(script.state, 'FAILED');
  assert.equal(script.exit_code, 3);
  assert.equal(script.error, 'exit code 3: stderr says ***');
  assert.deepEqual(script.outputs, { plain: '***', nested: { deep: ['***', { k: '***' }] }, '***': 'as a key' });
  const metrics = JSON.parse((await viewer(`/api/v1/executions/${e.id}/metrics`)).text).items;
  assert.deepEqual(
    metrics.map((m: any) => [m.name, m.tags]),
    [['m-***', { t: '***' }]],
  );

  // The execution's error is the first failing task's, masked with it.
  assert.ok(done.error.includes('***'), done.error);
  await assertViewerSeesNoSecret(e.id);
});

test('flow outputs built from the outputs of a task that resolved a secret are masked', async () => {
  const e = await s.trigger(NS, 'fine', { inputs: { a: baseA } });
  const done = await s.waitEnded(e.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(done.outputs.header, '***');
  assert.equal(JSON.parse(done.outputs.body).header, '***');
  await assertViewerSeesNoSecret(e.id);
});

test('a completion posted over the runner protocol (svc exec) is masked against the secrets its run resolved', async () => {
  const e = await s.trigger(NS, 'remote');
  await s.waitFor(e.id, (x) => x.task_runs[0]?.state === 'QUEUED');
  // Claimed as the running dispatcher (an online instance), so the watchdog does not fail it as lost meanwhile.
  const instanceId = (await s.db.query(`SELECT id FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL LIMIT 1`)).rows[0].id;
  const [claimed] = await claimTaskRuns(s.db, { instanceId, pools: ['remote-pool'], executorType: 'process', limit: 1, now: new Date() });
  assert.ok(claimed);
  const token = signRunToken(await loadRunTokenKey(s.db), claimed.id, new Date(Date.now() + 3600_000));
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const spec = (await (await fetch(`${s.url}/api/runner/v1/task-runs/${claimed.id}/spec`, { headers: auth })).json()) as { mask_values: string[] };
  assert.deepEqual(spec.mask_values, [SECRET]);
  // The record of the run's secrets is sealed: the value is not in the row.
  assertNoSecret('task_runs.spec', JSON.stringify((await s.db.query(`SELECT spec FROM task_runs WHERE id = $1`, [claimed.id])).rows));

  const r = await fetch(`${s.url}/api/runner/v1/task-runs/${claimed.id}/complete`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      state: 'FAILED',
      reason: 'exit_code',
      exit_code: 1,
      error: `exit code 1: could not log in with ${SECRET}`,
      outputs: { token: SECRET, list: [`a ${SECRET} b`], [SECRET]: { deeper: SECRET } },
      metrics: [{ name: `n-${SECRET}`, value: 2, tags: { [SECRET]: SECRET } }],
    }),
  });
  assert.equal(r.status, 200, await r.text());
  const done = await s.waitEnded(e.id);
  const work = run(done, 'work');
  assert.equal(work.state, 'FAILED');
  assert.equal(work.error, 'exit code 1: could not log in with ***');
  assert.deepEqual(work.outputs, { token: '***', list: ['a *** b'], '***': { deeper: '***' } });
  assert.equal(done.error, work.error);
  const metrics = JSON.parse((await viewer(`/api/v1/executions/${e.id}/metrics`)).text).items;
  assert.deepEqual(
    metrics.map((m: any) => [m.name, m.value, m.tags]),
    [['n-***', 2, { '***': '***' }]],
  );
  await assertViewerSeesNoSecret(e.id);
});

test('http tasks follow redirects by hand: a hop to another origin drops credentials and custom headers; a same-origin hop keeps them', async () => {
  seenByB.length = 0;
  seenByA.length = 0;
  const e = await s.trigger(NS, 'redirects', { inputs: { a: baseA, b: baseB } });
  const done = await s.waitEnded(e.id);

  // Same origin: the custom header follows (the echo shows it, masked).
  const same = run(done, 'same');
  assert.equal(same.state, 'SUCCESS', JSON.stringify(same));
  assert.equal(JSON.parse(same.outputs.body).header, '***');
  assert.ok(
    seenByA.some((r) => r.url === '/echo' && r.headers['x-api-key'] === SECRET),
    'the same-origin hop kept X-Api-Key',
  );

  // Another origin: only standard headers arrive.
  const away = run(done, 'away');
  assert.equal(away.state, 'SUCCESS', JSON.stringify(away));
  assert.equal(away.outputs.body, 'landed');
  const landed = seenByB.filter((r) => r.url === '/land');
  assert.equal(landed.length, 3, JSON.stringify(landed));
  for (const r of landed) {
    for (const h of ['x-api-key', 'authorization', 'cookie', 'proxy-authorization', 'x-trace']) assert.equal(r.headers[h], undefined, `${h} crossed to another origin`);
    assertNoSecret('a request to the other origin', JSON.stringify(r));
  }
  const get = landed.find((r) => r.headers['user-agent'] === 'svc-test')!;
  assert.equal(get.method, 'GET');
  assert.equal(get.headers.accept, 'text/plain', 'standard headers are kept');

  // 303 after a POST: GET without the body; 307: the method and body stay.
  assert.equal(run(done, 'post_away').state, 'SUCCESS');
  assert.ok(
    landed.some((r) => r.method === 'GET' && r.body === '' && r.headers['content-type'] === undefined),
    '303 turned the POST into a bodiless GET',
  );
  assert.equal(run(done, 'keep_away').state, 'SUCCESS');
  assert.ok(
    landed.some((r) => r.method === 'POST' && r.body === 'kept' && r.headers['content-type'] === 'text/plain'),
    '307 kept the method and body',
  );

  // Back to the first origin: what was dropped stays dropped.
  assert.equal(run(done, 'and_back').state, 'SUCCESS');
  assert.equal(JSON.parse(run(done, 'and_back').outputs.body).header, '');

  // A loop ends after 10 redirects.
  const loop = run(done, 'loop');
  assert.equal(loop.state, 'FAILED');
  assert.equal(loop.reason, 'http_error');
  assert.match(loop.error, /more than 10 redirects/);
  assert.equal(seenByA.filter((r) => r.url === '/loop').length, 11);
  await assertViewerSeesNoSecret(e.id);
});
