// The process executor's tasks cannot read the dispatcher's secrets. With the
// dispatcher running as root (as on the test machines), a task runs as
// SVC_TASK_USER (default nobody): its environment holds none of the
// dispatcher's variables (no SVC_MASTER_KEYS, no SVC_DATABASE_URL), it cannot
// read them through /proc either, and it can neither list the data directory
// nor read the master key file or the object store in it; its working
// directory, outputs file and artifacts still work.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { flow, run, sh, until } from './engine-support.js';

const root = process.getuid?.() === 0;
let s: Stack;
const NS = 'iso';
const KEY_VALUE = Buffer.alloc(32, 9).toString('base64'); // the stack's SVC_MASTER_KEYS value

before(async () => {
  if (!root) return;
  s = await startStack({ dispatchers: 0 });
  // A generated master key file as `npm start` keeps it, but readable by all: the dispatcher must close it.
  fs.writeFileSync(path.join(s.dataDir, 'master-keys'), `k1:${KEY_VALUE}\n`, { mode: 0o644 });
  fs.chmodSync(path.join(s.dataDir, 'master-keys'), 0o644);
  fs.chmodSync(s.dataDir, 0o755);
  s.startApp('dispatcher');
  await until('a dispatcher online', async () => (await s.db.query(`SELECT 1 FROM instances WHERE kind = 'dispatcher' AND stopped_at IS NULL`)).rowCount);
  await s.saveFlow(NS, {
    'probe.flow.yaml': flow({
      id: 'probe',
      inputs: [{ id: 'data', type: 'string' }],
      tasks: [
        {
          id: 'probe',
          type: 'command',
          env: { DATA: '{{ inputs.data }}' },
          command: sh(
            [
              'echo "uid=$(id -u) gid=$(id -g)"',
              'env | sort | sed "s/^/env: /"',
              "echo \"proc-keys=$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c -e ^SVC_MASTER_KEYS= -e ^SVC_DATABASE_URL=)\"",
              "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | sed \"s/^/proc: /\"",
              'ls "$DATA" >/dev/null 2>&1 && echo data=listed || echo data=closed',
              'cat "$DATA/master-keys" 2>/dev/null && echo key=read || echo key=closed',
              'ls "$DATA/objects" >/dev/null 2>&1 && echo objects=listed || echo objects=closed',
              'echo mine > ./made-by-task && echo workdir=writable',
              'echo "{\\"outputs\\": {\\"uid\\": \\"$(id -u)\\"}}" >> "$SVC_OUTPUTS"',
              'echo art > "$SVC_ARTIFACTS_DIR/a.txt"',
              'ln "$DATA/master-keys" "$SVC_ARTIFACTS_DIR/hard-link" 2>/dev/null; ln -s "$DATA/master-keys" "$SVC_ARTIFACTS_DIR/soft-link"',
              'true',
            ].join('\n'),
          ),
        },
      ],
    }),
  });
});
after(() => s?.stop());

test(
  "as root, a process task runs as the task user with none of the dispatcher's environment, and the data directory is closed to it",
  { skip: !root && 'needs root' },
  async () => {
    // The dispatcher does hold the values a task must not see.
    const dispatcher = s.procs[s.procs.length - 1]!.child.pid!;
    const own = fs.readFileSync(`/proc/${dispatcher}/environ`, 'utf8');
    assert.ok(own.includes(`SVC_MASTER_KEYS=k1:${KEY_VALUE}`) && own.includes('SVC_DATABASE_URL='));

    for (let i = 0; i < 2; i++) {
      // Twice: the second run gets the kept working directory and io directory back.
      const e = await s.trigger(NS, 'probe', { inputs: { data: s.dataDir } });
      const done = await s.waitEnded(e.id);
      assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
      const lines = (await s.db.query(`SELECT text FROM log_lines WHERE execution_id = $1 ORDER BY n`, [e.id])).rows.map((r) => r.text as string);
      const text = lines.join('\n');
      const nobody = /^nobody:x:(\d+):(\d+):/m.exec(fs.readFileSync('/etc/passwd', 'utf8'))!;
      assert.ok(lines.includes(`uid=${nobody[1]} gid=${nobody[2]}`), text);
      assert.ok(!lines.some((l) => /^env: SVC_(MASTER_KEYS|DATABASE_URL|STORAGE_URL|DATA_DIR|WORK_DIR|PORT|WATCHDOG_MS|KILL_DELAY_MS|LOG_LEVEL)=/.test(l)), text);
      assert.ok(lines.includes('env: USER=nobody') && lines.some((l) => l.startsWith('env: PATH=')), text);
      assert.ok(lines.includes('proc-keys=0'), text);
      assert.ok(!text.includes(KEY_VALUE), 'the master key reached the task');
      assert.ok(
        !text.includes(
          new URL(
            own
              .split('\0')
              .find((v) => v.startsWith('SVC_DATABASE_URL='))!
              .slice(17),
          ).password,
        ),
        'the database password reached the task',
      );
      for (const l of ['data=closed', 'key=closed', 'objects=closed', 'workdir=writable']) assert.ok(lines.includes(l), `${l}\n${text}`);
      assert.deepEqual(run(done, 'probe').outputs, { uid: nobody[1] });
      const artifacts = (await s.api('GET', `/api/v1/executions/${e.id}/artifacts`)).body.items.map((a: any) => a.name);
      assert.deepEqual(artifacts, ['a.txt'], 'links to the key are not uploaded');
    }
    // The data directory is closed to others but for traversal; the key file is the owner's only.
    assert.equal(fs.statSync(s.dataDir).mode & 0o777, 0o711);
    assert.equal(fs.statSync(path.join(s.dataDir, 'master-keys')).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.join(s.dataDir, 'objects')).mode & 0o077, 0);
  },
);
