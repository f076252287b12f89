// svc run --watch to the end with the exit code of the end state, inputs and
// labels, logs (paged and --follow), cancel, rerun and restart, a watch that
// survives dropped connections (resumed with Last-Event-ID: no line repeated,
// none lost), secret set from standard input (never in argv or any output),
// artifacts download.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { cliMain, startStack, svc, tempHome, until, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
const NS = 'cli.runs';
const marker = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-run-marker-'));
// Process tasks run as an unprivileged user (SVC_TASK_USER) when the dispatcher is root.
fs.chmodSync(marker, 0o755);
const SECRET = 'pa55-w0rd-never-shown-9f3a';

const sh = (script: string) => JSON.stringify(['sh', '-c', script]);

before(async () => {
  s = await startStack({ maintenance: false });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await s.saveFlow(NS, {
    'ok.flow.yaml': `id: ok
inputs:
  - id: who
    type: string
  - id: times
    type: int
    default: 1
tasks:
  - id: first
    type: command
    command: ${sh('echo "hi {{ inputs.who }} x{{ inputs.times }}"; echo "label={{ labels.team }}"; mkdir -p "$SVC_ARTIFACTS_DIR"; echo report > "$SVC_ARTIFACTS_DIR/report.txt"')}
  - id: second
    type: command
    depends_on: [first]
    command: ["echo", "second done"]
`,
    'fails.flow.yaml': `id: fails
tasks:
  - id: boom
    type: command
    command: ${sh('echo "about to fail"; exit 7')}
`,
    'slow.flow.yaml': `id: slow
tasks:
  - id: wait
    type: command
    command: ["sleep", "300"]
`,
    'steps.flow.yaml': `id: steps
tasks:
  - id: count
    type: command
    command: ${sh('for i in 1 2 3 4 5 6 7 8; do echo "line $i"; sleep 0.4; done')}
`,
    'restartable.flow.yaml': `id: restartable
tasks:
  - id: setup
    type: command
    command: ["echo", "setup ran"]
  - id: check
    type: command
    depends_on: [setup]
    command: ${sh(`test -f ${marker}/ok && echo "marker found"`)}
`,
    'uses-secret.flow.yaml': `id: uses-secret
tasks:
  - id: show
    type: command
    command: ${sh(`echo "token is {{ secret('API_TOKEN') }}"`)}
`,
  });
});
after(async () => {
  await s.stop();
  home.cleanup();
  fs.rmSync(marker, { recursive: true, force: true });
});

