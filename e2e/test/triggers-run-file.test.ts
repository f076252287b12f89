// runFile over HTTP with real processes: a namespace script file runs as an
// execution with flow_id null and trigger_type `file`, pinned to the
// namespace's current snapshot, its runtime from the extension, args and env
// passed literally; a missing file is 404 and a path that escapes is 422.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from './stack.js';
import { run } from './engine-support.js';

let s: Stack;
const NS = 'files';

const logsOf = async (id: string) => (await s.db.query(`SELECT text FROM log_lines WHERE execution_id = $1 AND stream = 'stdout' ORDER BY n`, [id])).rows.map((r) => r.text);

before(async () => {
  s = await startStack();
  await s.saveFlow(NS, {
    'scripts/report.sh': 'echo "args: $1 | $2"\necho "greeting: $GREETING"\nprintf \'{"outputs": {"first": "%s"}}\\n\' "$1" >> "$SVC_OUTPUTS"\n',
    'scripts/fail.sh': 'echo broken >&2\nexit 4\n',
    'scripts/hello.js': 'console.log("node says " + process.argv.slice(2).join(","));\n',
  });
});
after(() => s.stop());

test('runFile starts an execution with flow_id null and trigger_type file; args and env reach the script as written', async () => {
  const r = await s.api('POST', `/api/v1/namespaces/${NS}/run`, { path: 'scripts/report.sh', args: ['one two', "{{ secret('X') }}"], env: { GREETING: 'hi {{ inputs.x }}' } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.flow_id, null);
  assert.equal(r.body.flow_revision_id, null);
  assert.equal(r.body.trigger_type, 'file');
  assert.equal(r.body.namespace, NS);
  const done = await s.waitEnded(r.body.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.deepEqual(await logsOf(done.id), ["args: one two | {{ secret('X') }}", 'greeting: hi {{ inputs.x }}']);
  assert.deepEqual(run(done, 'run').outputs, { first: 'one two' });
  assert.deepEqual(done.trigger_payload, { path: 'scripts/report.sh', args: ['one two', "{{ secret('X') }}"], env: { GREETING: 'hi {{ inputs.x }}' } });
  assert.deepEqual(done.secret_keys_used, []);
  const row = (
    await s.db.query(
      `SELECT e.definition, e.snapshot_id, v.snapshot_id AS head FROM executions e JOIN namespaces n ON n.name = e.namespace JOIN namespace_versions v ON v.id = n.head_version_id WHERE e.id = $1`,
      [done.id],
    )
  ).rows[0];
  assert.equal(row.definition.id, 'run-file');
  assert.deepEqual(
    row.definition.tasks.map((t: any) => [t.id, t.type, t.file]),
    [['run', 'script', 'scripts/report.sh']],
  );
  assert.equal(row.snapshot_id, row.head, 'pinned to the current snapshot');
});

test('the runtime follows the extension (.js runs with node); a failing script fails the execution', async () => {
  const js = await s.api('POST', `/api/v1/namespaces/${NS}/run`, { path: './scripts//hello.js', args: ['a', 'b'] });
  assert.equal(js.status, 201, JSON.stringify(js.body));
  const done = await s.waitEnded(js.body.id);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.deepEqual(await logsOf(done.id), ['node says a,b']);
  const bad = await s.api('POST', `/api/v1/namespaces/${NS}/run`, { path: 'scripts/fail.sh' });
  const failed = await s.waitEnded(bad.body.id);
  assert.equal(failed.state, 'FAILED');
  assert.equal(run(failed, 'run').exit_code, 4);
});

test('a file that does not exist is 404; a path that escapes the namespace is 422; an unknown namespace is 404', async () => {
  const missing = await s.api('POST', `/api/v1/namespaces/${NS}/run`, { path: 'scripts/nope.sh' });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'file_not_found');
  for (const path of ['../other/x.sh', '/etc/passwd', 'scripts/../../x.sh']) {
    const r = await s.api('POST', `/api/v1/namespaces/${NS}/run`, { path });
    assert.equal(r.status, 422, path);
    assert.equal(r.body.error.code, 'validation_failed');
    assert.equal(r.body.error.details[0].field, 'path');
  }
  const badEnv = await s.api('POST', `/api/v1/namespaces/${NS}/run`, { path: 'scripts/report.sh', env: { 'A=B': 'x' } });
  assert.equal(badEnv.status, 422);
  const noNs = await s.api('POST', `/api/v1/namespaces/nowhere/run`, { path: 'scripts/report.sh' });
  assert.equal(noNs.status, 404);
  assert.equal((await s.db.query(`SELECT count(*)::int AS n FROM executions WHERE trigger_type = 'file'`)).rows[0].n, 3);
});
