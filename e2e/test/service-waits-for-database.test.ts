// A service started before its database (Compose, a rollout, a reboot) waits
// for it (SVC_DATABASE_WAIT) instead of exiting; one given a wrong password
// exits at once. Real scheduler and maintenance processes; the database is
// reached through a TCP relay on loopback that hangs up on every connection
// until the test opens it.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';

let s: Stack;
let relay: net.Server | undefined;

before(async () => {
  s = await startStack({ dispatchers: 0, maintenance: false });
});
after(async () => {
  relay?.close();
  await s?.stop();
});

/** The URL the stack's services reach the database by (its pool was made from it). */
const stackDatabaseUrl = () => (s.db as unknown as { options: { connectionString: string } }).options.connectionString;

test('a scheduler started before its database comes up once the database listens, and says it waited', async () => {
  const target = new URL(stackDatabaseUrl());
  // The port is held from the start (no other process can take it); it hangs up on every connection until opened.
  let up = false;
  relay = net.createServer((client) => {
    if (!up) return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => relay!.listen(0, '127.0.0.1', () => r()));
  const late = new URL(target);
  late.port = String((relay.address() as net.AddressInfo).port);
  const started = Date.now();
  const scheduler = s.startApp('scheduler', { SVC_DATABASE_URL: late.toString(), SVC_LOG_LEVEL: 'info', SVC_DATABASE_WAIT: '60s' });
  // Hung up on, it says it waits and stays up (however long the process takes to start on a loaded machine).
  for (let i = 0; !/the database is not reachable yet: trying again/.test(scheduler.output()); i++) {
    assert.equal(scheduler.child.exitCode, null, `still waiting, not exited:\n${scheduler.output()}`);
    if (i > 1200) assert.fail(`no "trying again" line after 60 s:\n${scheduler.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(scheduler.child.exitCode, null, `still waiting, not exited:\n${scheduler.output()}`);
  up = true;
  for (let i = 0; ; i++) {
    const r = await s.db.query(`SELECT 1 FROM instances WHERE kind = 'scheduler' AND stopped_at IS NULL AND started_at >= $1`, [new Date(started)]);
    // Its instance row is written before its "started" line, which its output may show a moment later.
    if (r.rowCount && /"message":"started"/.test(scheduler.output())) break;
    assert.equal(scheduler.child.exitCode, null, scheduler.output());
    if (i > 600) assert.fail(`the scheduler did not come up:\n${scheduler.output()}`);
    await new Promise((res) => setTimeout(res, 50));
  }
  const out = scheduler.output();
  assert.match(out, /"message":"started"/);
  assert.ok(!out.includes(target.password), 'no database password in the output');
});

test('a wrong password ends the start at once with an error, not after the wait', async () => {
  const wrong = new URL(stackDatabaseUrl());
  wrong.password = 'wrong-password-5c1e';
  const started = Date.now();
  const maintenance = s.startApp('maintenance', { SVC_DATABASE_URL: wrong.toString(), SVC_DATABASE_WAIT: '60s' });
  const code = await Promise.race([maintenance.exited, new Promise((r) => setTimeout(() => r('still running'), 30_000))]);
  assert.equal(code, 1, maintenance.output());
  assert.ok(Date.now() - started < 30_000);
  const out = maintenance.output();
  assert.match(out, /start-up failed/);
  assert.match(out, /password authentication failed/);
  assert.ok(!out.includes('wrong-password-5c1e'), 'the password is not in the output');
  assert.doesNotMatch(out, /trying again/);
});
