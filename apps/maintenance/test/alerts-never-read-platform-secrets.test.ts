// Alert channels never read platform secrets (the credentials svc itself
// authenticates with, docs/operating/security.md): a rule is made by
// a namespace editor, so its signing_secret and url_secret resolve as a flow
// of its namespace would (the namespace, its parents, global) and never from
// the platform store. A rule naming a platform secret's name fails its
// delivery for good with "not found" and sends nothing; one naming a secret
// of its namespace that has the same name as a platform secret signs with
// the namespace's value, not the platform one. No value is in a delivery
// row or a log line.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { newId } from '@svc/db';
import { generateMasterKey, PlatformSecretStore, SecretStore } from '@svc/secrets';
import { AlertDeliverer, AlertScanner } from '../src/index.js';
import { seedSnapshot, setupEnv, type TestEnv } from './support.js';

const PLATFORM = 'platform-git-token-never-in-alerts-5521';
const TEAM = 'team-signing-key-1187';
const masterKeys = [generateMasterKey('k1')];
let env: TestEnv;
let hook: http.Server;
let hookUrl: string;
const hooks: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let snapshotId = '';

before(async () => {
  env = await setupEnv();
  hook = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hooks.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alerts`;
  const platform = new PlatformSecretStore({ db: env.db.pool, keys: masterKeys });
  await platform.put('GIT_TOKEN', PLATFORM);
  await platform.put('SLACK_URL', `${hookUrl}?from=platform`);
  await platform.put('SHARED_NAME', PLATFORM);
  await new SecretStore({ db: env.db.pool, keys: masterKeys }).put('team', 'SHARED_NAME', TEAM);
  snapshotId = await seedSnapshot(env.db, { namespace: 'team', createdAt: new Date() });
});
after(async () => {
  await new Promise<void>((r) => hook.close(() => r()));
  await env?.close();
});

async function rule(name: string, channels: unknown[]): Promise<string> {
  const id = newId();
  await env.db.pool.query(
    `INSERT INTO alert_rules (id, name, namespace, events, channels, rate_limit_per_hour, created_by, created_at) VALUES ($1, $2, 'team', '{failed}', $3, 1000, 'test', now() - interval '1 second')`,
    [id, name, JSON.stringify(channels)],
  );
  return id;
}

test('a channel naming a platform secret fails "not found" and sends nothing; a namespace secret of the same name signs', async () => {
  const platformRule = await rule('platform names', [
    { type: 'webhook', url: hookUrl, signing_secret: 'GIT_TOKEN' },
    { type: 'slack', url_secret: 'SLACK_URL' },
  ]);
  const teamRule = await rule('team secret', [{ type: 'webhook', url: hookUrl, signing_secret: 'SHARED_NAME' }]);
  const scanner = new AlertScanner({ db: env.db, log: env.log, settleMs: 1000 });
  const alerts = new AlertDeliverer({
    db: env.db,
    notifier: env.notifier,
    log: env.log,
    instanceId: 'm1',
    publicUrl: 'https://svc.example.test',
    masterKeys,
    orgDailyQuota: 1000,
    allowPrivateTargets: true,
    scan: () => scanner.pass(),
    pollMs: 100,
    firstRetryMs: 100,
  });
  await alerts.start();
  const execution = newId();
  try {
    await env.db.pool.query(
      `INSERT INTO executions (id, state, error, namespace, flow_id, snapshot_id, definition, created_by, trigger_type, started_at, ended_at)
       VALUES ($1, 'FAILED', 'boom', 'team', 'f', $2, '{"id":"f","tasks":[]}', 'test', 'manual', now() - interval '1 hour', now())`,
      [execution, snapshotId],
    );
    const end = Date.now() + 30_000;
    for (;;) {
      const r = await env.db.pool.query(`SELECT status FROM alert_deliveries WHERE rule_id = ANY($1) AND status NOT IN ('pending', 'sending')`, [[platformRule, teamRule]]);
      if (r.rowCount === 3) break;
      if (Date.now() > end) throw new Error('the three deliveries did not end');
      await new Promise((res) => setTimeout(res, 100));
    }
  } finally {
    await alerts.stop();
  }
  const rows = (await env.db.pool.query(`SELECT rule_id, channel_type, status, error FROM alert_deliveries ORDER BY rule_id, channel_type`)).rows;
  const of = (id: string) => rows.filter((r) => r.rule_id === id);
  assert.deepEqual(
    of(platformRule).map((r) => [r.channel_type, r.status]),
    [
      ['slack', 'failed'],
      ['webhook', 'failed'],
    ],
  );
  for (const r of of(platformRule)) assert.match(r.error, /cannot be read in namespace team: SecretNotFoundError/);
  assert.deepEqual(
    of(teamRule).map((r) => r.status),
    ['delivered'],
  );
  // Only the team rule's webhook was sent, signed with the namespace's value.
  assert.equal(hooks.length, 1);
  const h = hooks[0]!;
  const ts = h.headers['x-svc-alert-timestamp'] as string;
  assert.equal(h.headers['x-svc-alert-signature'], `sha256=${createHmac('sha256', TEAM).update(`${ts}.${h.body}`).digest('hex')}`);
  for (const text of [JSON.stringify(rows), JSON.stringify(env.logs()), h.body]) {
    assert.ok(!text.includes(PLATFORM), 'no platform value');
    assert.ok(!text.includes(TEAM), 'no signing key');
  }
});
