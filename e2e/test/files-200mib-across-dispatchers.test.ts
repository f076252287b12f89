// Issue #44's done-test for files between tasks (docs/using/files.md): on a
// real stack with a real Docker engine, a Docker task writes a 200 MiB output
// file (uploaded by `svc exec` through the gateway, streamed to the object
// store); a process task on ANOTHER dispatcher (its own pool) and a Docker
// task (whose runner fetches it back through the gateway's runnerGetFile)
// read it with an equal sha256. The gateway's resident memory (VmRSS of its
// process, sampled during the transfers) grows by far less than the file: the
// bodies are streamed, never held. A file over SVC_MAX_ARTIFACT_BYTES fails
// its task with an error naming the file and the limit. Skipped where there
// is no Docker engine.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type Dockerode from 'dockerode';
import { ensureTestImages, testDocker, type TestImages } from '@svc/container-testing';
import { flow, run } from './engine-support.js';
import { startStack, type Stack } from './stack.js';

const d = testDocker();
const skip = 'skip' in d ? `SKIPPED, no Docker engine: ${d.skip}` : false;
if (skip) process.stderr.write(`\n!!! ${skip}\n\n`);
let images: TestImages;
let s: Stack;
const NS = 'bigfiles';
const MiB = 1024 * 1024;
const SIZE = 200 * MiB;
const LIMIT = 210 * MiB;
/** The gateway may grow by this much while 200 MiB pass through it twice: far less than one file. */
const GROWTH_BOUND_MIB = 150;
const READ_SHA = `printf '{"outputs":{"sha":"%s"}}\\n' "$(sha256sum "$F" | cut -c1-64)" >> "$SVC_OUTPUTS"`;

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

before(async () => {
  if (skip) return;
  const docker = (d as { docker: Dockerode }).docker;
  images = await ensureTestImages(docker);
  const host = (d as { host: string }).host;
  s = await startStack({
    env: {
      SVC_EXECUTORS: 'process,docker',
      SVC_DOCKER_HOST: host,
      SVC_DOCKER_NETWORK: 'host',
      SVC_DOCKER_NETWORKS: 'host',
      SVC_MAX_ARTIFACT_BYTES: String(LIMIT),
    },
  });
  // The other dispatcher: process tasks of pool `readers` only.
  s.startApp('dispatcher', { SVC_EXECUTORS: 'process', SVC_POOLS: 'readers', SVC_WORKER_SLOTS: '1' });
  const inDocker = { type: 'docker', image: images.busybox };
  await s.saveFlow(NS, {
    'big.flow.yaml': flow({
      id: 'big',
      tasks: [
        { id: 'w', type: 'command', executor: inDocker, command: ['sh', '-c', `mkdir -p out && head -c ${SIZE} /dev/urandom > out/big.bin`], output_files: ['out/*.bin'] },
        {
          id: 'p',
          type: 'command',
          depends_on: ['w'],
          executor: { type: 'process', pool: 'readers' },
          env: { F: "{{ tasks.w.files['out/big.bin'] }}" },
          command: ['sh', '-c', READ_SHA],
        },
        { id: 'k', type: 'command', depends_on: ['p'], executor: inDocker, env: { F: "{{ tasks.w.files['out/big.bin'] }}" }, command: ['sh', '-c', READ_SHA] },
      ],
    }),
    'over.flow.yaml': flow({
      id: 'over',
      tasks: [{ id: 'w', type: 'command', executor: inDocker, command: ['sh', '-c', `mkdir -p out && head -c ${LIMIT + 1} /dev/zero > out/over.bin`], output_files: ['out/*'] }],
    }),
  });
});
after(() => s?.stop());

test(
  'a 200 MiB file a Docker task wrote is read by a process task on another dispatcher and by a Docker task with an equal sha256, the gateway memory flat',
  { skip },
  async () => {
    const gateway = s.procs[0]!.child.pid!;
    const base = rssMiB(gateway);
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(gateway))), 100);
    let done: any;
    try {
      done = await s.waitEnded((await s.trigger(NS, 'big')).id, 600_000);
    } finally {
      clearInterval(sampler);
    }
    assert.equal(done.state, 'SUCCESS', JSON.stringify(done.task_runs.map((r: any) => [r.task_key, r.state, r.error])));
    const items = (await s.api('GET', `/api/v1/executions/${done.id}/artifacts`)).body.items as any[];
    assert.deepEqual(
      items.map((a) => [a.name, a.kind, a.size]),
      [['out/big.bin', 'output', SIZE]],
    );
    const sha = items[0].sha256;
    assert.deepEqual(run(done, 'p').outputs, { sha }, 'the process task on the other dispatcher read the same bytes');
    assert.deepEqual(run(done, 'k').outputs, { sha }, 'the Docker task read the same bytes through the gateway');
    const p = (await s.db.query(`SELECT claimed_by FROM task_runs WHERE id = $1`, [run(done, 'p').id])).rows[0];
    const w = (await s.db.query(`SELECT claimed_by FROM task_runs WHERE id = $1`, [run(done, 'w').id])).rows[0];
    assert.ok(p.claimed_by && w.claimed_by);
    assert.notEqual(p.claimed_by, w.claimed_by, 'the reader ran on another dispatcher');
    console.log(`gateway VmRSS: ${base.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB at most while 2 x 200 MiB passed`);
    assert.ok(peak - base < GROWTH_BOUND_MIB, `the gateway grew by ${(peak - base).toFixed(0)} MiB (bound ${GROWTH_BOUND_MIB} MiB)`);
  },
);

test('a file over SVC_MAX_ARTIFACT_BYTES fails the Docker task naming the file and the limit', { skip }, async () => {
  const done = await s.waitEnded((await s.trigger(NS, 'over')).id, 300_000);
  const w = run(done, 'w');
  assert.equal(w.state, 'FAILED');
  assert.equal(w.reason, 'executor_error');
  assert.equal(w.error, `output file out/over.bin is ${LIMIT + 1} bytes, over SVC_MAX_ARTIFACT_BYTES (${LIMIT} bytes)`);
  assert.deepEqual((await s.api('GET', `/api/v1/executions/${done.id}/artifacts`)).body.items, []);
});
