import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

test('the run token from SVC_RUN_TOKEN_FILE wins over SVC_RUN_TOKEN, and the file is removed once read', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-token-'));
  try {
    const file = path.join(dir, 'token');
    fs.writeFileSync(file, 'from-file\n', { mode: 0o400 });
    const a = parseExecArgs(['exec', '--server', 'http://h:1', '--task-run', 'tr1'], { SVC_RUN_TOKEN: 'from-env', SVC_RUN_TOKEN_FILE: file }, '/tmp');
    assert.equal(a.kind === 'run' && a.args.token, 'from-file');
    assert.equal(fs.existsSync(file), false, 'removed: the task after it cannot read it');
    const missing = parseExecArgs(['exec', '--server', 'http://h:1', '--task-run', 'tr1'], { SVC_RUN_TOKEN_FILE: file }, '/tmp');
    assert.equal(missing.kind, 'usage-error');
    assert.match(missing.kind === 'usage-error' ? missing.message : '', /cannot read the run token file .*SVC_RUN_TOKEN_FILE/);
    const empty = parseExecArgs(['exec', '--server', 'http://h:1', '--task-run', 'tr1'], { SVC_RUN_TOKEN_FILE: 'x' }, '/tmp', () => '');
    assert.match(empty.kind === 'usage-error' ? empty.message : '', /is empty/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
