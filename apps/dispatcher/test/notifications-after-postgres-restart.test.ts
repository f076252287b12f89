// PostgreSQL restarts under a running dispatcher: its notification connection
// comes back by itself, so a task queued after the restart is claimed through
// its NOTIFY, not by the poll. The poll is lengthened to a minute here, so a
// claim within seconds can only come from the notification. A standalone
// Notifier on the same database delivers again too.
//
// The run's shared PostgreSQL is never restarted: this file starts a cluster
// of its own, stops it and starts it again on the same data directory and port.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { applyMigrations, createDb, Notifier, startPostgresKeeper, type KeptPostgres } from '@svc/db';
import { startDispatcher, until, type DispatcherEnv } from './support.js';

const POLL_MS = 60_000;
let dir: string;
let cluster: KeptPostgres;
let env: DispatcherEnv;

const start = (port?: number) => startPostgresKeeper(dir, { database: 'svc', stdio: 'ignore', settings: { fsync: 'off' }, ...(port ? { port } : {}) });

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pg-restart-'));
  fs.chmodSync(dir, 0o755);
  cluster = await start(); // not ephemeral: the restart needs the data directory
  const setup = createDb({ url: cluster.url, poolSize: 1 });
  await applyMigrations(setup.pool);
  await setup.close();
  env = await startDispatcher(
    { 'quick.flow.yaml': JSON.stringify({ id: 'quick', tasks: [{ id: 't', type: 'command', command: ['sh', '-c', 'echo ok'] }] }) },
    { databaseUrl: cluster.url, dispatcher: { pollMs: POLL_MS }, notifyReconnectMs: 100 },
  );
});
after(async () => {
  await env?.close();
  await cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Triggers `quick` and returns how long until its task run was claimed, and the ended execution. */
async function claimLatency(): Promise<{ ms: number; state: string }> {
  const t = Date.now();
  const id = await env.trigger('quick');
  await until('the task run to be claimed', async () => (await env.pool.query(`SELECT 1 FROM task_runs WHERE execution_id = $1 AND state <> 'QUEUED'`, [id])).rowCount, 20_000);
  const ms = Date.now() - t;
  const ex = await env.ended(id, 20_000);
  return { ms, state: ex.state };
}

test('after PostgreSQL restarts, notifications flow again: a standalone notifier delivers, and the dispatcher claims a queued task through its NOTIFY', async () => {
  const lines: string[] = [];
  const log = { warn: (m: string) => void lines.push(`warn ${m}`), info: (m: string) => void lines.push(`info ${m}`) };
  const notifier = new Notifier({ url: cluster.url, log, applicationName: 'restart-test', minDelayMs: 100, maxDelayMs: 500 });
  const got: string[] = [];
  let reconnects = 0;
  notifier.onReconnect(() => reconnects++);
  notifier.subscribe('restart_test', (p) => got.push(p));
  try {
    assert.equal(await notifier.ready(), true);
    const before = await claimLatency();
    assert.equal(before.state, 'SUCCESS');
    assert.ok(before.ms < 5_000, `claimed in ${before.ms} ms before the restart (poll every ${POLL_MS} ms)`);

    const { url, port } = cluster;
    await cluster.stop();
    await until('the notifier to see the loss', () => lines.some((l) => l.startsWith('warn ')));
    assert.equal(notifier.listening, false);
    cluster = await start(port);
    assert.equal(cluster.url, url, 'the same address and credentials after the restart');

    // (a) The standalone notifier reconnects and delivers again.
    await until('the notifier to reconnect', () => reconnects === 2, 30_000);
    await env.pool.query(`SELECT pg_notify('restart_test', 'after')`);
    await until('the notification after the restart', () => got.length === 1);
    assert.deepEqual(got, ['after']);

    // (b) The dispatcher's notifier reconnected (its onReconnect woke the loops)...
    await until('the dispatcher to listen again', () => env.logs().some((l) => /notification connection re-established/.test(String(l.message ?? l.msg ?? ''))), 30_000);
    // ...and a task queued now is claimed through its notification, long before the next poll.
    const after = await claimLatency();
    assert.equal(after.state, 'SUCCESS');
    assert.ok(after.ms < 5_000, `claimed in ${after.ms} ms after the restart (poll every ${POLL_MS} ms)`);
    assert.ok(
      env.logs().some((l) => /notification connection lost/.test(String(l.message ?? l.msg ?? ''))),
      'the loss was logged',
    );
  } finally {
    await notifier.close();
  }
});
