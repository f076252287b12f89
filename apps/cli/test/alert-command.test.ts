// `svc alert` against a real stack, as a subprocess: create a rule
// for a namespace with an email and a signed webhook channel, list it (table
// and JSON), read its deliveries (a failed execution's, delivered by the
// maintenance process to a local webhook receiver) with their attempts, and
// delete it; bad flags are usage errors (exit 2) before any request.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { addOrganizationSender, createOrganization, setOrganizationNamespaces } from '@svc/identity';
import { startStack, svc, tempHome, until, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
let hook: http.Server;
let hookUrl = '';
const hooks: string[] = [];

before(async () => {
  hook = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      hooks.push(body);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/svc`;
  // Its alert receiver is on loopback: an on-premise setting (SVC_ALERT_ALLOW_PRIVATE_TARGETS).
  s = await startStack({ env: { SVC_ALERT_ALLOW_PRIVATE_TARGETS: 'true' } });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await createOrganization(s.db, 'acme');
  await addOrganizationSender(s.db, 'acme', 'acme.test');
  await setOrganizationNamespaces(s.db, 'acme', ['cli']);
  await s.saveFlow('cli.alerts', {
    'boom.flow.yaml': JSON.stringify({ id: 'boom', tasks: [{ id: 'fail', type: 'command', command: ['sh', '-c', 'echo about to fail; exit 1'] }] }),
  });
  assert.equal((await s.api('PUT', '/api/v1/secrets/HOOK_KEY', { value: 'hook-signing-value-1234' })).status, 200);
});
after(async () => {
  await s?.stop();
  await new Promise<void>((r) => hook.close(() => r()));
  home.cleanup();
});

test('svc alert create, list, deliveries and delete', async () => {
  const made = await svc(
    [
      'alert',
      'create',
      'cli',
      '--on',
      'failed,timed_out',
      '--name',
      'cli failures',
      '--email',
      'acme:alerts@acme.test:oncall@example.test',
      '--webhook',
      hookUrl,
      '--signing-secret',
      'HOOK_KEY',
    ],
    { env },
  );
  assert.equal(made.code, 0, made.stderr);
  const id = made.stdout.trim();
  assert.match(made.stderr, /alert rule .* "cli failures" created/);

  const table = await svc(['alert', 'list'], { env });
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /cli failures/);
  assert.match(table.stdout, /cli \(and children\)/);
  assert.match(table.stdout, /email oncall@example\.test; webhook http:\/\/127\.0\.0\.1/);
  const json = JSON.parse((await svc(['alert', 'list', '-o', 'json'], { env })).stdout);
  assert.deepEqual(
    json.map((r: { id: string }) => r.id),
    [id],
  );
  assert.deepEqual(json[0].events, ['failed', 'timed_out']);

  const e = await s.waitEnded((await s.trigger('cli.alerts', 'boom')).id, 60_000);
  assert.equal(e.state, 'FAILED');
  await until(() => hooks.some((h) => h.includes(e.id)), 60_000, 'the webhook');
  const d = await until(
    async () => {
      const r = await svc(['alert', 'deliveries', id, '-o', 'json'], { env });
      const rows = JSON.parse(r.stdout) as { channel_type: string; status: string }[];
      return rows.find((x) => x.channel_type === 'webhook' && x.status === 'delivered') ? rows : undefined;
    },
    30_000,
    'the delivery recorded',
  );
  assert.equal(d.length, 2, 'email and webhook');
  const shown = await svc(['alert', 'deliveries', id], { env });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`failed\\s+${e.id}\\s+webhook http://127\\.0\\.0\\.1:\\d+/svc\\s+delivered\\s+#1 ok 200`));

  const gone = await svc(['alert', 'delete', id], { env });
  assert.equal(gone.code, 0, gone.stderr);
  assert.equal(JSON.parse((await svc(['alert', 'list', '-o', 'json'], { env })).stdout).length, 0);
  assert.equal((await svc(['alert', 'delete', id], { env })).code, 1, 'a rule deleted twice is not found');
});

test('bad flags are usage errors before any request', async () => {
  const noChannel = await svc(['alert', 'create', 'cli', '--on', 'failed'], { env });
  assert.equal(noChannel.code, 2);
  assert.match(noChannel.stderr, /at least one channel/);
  const badEvent = await svc(['alert', 'create', 'cli', '--on', 'exploded', '--slack-secret', 'S'], { env });
  assert.equal(badEvent.code, 2);
  const unsigned = await svc(['alert', 'create', 'cli', '--on', 'failed', '--webhook', hookUrl], { env });
  assert.equal(unsigned.code, 2);
  assert.match(unsigned.stderr, /--signing-secret/);
  const late = await svc(['alert', 'create', 'cli', '--on', 'late', '--late-after', 'soon', '--slack-secret', 'S'], { env });
  assert.equal(late.code, 2);
});
