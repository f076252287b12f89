// A dispatcher whose process tasks run as its own user (not root, or
// SVC_TASK_USER=root) says so: a warning in its log at start, and a
// `details.process_executor` on its /readyz, which stays ready (200). With a
// task user to switch to (root with the default, nobody) it says nothing.
// The tests run as root here, so SVC_TASK_USER=root gives the unisolated case;
// process-tasks-run-isolated.test.ts shows what the isolated one withholds
// from a task (/proc/<dispatcher pid>/environ included).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Proc, type Stack } from './stack.js';
import { until } from './engine-support.js';

const root = process.getuid?.() === 0;
let s: Stack;

before(async () => {
  s = await startStack({ dispatchers: 0, maintenance: false });
});
after(() => s?.stop());

/** Starts a dispatcher serving /readyz on a free port; its URL once it answers ready, and its process. */
async function dispatcher(env: Record<string, string>): Promise<{ url: string; proc: Proc }> {
  const proc = s.startApp('dispatcher', { SVC_HEALTH_PORT: '0', SVC_LOG_LEVEL: 'info', ...env });
  const port = await until('its health port', async () => {
    if (proc.child.exitCode !== null) throw new Error(`the dispatcher exited: ${proc.output()}`);
    return /"message":"health listening"[^\n]*"port":(\d+)/.exec(proc.output())?.[1];
  });
  const url = `http://127.0.0.1:${port}`;
  await until('it to be ready', async () => (await fetch(`${url}/readyz`)).status === 200);
  return { url, proc };
}

test("tasks as the dispatcher's user: /readyz stays ready and carries details.process_executor; the start logs a warning", async () => {
  // As root, SVC_TASK_USER=root; as another user, any task user: either way tasks run as the dispatcher's user.
  const { url, proc } = await dispatcher({ SVC_TASK_USER: 'root' });
  const r = await fetch(`${url}/readyz`);
  assert.equal(r.status, 200);
  const body = (await r.json()) as { status: string; checks: Record<string, string>; details?: Record<string, string> };
  assert.equal(body.status, 'ok');
  assert.deepEqual(body.checks, { database: 'ok', migrations: 'ok', started: 'ok' });
  const uid = process.getuid!();
  assert.match(
    body.details?.process_executor ?? '',
    new RegExp(`^unisolated: tasks run as the dispatcher's user \\(uid ${uid}\\) because .*/proc/<pid>/environ`),
    JSON.stringify(body),
  );
  const warning = proc
    .output()
    .split('\n')
    .find((l) => l.includes('the process executor is unisolated'));
  assert.ok(warning && JSON.parse(warning).level === 'warn', proc.output());
});

test('tasks as the default task user (the dispatcher is root): no details, no warning', { skip: !root && 'needs root' }, async () => {
  const { url, proc } = await dispatcher({});
  const body = (await (await fetch(`${url}/readyz`)).json()) as Record<string, unknown>;
  assert.deepEqual(body, { status: 'ok', checks: { database: 'ok', migrations: 'ok', started: 'ok' } });
  assert.ok(!proc.output().includes('unisolated'), proc.output());
});
