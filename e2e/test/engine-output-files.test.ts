// Output files with a real gateway and process dispatcher (docs/using/files.md):
// a task's `output_files` globs are kept after a success as artifacts of kind
// `output`, listed with their sha256 and downloaded byte for byte; a pattern
// matching nothing is no error; a file over SVC_MAX_ARTIFACT_BYTES fails the
// task with an error naming the file and the limit, and nothing of it is
// kept; a pattern outside the working directory is refused at save (422).
// A downstream task reads an upstream task's output file through
// `{{ tasks.<id>.files['p'] }}` (fetched by its runner, size and sha256
// checked; per item in a for_each); a reference to a task that is not upstream
// or to a path no pattern matches is refused at save; a run token of another
// namespace cannot fetch the file; a file changed in the object store fails
// the reader, naming it.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { markInstanceStopped } from '@svc/db';
import type { Schemas } from '@svc/api-spec';
import { startStack, type Stack } from './stack.js';
import { claimAsDispatcher, flow, run, runsOf, sh, tmpDir } from './engine-support.js';

let s: Stack;
/** Emits the path the task got and the sha256 of the file there. */
const READ_SHA = `printf '{"outputs":{"path":"%s","sha":"%s"}}\\n' "$F" "$(sha256sum "$F" | cut -c1-64)" >> "$SVC_OUTPUTS"`;
const NS = 'outfiles';
const LIMIT = 1024 * 1024;

before(async () => {
  s = await startStack({ env: { SVC_MAX_ARTIFACT_BYTES: String(LIMIT) } });
  await s.saveFlow(NS, {
    'keep.flow.yaml': flow({
      id: 'keep',
      tasks: [
        {
          id: 'w',
          type: 'command',
          command: sh('mkdir -p out && printf "a,1\\n" > out/a.csv && head -c 300000 /dev/urandom > out/b.csv && echo skip > out/c.txt && echo "{}" > report.json'),
          output_files: ['out/*.csv', 'report.json', 'nothing/**'],
        },
      ],
    }),
    'pass.flow.yaml': flow({
      id: 'pass',
      tasks: [
        { id: 'w', type: 'command', command: sh('mkdir -p out && head -c 300000 /dev/urandom > out/data.bin'), output_files: ['out/*.bin'] },
        {
          id: 'r',
          type: 'command',
          depends_on: ['w'],
          env: { F: "{{ tasks.w.files['out/data.bin'] }}" },
          command: sh(READ_SHA),
        },
      ],
    }),
    'items.flow.yaml': flow({
      id: 'items',
      tasks: [
        {
          id: 'm',
          type: 'command',
          for_each: ['a', 'b', 'c'],
          command: ['sh', '-c', 'mkdir -p out && printf %s "$1" > out/v.txt', 'sh', '{{ item }}'],
          output_files: ['out/v.txt'],
        },
        {
          id: 'r',
          type: 'command',
          depends_on: ['m'],
          for_each: ['a', 'b', 'c'],
          command: ['sh', '-c', `printf '{"outputs":{"v":"%s"}}\\n' "$(cat "$1")" >> "$SVC_OUTPUTS"`, 'sh', "{{ tasks.m.files['out/v.txt'] }}"],
        },
      ],
    }),
    'tamper.flow.yaml': flow({
      id: 'tamper',
      tasks: [
        { id: 'w', type: 'command', command: sh('mkdir -p out && head -c 100000 /dev/urandom > out/data.bin'), output_files: ['out/*.bin'] },
        {
          id: 'r',
          type: 'command',
          depends_on: ['w'],
          executor: { type: 'process', pool: 'later' },
          env: { F: "{{ tasks.w.files['out/data.bin'] }}" },
          command: sh(READ_SHA),
        },
      ],
    }),
    'again.flow.yaml': flow({
      id: 'again',
      inputs: [{ id: 'dir', type: 'string' }],
      tasks: [
        { id: 'w', type: 'command', command: sh('mkdir -p out && head -c 20000 /dev/urandom > out/data.bin'), output_files: ['out/*.bin'] },
        {
          id: 'r',
          type: 'command',
          depends_on: ['w'],
          env: { F: "{{ tasks.w.files['out/data.bin'] }}", DIR: '{{ inputs.dir }}' },
          command: sh(`test -f "$DIR/ok" && ${READ_SHA}`),
        },
      ],
    }),
    'big.flow.yaml': flow({
      id: 'big',
      tasks: [{ id: 'w', type: 'command', command: sh(`mkdir -p out && head -c ${LIMIT + 1} /dev/zero > out/big.bin`), output_files: ['out/*'] }],
    }),
  });
});
after(() => s?.stop());

const artifactsOf = async (id: string) => (await s.api('GET', `/api/v1/executions/${id}/artifacts`)).body.items as any[];

