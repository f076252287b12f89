// svc run NS/FLOW --batch FILE as a subprocess against a real stack: a JSON
// array file and NDJSON on standard input each start one execution per item
// in item order (ids on stdout, a count by state on stderr; -o json the
// answer), -l adds a label to every item; a bad item fails the whole batch
// with the server's field (nothing created); an unreadable file is a usage
// error before any request; the token never shows in any output.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { components } from '@svc/api-spec';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
const NS = 'cli.batch';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-run-batch-'));

before(async () => {
  // No dispatcher: the executions stay as created, which is what is checked.
  s = await startStack({ maintenance: false, dispatchers: 0 });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await s.saveFlow(NS, {
    'daily.flow.yaml': `id: daily
labels:
  team: data
inputs:
  - id: date
    type: string
    required: true
  - id: n
    type: int
    default: 1
tasks:
  - id: echo
    type: command
    command: ["echo", "{{ inputs.date }}"]
`,
  });
});
after(async () => {
  await s?.stop();
  home.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
});

const rowsOf = async (ids: string[]) =>
  (await s.db.query(`SELECT id, inputs, labels FROM executions WHERE id = ANY($1) ORDER BY created_at`, [ids])).rows as {
    id: string;
    inputs: Record<string, unknown>;
    labels: Record<string, string>;
  }[];
const countAll = async () => Number((await s.db.query(`SELECT count(*)::int AS n FROM executions WHERE namespace = $1`, [NS])).rows[0].n);

test('a JSON array file starts one execution per item, in order; the ids go to stdout', async () => {
  const file = path.join(work, 'days.json');
  fs.writeFileSync(
    file,
    JSON.stringify([{ inputs: { date: '2026-12-01' } }, { inputs: { date: '2026-12-02', n: 5 }, labels: { part: 'two' } }, { inputs: { date: '2026-12-03' } }]),
  );
  const r = await svc(['run', `${NS}/daily`, '--batch', file, '-l', 'source=cli'], { env });
  assert.equal(r.code, 0, r.stderr);
  const ids = r.stdout.trim().split('\n');
  assert.equal(ids.length, 3, r.stdout);
  assert.match(r.stderr, /created 3 execution\(s\) of cli\.batch\/daily \(3 RUNNING\)/);
  const rows = await rowsOf(ids);
  assert.deepEqual(
    rows.map((x) => x.id),
    ids,
    'created in item order',
  );
  assert.deepEqual(
    rows.map((x) => x.inputs),
    [
      { date: '2026-12-01', n: 1 },
      { date: '2026-12-02', n: 5 },
      { date: '2026-12-03', n: 1 },
    ],
  );
  assert.deepEqual(rows[1]!.labels, { team: 'data', source: 'cli', part: 'two' });
  assert.deepEqual(rows[0]!.labels, { team: 'data', source: 'cli' });
  for (const out of [r.stdout, r.stderr]) assert.ok(!out.includes(s.token), 'the token is never printed');
});

test('NDJSON on standard input with -o json prints the answer', async () => {
  const ndjson = ['{"inputs": {"date": "a"}}', '', '{"inputs": {"date": "b"}, "labels": {"k": "v"}}', ''].join('\n');
  const r = await svc(['run', `${NS}/daily`, '--batch', '-', '-o', 'json'], { env, stdin: ndjson });
  assert.equal(r.code, 0, r.stderr);
  const answer = JSON.parse(r.stdout) as components['schemas']['TriggerFlowBatchResult'];
  assert.equal(answer.executions.length, 2);
  assert.deepEqual(
    answer.executions.map((e) => e.state),
    ['RUNNING', 'RUNNING'],
  );
  const rows = await rowsOf(answer.executions.map((e) => e.id));
  assert.deepEqual(
    rows.map((x) => x.inputs.date),
    ['a', 'b'],
  );
});

test('a bad item fails the whole batch with the field named; nothing is created', async () => {
  const before = await countAll();
  const file = path.join(work, 'bad.ndjson');
  fs.writeFileSync(file, ['{"inputs": {"date": "ok"}}', '{"inputs": {}}', '{"inputs": {"date": "x", "n": "many"}}'].join('\n'));
  const r = await svc(['run', `${NS}/daily`, '--batch', file], { env });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /items\[1\]\.inputs\.date/);
  assert.match(r.stderr, /items\[2\]\.inputs\.n/);
  assert.equal(r.stdout, '');
  assert.equal(await countAll(), before);
});

test('an unreadable file or a mixed command is a usage error before any request', async () => {
  const before = await countAll();
  const file = path.join(work, 'broken.json');
  fs.writeFileSync(file, '[{"inputs": {"date": "x"}},');
  const broken = await svc(['run', `${NS}/daily`, '--batch', file], { env });
  assert.equal(broken.code, 2, broken.stderr);
  assert.match(broken.stderr, /not a JSON array/);
  fs.writeFileSync(file, '{"inputs": {"date": "x"}, "when": "now"}\n');
  const extra = await svc(['run', `${NS}/daily`, '--batch', file], { env });
  assert.equal(extra.code, 2, extra.stderr);
  assert.match(extra.stderr, /item 0 has when: only inputs and labels are allowed/);
  const mixed = await svc(['run', `${NS}/daily`, '--batch', file, '--watch'], { env });
  assert.equal(mixed.code, 2, mixed.stderr);
  assert.equal(await countAll(), before);
});
