// svc flow validate accepts the template values of the scheduled time:
// `trigger.date` in a schedule trigger's inputs and in tasks, `execution.id`
// and `execution.start_date` everywhere; and refuses `trigger.date` in a
// webhook's inputs (only a schedule sets it) and an unknown execution field.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { svc, writeTree } from './support.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-validate-date-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = { HOME: dir, SVC_URL: 'http://127.0.0.1:1' };

writeTree(dir, {
  'nightly.flow.yaml': [
    'id: nightly',
    'inputs:',
    '  - {id: day, type: string}',
    '  - {id: run, type: string}',
    'triggers:',
    '  - id: tick',
    '    type: schedule',
    '    cron: "0 2 * * *"',
    '    timezone: Europe/Berlin',
    '    inputs: {day: "{{ trigger.date }}", run: "{{ execution.id }}"}',
    'tasks:',
    '  - id: report',
    '    type: command',
    '    command: [echo, "{{ trigger.date }}", "{{ execution.id }}", "{{ execution.start_date }}"]',
    '',
  ].join('\n'),
  'hook.flow.yaml': [
    'id: hook',
    'inputs:',
    '  - {id: day, type: string}',
    'triggers:',
    '  - {id: push, type: webhook, inputs: {day: "{{ trigger.date }}"}}',
    'tasks:',
    '  - {id: a, type: command, command: [echo, "{{ execution.started }}"]}',
    '',
  ].join('\n'),
});

test('trigger.date, execution.id and execution.start_date validate', async () => {
  const r = await svc(['flow', 'validate', 'nightly.flow.yaml'], { cwd: dir, env });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(r.stdout, '');
});

test('trigger.date in a webhook trigger and an unknown execution field are problems', async () => {
  const r = await svc(['flow', 'validate', 'hook.flow.yaml'], { cwd: dir, env });
  assert.equal(r.code, 1);
  const lines = r.stdout.trim().split('\n');
  assert.ok(
    lines.some((l) => /^hook\.flow\.yaml:5:\d+: triggers\[0\]\.inputs\.day: \{\{ trigger\.date \}\} is set only for schedule triggers, not for a webhook trigger$/.test(l)),
    r.stdout,
  );
  assert.ok(
    lines.some((l) => /^hook\.flow\.yaml:7:\d+: .*unknown field "started" of execution .*\(fields: id, namespace, flow_id, start_date\)/.test(l)),
    r.stdout,
  );
});
