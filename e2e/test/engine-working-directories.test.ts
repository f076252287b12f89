// The process executor's working directories, with a real dispatcher: the
// dispatcher keeps them between tasks, but each task starts in exactly the
// snapshot's files. A task that changes a namespace file, adds files,
// directories and links, and removes another file leaves nothing of it for
// the next task, which runs in the same kept directory; and a link the first
// task put in place of a namespace file is replaced, not written through.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { flow, run, sh, tmpDir } from './engine-support.js';

let s: Stack;
const NS = 'wd';
const outside = tmpDir();
const precious = path.join(outside, 'precious.txt');

before(async () => {
  fs.writeFileSync(precious, 'keep me\n');
  fs.chmodSync(outside, 0o777);
  s = await startStack();
  await s.saveFlow(NS, {
    'data/config.txt': 'original\n',
    'notes.md': 'namespace notes\n',
    'mess.flow.yaml': flow({
      id: 'mess',
      tasks: [
        {
          id: 'dirty',
          type: 'command',
          command: sh(
            [
              'mode=$(stat -c %a data)',
              'echo changed > data/config.txt',
              'rm notes.md',
              `ln -s ${precious} notes.md`,
              'touch leftover.txt',
              'mkdir -p build/deep && echo obj > build/deep/out.o',
              'chmod 700 data',
              `printf '{"outputs": {"dir": "%s", "mode": "%s"}}\\n' "$PWD" "$mode" >> "$SVC_OUTPUTS"`,
            ].join(' && '),
          ),
        },
        {
          id: 'check',
          type: 'command',
          depends_on: ['dirty'],
          command: sh(
            [
              'test "$(cat data/config.txt)" = original',
              'test ! -L notes.md',
              'test "$(cat notes.md)" = "namespace notes"',
              'test ! -e leftover.txt',
              'test ! -e build',
              `printf '{"outputs": {"dir": "%s", "mode": "%s", "listing": "%s"}}\\n' "$PWD" "$(stat -c %a data)" "$(ls -A | sort | tr '\\n' ' ')" >> "$SVC_OUTPUTS"`,
            ].join(' && '),
          ),
        },
      ],
    }),
  });
});
after(() => s.stop());

test('a task starts in exactly the snapshot files, whatever the task before it in the same kept directory did', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'mess')).id);
  const dirty = run(done, 'dirty');
  const check = run(done, 'check');
  assert.equal(dirty.state, 'SUCCESS', dirty.error);
  assert.equal(check.state, 'SUCCESS', `the second task saw what the first left: ${check.error}`);
  assert.equal(check.outputs.listing, 'data mess.flow.yaml notes.md ');
  assert.equal(check.outputs.mode, dirty.outputs.mode, 'the directory mode the first task changed is back');
  assert.equal(check.outputs.dir, dirty.outputs.dir, 'the kept directory was reused');
  assert.equal(fs.readFileSync(precious, 'utf8'), 'keep me\n', 'nothing was written through the link the first task left');
});
