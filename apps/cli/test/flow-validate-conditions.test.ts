// svc flow validate and run_if expressions: a valid condition passes, a
// broken one is a problem at its line, and --spec-only refuses the expression
// form (an extension of the flow format) while the keyword forms pass.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { svc, writeTree } from './support.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-validate-cond-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = { HOME: dir, SVC_URL: 'http://127.0.0.1:1' };

const flowWith = (id: string, runIf: string) =>
  [
    `id: ${id}`,
    'inputs:',
    '  - {id: env, type: string}',
    'tasks:',
    '  - {id: check, type: command, command: [echo]}',
    '  - id: load',
    '    type: command',
    '    command: [echo]',
    '    depends_on: [check]',
    `    run_if: ${JSON.stringify(runIf)}`,
    '',
  ].join('\n');

writeTree(dir, {
  'cond.flow.yaml': flowWith('cond', "{{ inputs.env == 'prod' && tasks.check.outputs.rows > 0 }}"),
  'plain.flow.yaml': flowWith('plain', 'always'),
  'broken.flow.yaml': flowWith('broken', '{{ inputs.env == }}'),
});

test('a condition validates; a broken one is a problem at its line and column', async () => {
  const ok = await svc(['flow', 'validate', 'cond.flow.yaml', 'plain.flow.yaml'], { cwd: dir, env });
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  const bad = await svc(['flow', 'validate', 'broken.flow.yaml'], { cwd: dir, env });
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /^broken\.flow\.yaml:10:\d+: tasks\[1\]\.run_if has an expression error at column \d+: Unexpected token: EOF$/m);
});

test('--spec-only refuses the expression form as an extension, with its place, and passes the keywords', async () => {
  const r = await svc(['flow', 'validate', '--spec-only', 'cond.flow.yaml', 'plain.flow.yaml'], { cwd: dir, env });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.equal(r.stdout.trim(), "cond.flow.yaml:10:13: tasks[1].run_if: run_if as an {{ expression }} is an extension of svc, not in the flow format's specification");
  assert.match(r.stderr, /1 problem\(s\) in 1 of 2 flow file\(s\)/);
});