test('the matching files are kept as output files with their sha256, and download byte for byte', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'keep')).id);
  assert.equal(done.state, 'SUCCESS', run(done, 'w').error);
  const items = await artifactsOf(done.id);
  assert.deepEqual(items.map((a) => [a.name, a.kind]).sort(), [
    ['out/a.csv', 'output'],
    ['out/b.csv', 'output'],
    ['report.json', 'output'],
  ]);
  for (const a of items) {
    const r = await fetch(`${s.url}/api/v1/executions/${done.id}/artifacts/${a.id}`, { headers: { authorization: `Bearer ${s.token}` } });
    assert.equal(r.status, 200);
    const body = Buffer.from(await r.arrayBuffer());
    assert.equal(body.length, a.size);
    assert.equal(crypto.createHash('sha256').update(body).digest('hex'), a.sha256, a.name);
  }
});

test('a file over SVC_MAX_ARTIFACT_BYTES fails the task naming the file and the limit, and is not kept', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'big')).id);
  const w = run(done, 'w');
  assert.equal(w.state, 'FAILED');
  assert.equal(w.error, `output file out/big.bin is ${LIMIT + 1} bytes, over SVC_MAX_ARTIFACT_BYTES (${LIMIT} bytes)`);
  assert.deepEqual(await artifactsOf(done.id), []);
});

test('an output_files pattern outside the working directory is refused at save, on its field', async () => {
  await s.api('POST', '/api/v1/namespaces', { name: 'outfiles-bad' });
  const r = await s.api('POST', '/api/v1/namespaces/outfiles-bad/changes', {
    message: 'e2e',
    changes: [{ op: 'put', path: 'bad.flow.yaml', content: flow({ id: 'bad', tasks: [{ id: 'w', type: 'command', command: ['true'], output_files: ['../etc/passwd'] }] }) }],
  });
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.match(JSON.stringify(r.body.error.details), /output_files/);
});

test("a downstream task reads an upstream task's output file at the rendered path, with an equal sha256", async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'pass')).id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done.task_runs.map((r: any) => [r.task_key, r.error])));
  const [file] = await artifactsOf(done.id);
  assert.equal(file.name, 'out/data.bin');
  assert.deepEqual(run(done, 'r').outputs, { path: '.svc/files/w/out/data.bin', sha: file.sha256 });
  assert.equal((await artifactsOf(done.id)).length, 1, 'the fetched file is not an output of the reader');
});

test('in a for_each, an item reads the output file of the same item of the task it depends on', async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'items')).id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done.task_runs.map((r: any) => [r.task_key, r.item_index, r.error])));
  const items = done.task_runs.filter((r: any) => r.task_key === 'r' && r.item_index !== undefined && r.item_index !== null).sort((a: any, b: any) => a.item_index - b.item_index);
  assert.deepEqual(
    items.map((r: any) => r.outputs.v),
    ['a', 'b', 'c'],
  );
});

