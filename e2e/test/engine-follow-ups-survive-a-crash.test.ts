// Follow-ups are durable (the engine's outbox): a process killed between the
// commit of a change and the follow-ups the change causes loses none of them.
// Another instance (a dispatcher's poll, the maintenance holder's watchdog)
// runs them. Before, they lived only in memory: a cancelled parent's child
// kept running, and a parent waiting for a child that ended stayed RUNNING
// for up to 24 hours.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { claimTaskRuns } from '@svc/engine/internal';
import { root, startStack, type Stack } from './stack.js';
import { flow, sh, until } from './engine-support.js';

let s: Stack;

before(async () => {
  s = await startStack();
  await s.saveFlow('crash.lib', {
    'slow.flow.yaml': flow({ id: 'slow', tasks: [{ id: 'nap', type: 'command', command: sh('sleep 60') }] }),
    // Its task waits in a pool no dispatcher serves: the test completes it itself.
    'manual.flow.yaml': flow({ id: 'manual', tasks: [{ id: 'step', type: 'command', command: ['true'], executor: { pool: 'nobody-serves' } }] }),
  });
  await s.saveFlow('crash', {
    'parent.flow.yaml': flow({ id: 'parent', tasks: [{ id: 'call', type: 'subflow', flow: 'crash.lib/slow' }] }),
    'waiter.flow.yaml': flow({ id: 'waiter', tasks: [{ id: 'call', type: 'subflow', flow: 'crash.lib/manual' }] }),
  });
});
after(() => s.stop());

const get = async (id: string) => (await s.api('GET', `/api/v1/executions/${id}`)).body;

function commitThenDie(op: 'cancel' | 'complete', id: string): Promise<{ signal: NodeJS.Signals | null; out: string }> {
  const url = (s.db as unknown as { options: { connectionString: string } }).options.connectionString;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'e2e/test/fixtures/commit-then-die.ts'), url, op, id], {
      cwd: path.join(root, 'e2e'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.on('error', reject);
    child.on('exit', (_code, signal) => resolve({ signal, out }));
  });
}

test('a process killed after committing a cancel still has the children of the cancelled parent cancelled', async () => {
  const p = await s.trigger('crash', 'parent');
  const running = await s.waitFor(p.id, (e) => e.children.length === 1 && e.children[0].state === 'RUNNING');
  const childId = running.children[0].id as string;
  await until('the child task runs', async () => (await get(childId)).task_runs.some((r: any) => r.state === 'RUNNING'));
  const died = await commitThenDie('cancel', p.id);
  assert.equal(died.signal, 'SIGKILL');
  assert.deepEqual(JSON.parse(died.out).followUps, ['stop_children'], 'the cancel was committed with its follow-up recorded, then the process died');
  // The child would sleep for a minute: another instance ran the follow-up and stopped it.
  const child = await s.waitEnded(childId, 30_000);
  assert.equal(child.state, 'CANCELLED');
  const parent = await s.waitEnded(p.id, 30_000);
  assert.equal(parent.state, 'CANCELLED');
  const left = await s.db.query(`SELECT count(*)::int AS n FROM engine_outbox`);
  assert.equal(left.rows[0].n, 0, 'the outbox is empty once its follow-ups ran');
});

test('a process killed after committing the end of a child still ends the parent waiting for it', async () => {
  const w = await s.trigger('crash', 'waiter');
  const running = await s.waitFor(w.id, (e) => e.children.length === 1);
  const childId = running.children[0].id as string;
  // Claimed in the name of the live dispatcher: a claim by an instance with no row would soon be ended `lost` by the watchdog.
  const dispatcher = (await s.db.query<{ id: string }>(`SELECT id FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL LIMIT 1`)).rows[0]!.id;
  const [claimed] = await until('the child task is queued', async () => {
    const r = await claimTaskRuns(s.db, { instanceId: dispatcher, pools: ['nobody-serves'], executorType: 'process', limit: 1, now: new Date() });
    return r.length ? r : undefined;
  });
  const died = await commitThenDie('complete', claimed!.id);
  assert.equal(died.signal, 'SIGKILL');
  assert.deepEqual(JSON.parse(died.out).followUps, ['child_ended'], 'the child ended with its follow-up recorded, then the process died');
  assert.equal((await get(childId)).state, 'SUCCESS');
  const parent = await s.waitEnded(w.id, 30_000);
  assert.equal(parent.state, 'SUCCESS', JSON.stringify(parent));
  assert.equal(parent.task_runs[0].outputs.state, 'SUCCESS');
});
