// `svc exec` over real HTTP on 127.0.0.1: the binary running a whole task
// against an in-memory server of the runner routes. (The HTTP transport's
// retries are tested in packages/runner.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { listDir, makeSpec, makeTarGz, RunnerServer, tempRoot } from '@svc/runner/testing';

const here = path.dirname(fileURLToPath(import.meta.url));
const MAIN = path.join(here, '../src/exec/main.ts');
const TOKEN = 'run-token-abc';

const cleanups: (() => Promise<unknown>)[] = [];
after(() => Promise.all(cleanups.map((c) => c())));
async function server(opts: Omit<ConstructorParameters<typeof RunnerServer>[0], 'token'>) {
  const s = await new RunnerServer({ token: TOKEN, ...opts }).start();
  cleanups.push(() => s.stop());
  return s;
}
async function root() {
  const r = await tempRoot();
  cleanups.push(() => fs.rm(r, { recursive: true, force: true }));
  return r;
}

function svcExec(
  args: string[],
  env: Record<string, string>,
  onSpawn?: (child: import('node:child_process').ChildProcess) => void,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      cwd: path.join(here, '..'),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    onSpawn?.(child);
  });
}

test('svc exec runs a task end to end over HTTP (bundle, logs, outputs, artifacts, completion)', async () => {
  const bundle = await makeTarGz([
    { name: 'scripts/', type: 'directory' },
    { name: 'scripts/job.sh', content: '#!/bin/bash\necho "job says $1"\necho "warn: $SECRET_TOKEN" >&2\n', mode: 0o755 },
  ]);
  const spec = makeSpec({
    command: ['bash', '-c', 'scripts/job.sh hi; echo \'{"outputs": {"answer": 42}}\' >> "$SVC_OUTPUTS"; printf "artifact body" > "$SVC_ARTIFACTS_DIR/out.txt"'],
    mask_values: ['tok-secret-value'],
  });
  spec.env.SECRET_TOKEN = 'tok-secret-value';
  const s = await server({ spec, bundle, fail503: { spec: 1, artifacts: 1 } });
  const workRoot = await root();
  const r = await svcExec(['exec', '--server', s.url, '--task-run', spec.task_run_id], { SVC_RUN_TOKEN: TOKEN, SVC_WORK_ROOT: workRoot });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(s.completions, [{ state: 'SUCCESS', reason: '', error: '', exit_code: 0, outputs: { answer: 42 }, metrics: [] }]);
  assert.deepEqual(
    s.lines.map((l) => [l.n, l.stream, l.text]),
    [
      [1, 'stdout', 'job says hi'],
      [2, 'stderr', 'warn: ***'],
    ],
  );
  assert.equal(s.artifacts.get('out.txt')?.toString(), 'artifact body', 'artifact uploaded after a 503');
  assert.equal(s.requests.find((x) => x.route === 'spec')?.status, 503, 'the first spec request failed and was retried');
  assert.deepEqual(await listDir(workRoot), [], 'run directory removed');
});

test('svc exec takes server and task run from the environment and exits 0 for a failed task', async () => {
  const spec = makeSpec({ command: ['bash', '-c', 'exit 5'] });
  const s = await server({ spec });
  const r = await svcExec(['exec'], { SVC_RUN_TOKEN: TOKEN, SVC_SERVER: s.url, SVC_TASK_RUN_ID: spec.task_run_id, SVC_WORK_ROOT: await root() });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.completions[0]?.state, 'FAILED');
  assert.equal(s.completions[0]?.exit_code, 5);
});

test('svc exec exits 1 when the completion cannot be delivered', async () => {
  const spec = makeSpec({ command: ['true'] });
  const s = await server({ spec, failWith: { complete: 410 } });
  const r = await svcExec(['exec', '--server', s.url, '--task-run', spec.task_run_id], { SVC_RUN_TOKEN: TOKEN, SVC_WORK_ROOT: await root() });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /could not deliver the completion/);
});

test('svc exec exits 2 on usage errors and prints the usage', async () => {
  const none = await svcExec([], {});
  assert.equal(none.code, 2);
  assert.match(none.stderr, /usage: svc exec --server URL --task-run ID/);
  const noToken = await svcExec(['exec', '--server', 'http://127.0.0.1:1', '--task-run', 'x'], {});
  assert.equal(noToken.code, 2);
  assert.match(noToken.stderr, /missing SVC_RUN_TOKEN/);
  const help = await svcExec(['--help'], {});
  assert.equal(help.code, 0);
  assert.match(help.stdout, /usage: svc exec/);
});

test('SIGTERM to svc exec stops the task and reports FAILED instance_shutdown', async () => {
  const spec = makeSpec({ command: ['bash', '-c', 'echo started; sleep 30'] });
  const s = await server({ spec });
  const started = Date.now();
  const r = await svcExec(['exec', '--server', s.url, '--task-run', spec.task_run_id], { SVC_RUN_TOKEN: TOKEN, SVC_WORK_ROOT: await root() }, (child) => {
    const poll = setInterval(() => {
      if (s.lines.some((l) => l.text === 'started')) {
        clearInterval(poll);
        child.kill('SIGTERM');
      }
    }, 20);
    child.on('close', () => clearInterval(poll));
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.completions[0]?.state, 'FAILED');
  assert.equal(s.completions[0]?.reason, 'instance_shutdown');
  assert.ok(Date.now() - started < 8000);
});