test('a file reference to a task that is not upstream, or to a path no output_files pattern matches, is refused at save on its field', async () => {
  await s.api('POST', '/api/v1/namespaces', { name: 'outfiles-refs' });
  const writer = { id: 'w', type: 'command', command: ['true'], output_files: ['out/*.csv'] };
  for (const [reader, message] of [
    [{ id: 'r', type: 'command', command: ['cat', "{{ tasks.w.files['out/a.csv'] }}"] }, /"w" is not upstream of "r"/],
    [{ id: 'r', type: 'command', depends_on: ['w'], command: ['cat', "{{ tasks.w.files['out/a.txt'] }}"] }, /no output_files pattern of task "w" matches "out\/a.txt"/],
  ] as const) {
    const r = await s.api('POST', '/api/v1/namespaces/outfiles-refs/changes', {
      message: 'e2e',
      changes: [{ op: 'put', path: 'refs.flow.yaml', content: flow({ id: 'refs', tasks: [writer, reader] }) }],
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    const details = r.body.error.details as Schemas['ErrorDetail'][];
    assert.ok(
      details.some((d) => /tasks\[1\]\.command\[1\]/.test(d.field + d.message) && message.test(d.message)),
      JSON.stringify(details),
    );
  }
});

test("a run token of another namespace cannot fetch a namespace's output file; the reader's own token can", async () => {
  const held = { type: 'process', pool: 'held' };
  await s.saveFlow(NS, {
    'heldread.flow.yaml': flow({
      id: 'heldread',
      tasks: [
        { id: 'w', type: 'command', command: sh('mkdir -p out && head -c 5000 /dev/urandom > out/data.bin'), output_files: ['out/*.bin'] },
        { id: 'r', type: 'command', depends_on: ['w'], executor: held, command: ['cat', "{{ tasks.w.files['out/data.bin'] }}"] },
      ],
    }),
  });
  await s.saveFlow('outfiles-b', { 'held.flow.yaml': flow({ id: 'held', tasks: [{ id: 't', type: 'command', command: ['true'], executor: held }] }) });
  const mine = (await s.trigger(NS, 'heldread')).id;
  const other = (await s.trigger('outfiles-b', 'held')).id;
  await s.waitFor(mine, (e) => runsOf(e, 'r').at(-1)?.state === 'QUEUED', 60_000);
  await s.waitFor(other, (e) => e.task_runs[0]?.state === 'QUEUED');
  const [file] = await artifactsOf(mine);
  const { claimed, getFile: get } = await claimAsDispatcher(s.db, s.url, { id: 'outfiles-test', pools: ['held'], limit: 2 });
  assert.equal(claimed.length, 2);
  const reader = claimed.find((c: any) => c.execution_id === mine)!;
  const foreign = claimed.find((c: any) => c.execution_id === other)!;

  const own = await get(reader.id, file.id);
  assert.equal(own.status, 200);
  assert.equal(own.headers.get('x-svc-sha256'), file.sha256);
  assert.equal(
    crypto
      .createHash('sha256')
      .update(Buffer.from(await own.arrayBuffer()))
      .digest('hex'),
    file.sha256,
  );

  const r = await get(foreign.id, file.id);
  const text = await r.text();
  assert.equal(r.status, 404, text);
  assert.equal(JSON.parse(text).error.code, 'not_found');
  assert.ok(!text.includes(file.sha256), 'nothing of the file is told');
  await markInstanceStopped(s.db, 'outfiles-test');
});

test('an output file changed in the object store fails the task that reads it, naming the file', async () => {
  const id = (await s.trigger(NS, 'tamper')).id;
  await s.waitFor(id, (e) => runsOf(e, 'w').at(-1)?.state === 'SUCCESS' && runsOf(e, 'r').at(-1)?.state === 'QUEUED', 60_000);
  const row = (await s.db.query(`SELECT object_key, size FROM artifacts WHERE execution_id = $1 AND kind = 'output'`, [id])).rows[0];
  const object = path.join(s.dataDir, 'objects', ...String(row.object_key).split('/'));
  assert.ok(fs.existsSync(object), object);
  fs.writeFileSync(object, Buffer.alloc(Number(row.size), 1));
  const later = s.startApp('dispatcher', { SVC_POOLS: 'later', SVC_WORKER_SLOTS: '1' });
  try {
    const done = await s.waitEnded(id, 60_000);
    const r = run(done, 'r');
    assert.equal(r.state, 'FAILED');
    assert.equal(r.reason, 'executor_error');
    assert.match(
      r.error,
      /^input file \.svc\/files\/w\/out\/data\.bin does not match what was stored: 100000 bytes with sha256 [0-9a-f]{64}, expected 100000 bytes with sha256 [0-9a-f]{64}$/,
    );
  } finally {
    later.child.kill('SIGTERM');
    await later.exited;
  }
});

test("a restart keeps the reused task run's output files: the same object, listed in the new execution, read by the task that runs again", async () => {
  const dir = tmpDir();
  fs.chmodSync(dir, 0o777);
  const first = await s.waitEnded((await s.trigger(NS, 'again', { inputs: { dir } })).id);
  assert.equal(run(first, 'r').state, 'FAILED');
  const [original] = await artifactsOf(first.id);
  fs.writeFileSync(path.join(dir, 'ok'), '');

  const r = await s.api('POST', `/api/v1/executions/${first.id}/restart`);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const done = await s.waitEnded(r.body.id);
  assert.equal(done.state, 'SUCCESS', run(done, 'r').error);
  assert.equal(run(done, 'w').reused_from_id, run(first, 'w').id, 'w was reused, not run again');
  const files = await artifactsOf(done.id);
  assert.deepEqual(
    files.map((a) => [a.name, a.kind, a.size, a.sha256, a.task_run_id]),
    [['out/data.bin', 'output', original.size, original.sha256, run(done, 'w').id]],
  );
  assert.notEqual(files[0].id, original.id, 'a row of its own');
  const keys = (await s.db.query(`SELECT DISTINCT object_key FROM artifacts WHERE id = ANY($1)`, [[files[0].id, original.id]])).rows;
  assert.equal(keys.length, 1, 'the same object');
  assert.deepEqual(run(done, 'r').outputs, { path: '.svc/files/w/out/data.bin', sha: original.sha256 });
  const dl = await fetch(`${s.url}/api/v1/executions/${done.id}/artifacts/${files[0].id}`, { headers: { authorization: `Bearer ${s.token}` } });
  assert.equal(
    crypto
      .createHash('sha256')
      .update(Buffer.from(await dl.arrayBuffer()))
      .digest('hex'),
    original.sha256,
  );
  fs.rmSync(dir, { recursive: true, force: true });
});
