// Automatic triage on failure: with the provider's auto_triage on, recent
// FAILED and TIMED_OUT executions are triaged without being asked, at most
// SVC_AI_TRIAGE_PER_HOUR per hour; off, nothing is triaged.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser, raw } from './identity-helpers.js';
import { startOpenAIStandin, type Standin } from '../../../e2e/test/openai-standin.js';

let gw: TestGateway;
let llm: Standin;
let admin: string;

const put = (autoTriage: boolean) =>
  raw(
    gw,
    'PUT',
    '/api/v1/ai/provider',
    { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    JSON.stringify({ type: 'openai_compatible', model: 'm', base_url: llm.url, auto_triage: autoTriage }),
  );
const insights = async () =>
  (await gw.db.pool.query<{ execution_id: string; status: string; requested_by: string }>(`SELECT execution_id, status, requested_by FROM ai_insights ORDER BY execution_id`)).rows;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  llm = await startOpenAIStandin(() => ({ text: '{"summary": "it broke", "probable_cause": "x", "suggested_fix": "y", "evidence": ["E1"]}' }));
  gw = await startTestGateway({ env: { SVC_AI_TRIAGE_PER_HOUR: '2', SVC_AI_TRIAGE_POLL_MS: '50' } });
  await makeUser(gw, 'root@example.com', 'admin');
  admin = await makeToken(gw, await login(gw, 'root@example.com'), 'admin');
  await gw.db.pool.query(`INSERT INTO snapshots (id, namespace, manifest_hash, file_count, total_bytes) VALUES ('s', 'team', 'h', 0, 0)`);
  await gw.db.pool.query(
    `INSERT INTO executions (id, state, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, ended_at) VALUES
       ('e1', 'FAILED', 'team', 'f', 's', '{}', 't', 'manual', now() - interval '3 minutes'),
       ('e2', 'TIMED_OUT', 'team', 'f', 's', '{}', 't', 'manual', now() - interval '2 minutes'),
       ('e3', 'FAILED', 'team', 'f', 's', '{}', 't', 'manual', now() - interval '1 minute'),
       ('e4', 'SUCCESS', 'team', 'f', 's', '{}', 't', 'manual', now()),
       ('e5', 'FAILED', 'team', 'f', 's', '{}', 't', 'manual', now() - interval '2 hours')`,
  );
});
after(async () => {
  await gw.close();
  await llm.close();
});

test('auto_triage off: nothing is triaged', async () => {
  assert.equal((await put(false)).status, 200);
  await sleep(300);
  assert.deepEqual(await insights(), []);
});

test('auto_triage on: the newest recent failures are triaged, no more than the hourly budget; older failures and successes are left', async () => {
  assert.equal((await put(true)).status, 200);
  for (let i = 0; i < 100 && (await insights()).filter((x) => x.status === 'done').length < 2; i++) await sleep(50);
  await sleep(300); // more looks: the budget holds
  assert.deepEqual(await insights(), [
    { execution_id: 'e2', status: 'done', requested_by: 'auto' },
    { execution_id: 'e3', status: 'done', requested_by: 'auto' },
  ]);
});
