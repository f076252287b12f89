// Approval gates (a task's `approval`, an extension): the schema's checks of
// the gate, the template paths `tasks.<id>.approval…` checked at save, and
// the gate listed among the extensions (what --spec-only refuses).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowExtensions, parseFlowYaml, validateFlow, type FlowDefinition } from './index.js';

const flow = (approval: unknown, read = '{{ tasks.deploy.approval.by }}') =>
  JSON.stringify({
    id: 'release',
    tasks: [
      { id: 'deploy', type: 'command', command: ['true'], approval },
      { id: 'plain', type: 'command', command: ['true'] },
      { id: 'announce', type: 'command', depends_on: ['deploy', 'plain'], command: ['echo', read] },
    ],
  });
const messages = (source: string) => (validateFlow(source).errors ?? []).map((e) => e.message);

test('a full gate is valid, and an empty one too (defaults)', () => {
  const full = {
    approvers: { role: 'editor', groups: ['release-managers'] },
    timeout: '24h',
    on_timeout: 'skip',
    form: [{ id: 'ticket', type: 'string', required: true }],
    forbid_self_approval: true,
  };
  assert.deepEqual(messages(flow(full)), []);
  assert.deepEqual(messages(flow({})), []);
});

test('the gate fields are checked', () => {
  const bad = messages(flow({ approvers: { role: 'boss' }, on_timeout: 'maybe', timeout: 'soon', form: [{ id: 'Ticket', type: 'date' }], extra: 1 }));
  for (const part of ['approval.approvers.role', 'approval.on_timeout', 'approval.timeout', 'form[0].id', 'form[0].type', 'extra']) {
    assert.ok(
      bad.some((m) => m.includes(part)),
      `${part}: ${bad.join(' | ')}`,
    );
  }
});

test('tasks.<id>.approval reads the decision of a gated task only, and only its fields', () => {
  assert.deepEqual(messages(flow({}, '{{ tasks.deploy.approval.inputs.ticket }} {{ tasks.deploy.approval.status }}')), []);
  assert.match(messages(flow({}, '{{ tasks.plain.approval.by }}')).join('\n'), /reads the approval of task "plain", which has no approval gate/);
  assert.match(messages(flow({}, '{{ tasks.deploy.approval.who }}')).join('\n'), /unknown field "who" of tasks.deploy.approval .*fields: status, by, at, comment, inputs/);
  assert.match(messages(flow({}, '{{ tasks.deploy.approval.by.x }}')).join('\n'), /tasks.deploy.approval.by is a string and has no member "x"/);
});

test('a gate is an extension of the flow format', () => {
  const parsed = parseFlowYaml(flow({}));
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(
    flowExtensions(parsed.value as FlowDefinition).map((u) => [u.field, u.what]),
    [['tasks[0].approval', 'approval (an approval gate)']],
  );
});
