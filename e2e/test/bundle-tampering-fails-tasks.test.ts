// A namespace's files changed in the object store behind svc's back (by
// anyone holding the store's credentials, or reaching an unauthenticated
// store) never run: on a real stack (gateway, dispatcher, file object store),
// a file object overwritten with other bytes fails the bundle's build, and a
// built bundle overwritten in the store fails the runner's check against
// bundle_hash; each run ends FAILED executor_error with an error naming what
// was changed, the tampered script leaves no trace and prints nothing, and the
// flow runs again once the genuine bytes are back.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { flow, run, sh, tmpDir } from './engine-support.js';

let s: Stack;
const NS = 'team-a';
const GENUINE = 'echo genuine\n';
const marks = tmpDir();
fs.chmodSync(marks, 0o777);
const marker = path.join(marks, 'tampered-ran');
const TAMPERED = `touch ${marker}; echo tampered\n`;
const objects = () => path.join(s.dataDir, 'objects');
const fileObject = (content: string) => {
  const h = crypto.createHash('sha256').update(content).digest('hex');
  return path.join(objects(), 'files', h.slice(0, 2), h);
};

before(async () => {
  s = await startStack();
  await s.saveFlow(NS, {
    'run.sh': GENUINE,
    'job.flow.yaml': flow({ id: 'job', tasks: [{ id: 'go', type: 'command', command: sh('sh run.sh') }] }),
  });
});
after(async () => {
  await s?.stop();
  fs.rmSync(marks, { recursive: true, force: true });
});

async function runJob(): Promise<{ go: any; lines: string[] }> {
  const ex = await s.trigger(NS, 'job');
  const done = await s.waitEnded(ex.id, 60_000);
  const logs = await s.api('GET', `/api/v1/executions/${ex.id}/logs`);
  return { go: run(done, 'go'), lines: ((logs.body.items ?? []) as { text: string }[]).map((l) => l.text) };
}

test('a file object changed in the store fails the build: the task ends executor_error naming the file, and nothing of it runs', async () => {
  const obj = fileObject(GENUINE);
  assert.ok(fs.existsSync(obj), `the file object at ${obj}`);
  fs.writeFileSync(obj, TAMPERED);
  const { go, lines } = await runJob();
  assert.equal(go.state, 'FAILED');
  assert.equal(go.reason, 'executor_error');
  assert.match(go.error, /^preparing the task failed: file "run\.sh" of snapshot \S+ does not match its sha256 in the object store \(expected [0-9a-f]{64}, found [0-9a-f]{64}\)/);
  assert.ok(!go.error.includes('tampered'), 'the content is not in the error');
  assert.deepEqual(lines, []);
  assert.equal(fs.existsSync(marker), false, 'the tampered script did not run');

  fs.writeFileSync(obj, GENUINE);
  const again = await runJob();
  assert.equal(again.go.state, 'SUCCESS', again.go.error);
  assert.deepEqual(again.lines, ['genuine']);
});

test("a bundle changed in the store after it was built fails the runner's check against bundle_hash, before it is unpacked", async () => {
  // Built by the run of the first test; a fresh dispatcher has no extracted copy of it, so it fetches the stored one.
  const bundles = fs.readdirSync(path.join(objects(), 'bundles')).filter((f) => f.endsWith('.tar.gz'));
  assert.equal(bundles.length, 1, bundles.join());
  const dir = tmpDir();
  fs.writeFileSync(path.join(dir, 'run.sh'), TAMPERED);
  execFileSync('tar', ['-czf', path.join(objects(), 'bundles', bundles[0]!), '-C', dir, 'run.sh']);
  fs.rmSync(dir, { recursive: true, force: true });
  const old = s.procs.find((p) => p.child.spawnargs.some((a) => a.includes('apps/dispatcher/')))!;
  old.child.kill('SIGTERM');
  await old.exited;
  s.startApp('dispatcher');

  const { go, lines } = await runJob();
  assert.equal(go.state, 'FAILED');
  assert.equal(go.reason, 'executor_error');
  assert.match(
    go.error,
    /^bundle: the bundle received has sha256 [0-9a-f]{64}, not the bundle_hash [0-9a-f]{64} of the task: it was changed after it was built; nothing of it was unpacked$/,
  );
  assert.deepEqual(lines, []);
  assert.equal(fs.existsSync(marker), false, 'the tampered script did not run');
});
