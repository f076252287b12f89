// The shared notifier on a real PostgreSQL: it delivers NOTIFYs to its
// subscribers, comes back by itself after its backend is terminated
// (pg_terminate_backend, as an operator or a failover does), LISTENs again on
// every channel, tells its subscribers that notifications may have been
// missed, closes an idle connection when asked to, and never logs the
// connection string.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { Notifier, type NotifierLog } from '../src/notifier.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

let tdb: TestDatabase;
let admin: pg.Pool;

before(async () => {
  tdb = await createTestDatabase();
  admin = new pg.Pool({ connectionString: tdb.url, max: 2 });
  admin.on('error', () => undefined);
});
after(async () => {
  await admin.end();
  await tdb.drop();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function memoryLog(): NotifierLog & { lines: { level: string; msg: string; meta?: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; meta?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, meta?: Record<string, unknown>) => void lines.push({ level, msg, meta });
  return { lines, warn: at('warn'), info: at('info'), debug: at('debug') };
}

/** Backends of this database whose application_name is `name`. */
async function backends(name: string): Promise<number[]> {
  const r = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, [name]);
  return r.rows.map((x) => x.pid);
}

const notify = (channel: string, payload: string) => admin.query(`SELECT pg_notify($1, $2)`, [channel, payload]);

test('delivers notifications, and after its backend is terminated reconnects, LISTENs every channel again and fires onReconnect', async () => {
  const name = `notifier-${crypto.randomBytes(4).toString('hex')}`;
  const log = memoryLog();
  const notifier = new Notifier({ url: tdb.url, log, applicationName: name, minDelayMs: 50, maxDelayMs: 200 });
  const got: string[] = [];
  let reconnects = 0;
  notifier.onReconnect(() => reconnects++);
  notifier.subscribe('t_alpha', (p) => got.push(`alpha:${p}`));
  notifier.subscribe('t_beta', (p) => got.push(`beta:${p}`));
  try {
    assert.equal(await notifier.ready(), true);
    assert.equal(reconnects, 1, 'the first connection counts: subscribers subscribed before it listened');
    await notify('t_alpha', '1');
    await notify('t_beta', '2');
    await notify('t_other', 'x');
    await until('both notifications', () => got.length === 2);
    assert.deepEqual(got, ['alpha:1', 'beta:2']);

    const [pid, ...more] = await backends(name);
    assert.ok(pid, 'one backend with the notifier application_name');
    assert.deepEqual(more, [], 'one connection, whatever the number of channels');
    await admin.query(`SELECT pg_terminate_backend($1)`, [pid]);
    await until('onReconnect after the termination', () => reconnects === 2);
    assert.equal(notifier.listening, true);
    const [newPid] = await backends(name);
    assert.ok(newPid && newPid !== pid, 'a new backend');

    got.length = 0;
    await notify('t_alpha', '3');
    await notify('t_beta', '4');
    await until('notifications on both channels after the reconnect', () => got.length === 2);
    assert.deepEqual(got, ['alpha:3', 'beta:4']);

    assert.ok(
      log.lines.some((l) => l.level === 'warn' && /lost/.test(l.msg)),
      JSON.stringify(log.lines),
    );
    assert.ok(
      log.lines.some((l) => l.level === 'info' && /re-established/.test(l.msg)),
      JSON.stringify(log.lines),
    );
    const password = new URL(tdb.url).password;
    for (const l of log.lines) {
      const text = JSON.stringify(l, (_k, v) => (v instanceof Error ? { message: v.message, stack: v.stack } : v));
      assert.ok(!text.includes(tdb.url) && !(password && text.includes(password)), `no connection string or password in ${text}`);
    }
  } finally {
    await notifier.close();
  }
  assert.deepEqual(await until('the backend to go', async () => ((await backends(name)).length === 0 ? [] : null)), []);
});

test('a channel subscribed while listening is LISTENed at once; an unsubscribed handler gets nothing more', async () => {
  const name = `notifier-${crypto.randomBytes(4).toString('hex')}`;
  const notifier = new Notifier({ url: tdb.url, log: memoryLog(), applicationName: name });
  const got: string[] = [];
  try {
    const offA = notifier.subscribe('t_a', (p) => got.push(`a:${p}`));
    assert.equal(await notifier.ready(), true);
    notifier.subscribe('t_b', (p) => got.push(`b:${p}`));
    await until(
      'LISTEN t_b',
      async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND query ILIKE '%t_b%' AND state = 'idle'`, [name])).rowCount,
    );
    await notify('t_b', '1');
    await until('the notification on t_b', () => got.length === 1);
    offA();
    await notify('t_a', '2');
    await notify('t_b', '3');
    await until('the second notification on t_b', () => got.length >= 2);
    await sleep(50);
    assert.deepEqual(got, ['b:1', 'b:3']);
  } finally {
    await notifier.close();
  }
});

test('with idleCloseMs the connection closes after the last subscriber left, and the next one opens a new one', async () => {
  const name = `notifier-${crypto.randomBytes(4).toString('hex')}`;
  const notifier = new Notifier({ url: tdb.url, log: memoryLog(), applicationName: name, idleCloseMs: 200 });
  let reconnects = 0;
  notifier.onReconnect(() => reconnects++);
  const got: string[] = [];
  try {
    assert.deepEqual(await backends(name), [], 'no subscriber, no connection');
    const off = notifier.subscribe('t_idle', (p) => got.push(p));
    assert.equal(await notifier.ready(), true);
    assert.equal((await backends(name)).length, 1);
    off();
    await sleep(50);
    assert.equal((await backends(name)).length, 1, 'kept during idleCloseMs');
    await until('the idle connection to close', async () => (await backends(name)).length === 0);
    assert.equal(notifier.listening, false);
    notifier.subscribe('t_idle', (p) => got.push(p));
    assert.equal(await notifier.ready(), true);
    assert.equal(reconnects, 2);
    await notify('t_idle', 'again');
    await until('the notification on the new connection', () => got.length === 1);
    assert.deepEqual(got, ['again']);
  } finally {
    await notifier.close();
  }
});

test('a database that cannot be reached: ready() answers false, attempts go on, and nothing is delivered or thrown', async () => {
  const u = new URL(tdb.url);
  u.port = '1'; // nothing listens there
  const log = memoryLog();
  const notifier = new Notifier({ url: u.toString(), log, applicationName: 'notifier-unreachable', minDelayMs: 20, maxDelayMs: 40 });
  notifier.subscribe('t_none', () => assert.fail('no notification without a connection'));
  try {
    assert.equal(await notifier.ready(), false);
    await until('a few more attempts', () => log.lines.filter((l) => l.level === 'debug').length >= 2);
    assert.equal(log.lines.filter((l) => l.level === 'warn').length, 1, 'one warning per outage, not one per attempt');
    assert.ok(!JSON.stringify(log.lines).includes(u.password || '\0'), 'no password in the log');
  } finally {
    await notifier.close();
  }
});
