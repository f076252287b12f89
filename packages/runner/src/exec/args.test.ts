import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExecArgs } from './args.js';

const env = { SVC_RUN_TOKEN: 'tok' };

test('flags, with or without a leading exec and = form', () => {
  const a = parseExecArgs(['exec', '--server', 'http://h:1', '--task-run=tr1'], env, '/tmp');
  assert.deepEqual(a, { kind: 'run', args: { server: 'http://h:1', taskRunId: 'tr1', token: 'tok', workRoot: '/tmp' } });
  const b = parseExecArgs(['--server=http://h:1', '--task-run', 'tr1'], { ...env, SVC_WORK_ROOT: '/w' }, '/tmp');
  assert.equal(b.kind === 'run' && b.args.workRoot, '/w');
});

test('server and task run from the environment; flags win', () => {
  const e = { ...env, SVC_SERVER: 'http://env:1', SVC_TASK_RUN_ID: 'tr-env' };
  const a = parseExecArgs(['exec'], e, '/tmp');
  assert.equal(a.kind === 'run' && `${a.args.server} ${a.args.taskRunId}`, 'http://env:1 tr-env');
  const b = parseExecArgs(['exec', '--task-run', 'tr-flag'], e, '/tmp');
  assert.equal(b.kind === 'run' && b.args.taskRunId, 'tr-flag');
});

test('usage errors', () => {
  assert.equal(parseExecArgs(['exec', '--task-run', 'x'], env, '/tmp').kind, 'usage-error');
  assert.equal(parseExecArgs(['exec', '--server', 'http://h', '--task-run', 'x'], {}, '/tmp').kind, 'usage-error');
  assert.equal(parseExecArgs(['exec', '--server', 'ftp://h', '--task-run', 'x'], env, '/tmp').kind, 'usage-error');
  assert.equal(parseExecArgs(['exec', '--bogus'], env, '/tmp').kind, 'usage-error');
  assert.equal(parseExecArgs(['exec', '--server'], env, '/tmp').kind, 'usage-error');
  assert.equal(parseExecArgs(['--help'], env, '/tmp').kind, 'help');
});
