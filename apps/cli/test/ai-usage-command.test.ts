// `svc ai usage` against a real stack: after real assistant turns
// (answered by the OpenAI stand-in, 15 tokens a model call) of an operator and
// the admin, the table shows each user's requests and tokens against the
// per-user limits and the total against the deployment's; `--json` and
// `-o json` print the API object; `--day` reads another UTC day (a row
// written in the database: automatic triage's); a malformed day is a usage
// error; a non-admin is refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { createUser } from '@svc/identity';
import { startOpenAIStandin, type Standin } from '../../../e2e/test/openai-standin.js';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
let llm: Standin;
const home = tempHome();
let adminEnv: Record<string, string>;
let opEnv: Record<string, string>;
let opToken = '';

/** A user's API token, through the login form's endpoint like a person would get one. */
async function tokenOf(email: string, password: string, role: string): Promise<string> {
  const login = await fetch(`${s.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  assert.equal(login.status, 200);
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
  const r = await fetch(`${s.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'cli', role }),
  });
  assert.equal(r.status, 201);
  return ((await r.json()) as { secret: string }).secret;
}

/** One assistant turn of the token's user, read to its end. */
async function turn(token: string): Promise<void> {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const c = await fetch(`${s.url}/api/v1/ai/conversations`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 't' }) });
  assert.equal(c.status, 201);
  const { id } = (await c.json()) as { id: string };
  const r = await fetch(`${s.url}/api/v1/ai/conversations/${id}/messages`, { method: 'POST', headers: auth, body: JSON.stringify({ content: 'hi' }) });
  const body = await r.text();
  assert.equal(r.status, 200, body);
  assert.match(body, /"stop_reason":"end_turn"/, body);
}

before(async () => {
  llm = await startOpenAIStandin(() => ({ text: 'Hello' }));
  s = await startStack({
    maintenance: false,
    dispatchers: 0,
    env: { SVC_AI_USER_REQUESTS_PER_DAY: '2', SVC_AI_USER_TOKENS_PER_DAY: '1000', SVC_AI_TOTAL_REQUESTS_PER_DAY: '50', SVC_AI_TOTAL_TOKENS_PER_DAY: '5000' },
  });
  adminEnv = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await createUser(s.db, { email: 'op@example.com', role: 'operator', password: 'operator password 1' }, new Date());
  opToken = await tokenOf('op@example.com', 'operator password 1', 'operator');
  opEnv = { ...home.env, SVC_URL: s.url, SVC_TOKEN: opToken };
  const p = await s.api('PUT', '/api/v1/ai/provider', { type: 'openai_compatible', model: 'stand-in-1', base_url: llm.url, api_key: 'sk-cli-usage-test' });
  assert.equal(p.status, 200, JSON.stringify(p.body));
});
after(async () => {
  await s?.stop();
  await llm?.close();
  home.cleanup();
});

type Usage = components['schemas']['AIUsage'];

test('after a few turns, svc ai usage shows each user and the total against the limits, as a table and as JSON', async () => {
  await turn(opToken);
  await turn(opToken);
  await turn(s.token);

  const today = new Date().toISOString().slice(0, 10);
  const r = await svc(['ai', 'usage'], { env: adminEnv });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, new RegExp(`^AI usage of ${today} \\(UTC\\), counts reset at \\d{4}-\\d{2}-\\d{2} 00:00:00 UTC$`));
  assert.match(lines[1]!, /^USER\s+REQUESTS\s+TOKENS$/);
  const cells = lines.slice(2).map((l) => l.split(/\s{2,}/));
  assert.deepEqual(cells, [
    ['op@example.com', '2 / 2', '30 / 1000'],
    ['e2e@example.com', '1 / 2', '15 / 1000'],
    ['TOTAL', '3 / 50', '45 / 5000'],
  ]);

  for (const args of [['--json'], ['-o', 'json']]) {
    const j = await svc(['ai', 'usage', ...args], { env: adminEnv });
    assert.equal(j.code, 0, j.stderr);
    const u = JSON.parse(j.stdout) as Usage;
    assert.equal(u.day, today);
    assert.deepEqual(u.limits, { user_requests: 2, user_tokens: 1000, total_requests: 50, total_tokens: 5000 });
    assert.deepEqual(u.total, { requests: 3, tokens: 45 });
    assert.deepEqual(
      u.users.map((x) => [x.email, x.requests, x.tokens]),
      [
        ['op@example.com', 2, 30],
        ['e2e@example.com', 1, 15],
      ],
    );
  }
});

test('--day reads another UTC day; a malformed day is a usage error; a non-admin is refused', async () => {
  await s.db.query(`INSERT INTO ai_usage (user_id, day, requests, tokens) VALUES ('auto', '2026-01-02', 4, 60)`);
  const t = await svc(['ai', 'usage', '--day', '2026-01-02'], { env: adminEnv });
  assert.equal(t.code, 0, t.stderr);
  assert.match(t.stdout, /^AI usage of 2026-01-02 \(UTC\), counts reset at 2026-01-03 00:00:00 UTC\n/);
  assert.match(t.stdout, /\n\(automatic triage\)\s+4\s+60\n/, 'no per-user limit applies to automatic triage');
  assert.match(t.stdout, /\nTOTAL\s+4 \/ 50\s+60 \/ 5000\n/);
  const j = JSON.parse((await svc(['ai', 'usage', '--day', '2026-01-02', '--json'], { env: adminEnv })).stdout) as Usage;
  assert.deepEqual(j.users, [{ user_id: 'auto', email: null, requests: 4, tokens: 60 }]);

  const empty = await svc(['ai', 'usage', '--day', '2020-01-01'], { env: adminEnv });
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(empty.stdout, /: no AI requests that day\n/);
  assert.match(empty.stdout, /\nTOTAL\s+0 \/ 50\s+0 \/ 5000\n/);

  const bad = await svc(['ai', 'usage', '--day', 'yesterday'], { env: adminEnv });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--day must be a UTC day as YYYY-MM-DD, got "yesterday"/);

  const op = await svc(['ai', 'usage'], { env: opEnv });
  assert.equal(op.code, 1);
  assert.match(op.stderr, /forbidden/);
  assert.equal(op.stdout, '');
});
