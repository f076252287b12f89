// A caller's io directory (the process executor keeps one per slot): the
// outputs file and artifacts live there, the run directory itself is the
// bundle root (the task's working directory), and the caller learns whether
// the task's process group is gone before it reuses the io directory.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { runTask } from '../src/index.js';
import { makeSpec, MemoryTransport, scratchRoots } from '../src/testing/index.js';

const root = scratchRoots();

test('with an io directory: outputs and artifacts go there, the working directory is the fresh run directory, removed afterwards', async () => {
  const workRoot = await root();
  const ioDir = path.join(await root(), 'io');
  await fs.mkdir(path.join(ioDir, 'artifacts'), { recursive: true });
  const script = ['pwd > "$SVC_ARTIFACTS_DIR/cwd.txt"', 'ls -A > "$SVC_ARTIFACTS_DIR/ls.txt"', `echo '{"outputs": {"outputs_file": "'"$SVC_OUTPUTS"'"}}' >> "$SVC_OUTPUTS"`].join(
    '\n',
  );
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script], files: { 'input.txt': 'hello' } }));
  let groupGone: boolean | null = null;
  const c = await runTask({ transport: t, workRoot, ioDir, onProcessEnd: (g) => (groupGone = g) });
  assert.equal(c.state, 'SUCCESS', c.error);
  assert.equal(c.outputs.outputs_file, path.join(ioDir, 'outputs.jsonl'));
  const cwd = t.artifacts.get('cwd.txt')!.toString().trim();
  assert.equal(path.dirname(cwd), await fs.realpath(workRoot), 'the run directory is the working directory');
  assert.equal(t.artifacts.get('ls.txt')!.toString().trim(), 'input.txt', 'only the bundle and files are in the working directory');
  assert.deepEqual(await fs.readdir(workRoot), [], 'the run directory is removed');
  assert.equal(groupGone, true);
  // The caller empties the io directory; the runner leaves what the task wrote for it.
  assert.deepEqual((await fs.readdir(path.join(ioDir, 'artifacts'))).sort(), ['cwd.txt', 'ls.txt']);
});

test('onProcessEnd says the group is not gone while a leftover that ignores SIGTERM lives on', async () => {
  const ioDir = path.join(await root(), 'io');
  await fs.mkdir(path.join(ioDir, 'artifacts'), { recursive: true });
  const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', `bash -c 'trap "" TERM; sleep 3' >/dev/null 2>&1 & echo started`] }));
  let groupGone: boolean | null = null;
  const c = await runTask({ transport: t, workRoot: await root(), ioDir, killDelayMs: 200, onProcessEnd: (g) => (groupGone = g) });
  assert.equal(c.state, 'SUCCESS');
  assert.equal(groupGone, false);
});