test('run --watch of a flow that succeeds streams the logs and exits 0; inputs are typed, labels set', async () => {
  const inputFile = path.join(home.dir, 'inputs.json');
  fs.writeFileSync(inputFile, JSON.stringify({ who: 'file', times: 1 }));
  const r = await svc(['run', `${NS}/ok`, '--input-file', inputFile, '--input', 'who=cli', '-i', 'times=3', '--label', 'team=data', '--watch'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\[first\] hi cli x3$/m);
  assert.match(r.stdout, /^\[first\] label=data$/m);
  assert.match(r.stdout, /^\[second\] second done$/m);
  assert.match(r.stderr, /task first attempt 1: SUCCESS/);
  assert.match(r.stderr, /ended SUCCESS in .* \(exit code 0\)/);
  assert.doesNotMatch(r.stderr, /\x1b\[/, 'no live view or colours without a terminal');
  const id = /execution (\S+) ended/.exec(r.stderr)![1]!;
  const e = (await s.api('GET', `/api/v1/executions/${id}`)).body;
  assert.deepEqual(e.inputs, { who: 'cli', times: 3 });
  assert.equal(e.labels.team, 'data');

  const dir = path.join(home.dir, 'artifacts');
  const dl = await svc(['artifacts', 'download', id, '-d', dir], { env });
  assert.equal(dl.code, 0, dl.stderr);
  assert.equal(fs.readFileSync(path.join(dir, 'report.txt'), 'utf8'), 'report\n');
});

test('run --watch of a flow that fails exits 3 and shows the error; without --watch it prints the id at once', async () => {
  const r = await svc(['run', `${NS}/fails`, '--watch'], { env });
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stdout, /\[boom\] about to fail/);
  assert.match(r.stderr, /ended FAILED .*\(exit code 3\)/);
  assert.match(r.stderr, /error: .+/);

  const bare = await svc(['run', `${NS}/fails`], { env });
  assert.equal(bare.code, 0, bare.stderr);
  assert.match(bare.stdout, /^\S+\n$/);
  const id = bare.stdout.trim();
  await s.waitEnded(id);
  const logs = await svc(['executions', 'logs', id], { env });
  assert.equal(logs.code, 0, logs.stderr);
  assert.equal(logs.stdout, '[boom] about to fail\n');
  const get = await svc(['executions', 'get', id], { env });
  assert.match(get.stdout, /^state:\s+FAILED/m);
  assert.match(get.stdout, /^boom\s+1\s+FAILED/m);
});

test('a watched execution cancelled from another terminal exits 5; cancel of an ended one shows execution_ended', async () => {
  const watch = spawn(process.execPath, [cliMain, 'run', `${NS}/slow`, '--watch'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  watch.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((r) => watch.on('close', r));
  const id = await until(() => /execution (\S+) of /.exec(err)?.[1], 30_000, 'the execution id');
  await s.waitFor(id, (e) => e.task_runs.some((t: any) => t.state === 'RUNNING'));
  const c = await svc(['executions', 'cancel', id], { env });
  assert.equal(c.code, 0, c.stderr);
  assert.match(c.stderr, /is (CANCELLING|CANCELLED)/);
  assert.equal(await exited, 5, err);
  assert.match(err, /ended CANCELLED/);

  const again = await svc(['executions', 'cancel', id], { env });
  assert.equal(again.code, 1);
  assert.match(again.stderr, /code execution_ended, HTTP 409, request ID /);
});

test('restart after a failure reuses the successful task and, with the cause fixed, ends SUCCESS (exit 0); rerun runs everything', async () => {
  const first = await svc(['run', `${NS}/restartable`, '--watch'], { env });
  assert.equal(first.code, 3, first.stderr);
  const id = /execution (\S+) ended/.exec(first.stderr)![1]!;
  fs.writeFileSync(path.join(marker, 'ok'), '');
  const r = await svc(['executions', 'restart', id, '--watch'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\[check\] marker found/);
  const newId = /execution (\S+) ended/.exec(r.stderr)![1]!;
  const e = (await s.api('GET', `/api/v1/executions/${newId}`)).body;
  assert.equal(e.restart_of_id, id);
  assert.equal(e.task_runs.find((t: any) => t.task_key === 'setup').reason, 'reused');

  const rerun = await svc(['executions', 'rerun', newId, '-o', 'json'], { env });
  assert.equal(rerun.code, 0, rerun.stderr);
  const re = JSON.parse(rerun.stdout);
  assert.notEqual(re.id, newId);
  assert.equal((await s.waitEnded(re.id)).state, 'SUCCESS');

  const list = await svc(['executions', 'list', '--flow', 'restartable', '-o', 'json'], { env });
  assert.equal(JSON.parse(list.stdout).length, 3);
});

test('logs --follow streams the lines of a running execution until it ends', async () => {
  const id = (await s.trigger(NS, 'steps')).id;
  const r = await svc(['executions', 'logs', id, '--follow'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, Array.from({ length: 8 }, (_, i) => `[count] line ${i + 1}\n`).join(''));
  assert.match(r.stderr, /ended SUCCESS/);
});

/** A TCP proxy to the gateway whose `cut()` drops every open connection. */
async function cuttingProxy(target: string): Promise<{ url: string; cut(): void; close(): void }> {
  const { port: tport } = new URL(target);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(tport), '127.0.0.1');
    client.pipe(upstream).pipe(client);
    for (const sock of [client, upstream]) {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
      sock.on('error', () => undefined);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut: () => sockets.forEach((sock) => sock.destroy()),
    close: () => (sockets.forEach((sock) => sock.destroy()), server.close()),
  };
}

test('run --watch resumes the event and log streams after dropped connections: every line once, the right end state', async () => {
  const proxy = await cuttingProxy(s.url);
  try {
    const child = spawn(process.execPath, [cliMain, 'run', `${NS}/steps`, '--watch'], {
      env: { PATH: process.env.PATH ?? '', ...env, SVC_URL: proxy.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    await until(() => out.includes('line 2'), 30_000, 'line 2');
    proxy.cut();
    await until(() => out.includes('line 5'), 30_000, 'line 5');
    proxy.cut();
    assert.equal(await exited, 0, err);
    assert.equal(out, Array.from({ length: 8 }, (_, i) => `[count] line ${i + 1}\n`).join(''));
    assert.match(err, /stream dropped: .*reconnecting from event/);
    assert.match(err, /ended SUCCESS/);
  } finally {
    proxy.close();
  }
});

test('secret set reads the value from standard input; the value is in no argv, output or log', async () => {
  const r = await svc(['secret', 'set', 'API_TOKEN', '-n', NS], { env, stdin: `${SECRET}\n` });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /secret API_TOKEN set in namespace cli\.runs/);
  const list = await svc(['secret', 'list', '-n', NS], { env });
  assert.match(list.stdout, /^API_TOKEN\b/m);
  const run = await svc(['run', `${NS}/uses-secret`, '--watch', '-o', 'json'], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /\[show\] token is \*\*\*/, 'with -o json the log lines go to stderr');
  assert.equal(JSON.parse(run.stdout).state, 'SUCCESS');
  for (const x of [r, list, run]) assert.ok(!(x.stdout + x.stderr).includes(SECRET), 'the value never shows');
  // The value is not an argument: an extra positional is a usage error.
  const argv = await svc(['secret', 'set', 'OTHER', 'value-on-argv', '-n', NS], { env });
  assert.equal(argv.code, 2);
  const del = await svc(['secret', 'delete', 'API_TOKEN', '-n', NS], { env });
  assert.equal(del.code, 0, del.stderr);

  const v = await svc(['var', 'set', 'region', 'eu-1', '-n', NS], { env });
  assert.equal(v.code, 0, v.stderr);
  const vl = await svc(['var', 'list', '-n', NS, '-o', 'json'], { env });
  assert.equal(JSON.parse(vl.stdout).find((x: any) => x.key === 'region').value, 'eu-1');
  // Without -n: global (the stack's user is an admin).
  assert.equal((await svc(['var', 'set', 'owner', 'platform'], { env })).code, 0);
  assert.match((await svc(['var', 'list'], { env })).stdout, /^owner\s+platform/m);
  assert.equal((await svc(['var', 'delete', 'owner'], { env })).code, 0);
  assert.equal((await svc(['secret', 'set', 'GLOBAL_ONE'], { env, stdin: 'g-value' })).code, 0);
  assert.match((await svc(['secret', 'list'], { env })).stdout, /^GLOBAL_ONE\b/m);
  assert.equal((await svc(['secret', 'delete', 'GLOBAL_ONE'], { env })).code, 0);
});
