// POST /api/v1/namespaces/{namespace}/validate over real HTTP, with a real
// editor API token.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from './helpers.js';
import { login, makeToken, makeUser } from './identity-helpers.js';
import type { components } from '@svc/api-spec';

let gw: TestGateway;
let token: string;

before(async () => {
  gw = await startTestGateway();
  await makeUser(gw, 'ed@example.com', 'editor');
  token = await makeToken(gw, await login(gw, 'ed@example.com'), 'editor');
});
after(() => gw.close());

const validate = (body: unknown, ns = 'team.data') =>
  fetch(`${gw.url}/api/v1/namespaces/${ns}/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });

test('a valid flow file answers valid with an empty list', async () => {
  const r = await validate({ path: 'flows/hello.flow.yaml', content: 'id: hello\ntasks:\n  - {id: a, type: command, command: [echo, hi]}\n' });
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { valid: true, kind: 'flow', errors: [] });
});

test('an invalid flow file answers every problem with field, pointer, message, line and column', async () => {
  const content = [
    'id: hello',
    'tasks:',
    '  - id: a',
    '    type: command',
    '    command: [echo]',
    '    retry: {max_attempts: 25}',
    '  - {id: b, type: http, url: "https://x", executor: {type: process}}',
  ].join('\n');
  const r = await validate({ path: 'hello.flow.yaml', content });
  assert.equal(r.status, 200);
  const body = (await r.json()) as components['schemas']['ValidationResult'];
  assert.equal(body.valid, false);
  assert.equal(body.kind, 'flow');
  assert.deepEqual(
    body.errors.map((e) => [e.field, e.pointer, e.line]),
    [
      ['tasks[0].retry.max_attempts', '/tasks/0/retry/max_attempts', 6],
      ['tasks[1].executor', '/tasks/1/executor', 7],
    ],
  );
  assert.equal(body.errors[0]!.message, 'tasks[0].retry.max_attempts must be between 1 and 20, got 25');
  assert.equal(typeof body.errors[0]!.column, 'number');
});

test('YAML syntax errors and semantic errors are reported the same way', async () => {
  const bad = (await (await validate({ path: 'x.flow.yaml', content: 'id: x\ntasks: [\n' })).json()) as { valid: boolean; errors: { line?: number }[] };
  assert.equal(bad.valid, false);
  assert.equal(bad.errors.length, 1);
  assert.equal(typeof bad.errors[0]!.line, 'number');
  const cyc = (await (await validate({ path: 'x.flow.yaml', content: 'id: x\ntasks:\n  - {id: a, type: http, url: u, depends_on: [a]}\n' })).json()) as {
    errors: { message: string }[];
  };
  assert.match(cyc.errors[0]!.message, /cannot depend on itself/);
});

test('files other than flow files are not checked', async () => {
  const r = await validate({ path: 'scripts/run.py', content: 'print(' });
  assert.deepEqual(await r.json(), { valid: true, kind: 'unchecked', errors: [] });
});

test('bad requests get validation_failed with the field', async () => {
  for (const [body, field] of [
    [{ content: 'x' }, 'path'],
    [{ path: 'a.flow.yaml' }, 'content'],
    [{ path: '../a.flow.yaml', content: 'x' }, 'path'],
    [{ path: '/abs.flow.yaml', content: 'x' }, 'path'],
    [{ path: 'a.flow.yaml', content: 'x', extra: 1 }, 'extra'],
  ] as const) {
    const r = await validate(body);
    assert.equal(r.status, 422, JSON.stringify(body));
    const e = (await r.json()) as { error: { code: string; details: { field: string }[] } };
    assert.equal(e.error.code, 'validation_failed');
    assert.ok(
      e.error.details.some((d) => d.field === field),
      `${JSON.stringify(body)} -> ${JSON.stringify(e.error.details)}`,
    );
  }
  const ns = await validate({ path: 'a.flow.yaml', content: 'x' }, 'Bad_NS');
  assert.equal(ns.status, 422);
  assert.equal(((await ns.json()) as { error: { details: { field: string }[] } }).error.details[0]!.field, 'namespace');
});

test('without a credential the operation answers 401 before reading the body', async () => {
  const g2 = await startTestGateway();
  try {
    const r = await fetch(`${g2.url}/api/v1/namespaces/a/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    assert.equal(r.status, 401);
    assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'unauthorized');
  } finally {
    await g2.close();
  }
});
