// svc flow validate: offline (no server, no credential), the server's own
// validator, one `file:line:column: message` line per problem, exit 1 on any.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { svc, writeTree } from './support.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-validate-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
// A URL nothing listens on: validation must never need the server.
const env = { HOME: dir, SVC_URL: 'http://127.0.0.1:1' };

writeTree(dir, {
  'flows/good.flow.yaml': 'id: hello\ntasks:\n  - id: say\n    type: command\n    command: ["echo", "hi"]\n',
  'flows/nested/also-good.flow.yaml': 'id: also\ntasks:\n  - id: a\n    type: http\n    url: https://example.com\n',
  'bad.flow.yaml': 'id: Bad_Id\ntasks:\n  - id: say\n    type: command\n    retry:\n      max_attempts: 25\n    comand: ["echo"]\n',
  'broken.flow.yaml': 'id: x\ntasks: [\n',
});

test('valid files and directories exit 0', async () => {
  const r = await svc(['flow', 'validate', 'flows'], { cwd: dir, env });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /2 flow file\(s\) valid/);
});

test('a broken file prints file:line:column: message for every problem and exits 1', async () => {
  const r = await svc(['flow', 'validate', 'flows/good.flow.yaml', 'bad.flow.yaml', 'broken.flow.yaml'], { cwd: dir, env });
  assert.equal(r.code, 1);
  const lines = r.stdout.trim().split('\n');
  assert.ok(
    lines.every((l) => /^[^:]+:\d+:\d+: .+/.test(l)),
    r.stdout,
  );
  assert.ok(lines.includes('bad.flow.yaml:6:21: tasks[0].retry.max_attempts must be between 1 and 20, got 25'), r.stdout);
  assert.ok(lines.includes('bad.flow.yaml:7:5: tasks[0] has unknown property "comand" (did you mean "command"?)'), r.stdout);
  assert.ok(
    lines.some((l) => l.startsWith('bad.flow.yaml:1:5: id must')),
    r.stdout,
  );
  assert.ok(
    lines.some((l) => /^broken\.flow\.yaml:\d+:\d+: YAML syntax error/.test(l)),
    r.stdout,
  );
  assert.ok(!lines.some((l) => l.startsWith('flows/good')), 'valid files print nothing');
  assert.doesNotMatch(r.stdout, /\x1b\[/, 'no colours when stdout is not a terminal');
  assert.match(r.stderr, /problem\(s\) in 2 of 3 flow file\(s\)/);
});

test('a missing file is a problem too; --quiet prints only the problems', async () => {
  const r = await svc(['flow', 'validate', '-q', 'nope.flow.yaml'], { cwd: dir, env });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, 'nope.flow.yaml:1:1: cannot read the file: ENOENT\n');
  assert.equal(r.stderr, '');
});

test('a server that does not answer is one clear error line, exit 1', async () => {
  // A port that was free a moment ago: nothing listens on it.
  const port = await new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  const r = await svc(['ns', 'list'], { cwd: dir, env: { ...env, SVC_URL: `http://127.0.0.1:${port}`, SVC_TOKEN: `svc_${'a'.repeat(43)}` } });
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `Error: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`);
});
