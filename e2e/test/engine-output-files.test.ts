// Output files with a real gateway and process dispatcher (docs/using/files.md):
// a task's `output_files` globs are kept after a success as artifacts of kind
// `output`, listed with their sha256 and downloaded byte for byte; a pattern
// matching nothing is no error; a file over SVC_MAX_ARTIFACT_BYTES fails the
// task with an error naming the file and the limit, and nothing of it is
// kept; a pattern outside the working directory is refused at save (422).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { flow, run, sh } from './engine-support.js';

let s: Stack;
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
