// svc flow validate and for_each: a fan-out validates, item read outside it
// and fail_fast without it are problems at their lines, and --spec-only
// refuses for_each, for_each_concurrency and fail_fast as extensions of the
// flow format, each at its place.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { svc, writeTree } from './support.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-validate-foreach-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = { HOME: dir, SVC_URL: 'http://127.0.0.1:1' };

const flowWith = (id: string, loadLines: string[], reportArg = '{{ tasks.load.outputs }}') =>
  [
    `id: ${id}`,
    'tasks:',
    '  - {id: list, type: script, file: list.py}',
    '  - id: load',
    '    type: command',
    '    command: [echo, "{{ item.name }}", "{{ item_index }}"]',
    '    depends_on: [list]',
    ...loadLines,
    '  - id: report',
    '    type: command',
    `    command: [echo, ${JSON.stringify(reportArg)}]`,
    '    depends_on: [load]',
    '',
  ].join('\n');

writeTree(dir, {
  'fanout.flow.yaml': flowWith('fanout', ['    for_each: "{{ tasks.list.outputs.tables }}"', '    for_each_concurrency: 4', '    fail_fast: true']),
  'item-outside.flow.yaml': flowWith('item-outside', ['    for_each: [a, b]'], '{{ item }}'),
  'no-for-each.flow.yaml': flowWith('no-for-each', ['    fail_fast: true']),
});

test('a fan-out validates; item outside it and fail_fast without it are problems at their lines', async () => {
  const ok = await svc(['flow', 'validate', 'fanout.flow.yaml'], { cwd: dir, env });
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  const bad = await svc(['flow', 'validate', 'item-outside.flow.yaml', 'no-for-each.flow.yaml'], { cwd: dir, env });
  assert.equal(bad.code, 1);
  assert.match(
    bad.stdout,
    /^item-outside\.flow\.yaml:11:\d+: tasks\[2\]\.command\[1\]: \{\{ item \}\} reads item, but item is only defined in a task with for_each, and task "report" has none$/m,
  );
  assert.match(bad.stdout, /^no-for-each\.flow\.yaml:8:5: tasks\[1\]\.fail_fast is allowed only together with for_each$/m);
  // The template roots stay valid where for_each is (the load task reads item and item_index on line 6).
  assert.doesNotMatch(bad.stdout, /:6:/);
});

test('--spec-only refuses for_each, for_each_concurrency and fail_fast as extensions, each with its place', async () => {
  const r = await svc(['flow', 'validate', '--spec-only', 'fanout.flow.yaml'], { cwd: dir, env });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), [
    "fanout.flow.yaml:8:15: tasks[1].for_each: for_each (a fan-out over a list) is an extension of svc, not in the flow format's specification",
    "fanout.flow.yaml:9:27: tasks[1].for_each_concurrency: for_each_concurrency is an extension of svc, not in the flow format's specification",
    "fanout.flow.yaml:10:16: tasks[1].fail_fast: fail_fast is an extension of svc, not in the flow format's specification",
  ]);
  assert.match(r.stderr, /3 problem\(s\) in 1 of 1 flow file\(s\)/);
});
