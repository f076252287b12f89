// svc executions replay as a subprocess against a real stack: an execution
// that failed on a wrong input, replayed with --input fixed --from its third
// task, prints the reuse plan (the first two tasks reused, the third runs),
// then the new execution's id, which succeeds reusing the first two;
// --dry-run prints the plan and starts nothing; --latest replays on the
// flow's new revision; a wrong input type and an unknown task are the
// server's validation_failed naming the field.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
const NS = 'cli.replay';
const sh = (script: string) => JSON.stringify(['sh', '-c', script]);

const etl = (extra = '') => `id: etl
inputs:
  - { id: date, type: string }
  - { id: batch, type: int, default: 1 }
tasks:
  - id: extract
    type: command
    command: ["echo", "extracted"]
  - id: transform
    type: command
    depends_on: [extract]
    command: ["echo", "transformed"]
  - id: load
    type: command
    depends_on: [transform]
    command: ${sh('case "{{ inputs.date }}" in 2026-*) echo "loaded {{ inputs.date }}";; *) echo "bad date" >&2; exit 1;; esac')}
${extra}`;

before(async () => {
  s = await startStack({ maintenance: false });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await s.saveFlow(NS, { 'etl.flow.yaml': etl() });
});
after(async () => {
  await s.stop();
  home.cleanup();
});

async function failed(): Promise<any> {
  const e = await s.trigger(NS, 'etl', { inputs: { date: 'yesterday' } });
  const ended = await s.waitEnded(e.id);
  assert.equal(ended.state, 'FAILED');
  return ended;
}

const runOf = (e: any, k: string) => e.task_runs.find((r: any) => r.task_key === k);

test('replay --input --from prints the reuse plan, then the new execution id; the first two tasks are reused and it succeeds', async () => {
  const original = await failed();
  const dry = await svc(['executions', 'replay', original.id, '--input', 'date=2026-11-01', '--from', 'load', '--dry-run'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^replay of \S+ on the pinned revision/);
  assert.match(dry.stdout, new RegExp(`reuse  extract\\s+\\(task run ${runOf(original, 'extract').id}\\)`));
  assert.match(dry.stdout, /reuse  transform/);
  assert.match(dry.stdout, /run    load/);
  assert.match(dry.stdout, /changed inputs: date/);
  const list = (await s.api('GET', `/api/v1/executions?namespace=${NS}&limit=50`)).body.items;
  assert.equal(list.length, 1, '--dry-run starts nothing');

  const r = await svc(['executions', 'replay', original.id, '--input', 'date=2026-11-01', '--from', 'load'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /reuse  extract/);
  assert.match(r.stderr, /run    load/);
  const id = r.stdout.trim();
  assert.match(id, /^\S+$/);
  const done = await s.waitEnded(id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(done.replay_of, original.id);
  for (const k of ['extract', 'transform']) assert.equal(runOf(done, k).reason, 'reused', k);

  const json = await svc(['executions', 'replay', original.id, '--input', 'date=2026-11-02', '--label', 'fixed=yes', '-o', 'json'], { env });
  assert.equal(json.code, 0, json.stderr);
  const e = JSON.parse(json.stdout);
  assert.equal(e.replay_of, original.id);
  assert.equal(e.labels.fixed, 'yes');
});

test('replay --latest runs the flow new revision; a wrong type and an unknown task are refused naming the field', async () => {
  const original = await failed();
  await s.saveFlow(NS, { 'etl.flow.yaml': etl(`  - id: publish\n    type: command\n    depends_on: [load]\n    command: ["echo", "published"]\n`) });
  const r = await svc(['executions', 'replay', original.id, '--input', 'date=2026-11-01', '--from', 'load', '--latest'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /on the latest revision/);
  assert.match(r.stderr, /run    publish/);
  const done = await s.waitEnded(r.stdout.trim());
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(runOf(done, 'publish').state, 'SUCCESS');
  assert.notEqual(done.flow_revision_id, original.flow_revision_id);

  const bad = await svc(['executions', 'replay', original.id, '--input', 'batch=many'], { env });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /inputs\.batch/);
  const from = await svc(['executions', 'replay', original.id, '--from', 'nope'], { env });
  assert.notEqual(from.code, 0);
  assert.match(from.stderr, /from/);
});
