// What a flow of team-a reaches when it runs, saved and started by a user of
// global role `none` bound `editor` on team-a only (points 3 and
// 5): on a real stack whose objects live on an S3 store (s3rver on loopback)
// and whose database is PostgreSQL on loopback, with the stack's defaults of
// the http task guard (SVC_HTTP_TASK_ALLOWED_HOSTS unset):
//   - its http tasks to the database's address, to the object store's
//     address (by address and by the name localhost) and to the cloud
//     metadata address each end FAILED, the error naming the host and why,
//     holding no secret of the URL or the headers;
//   - with a Docker engine: SVC_DOCKER_NETWORKS maps host to team-a and a
//     container: network to team-b; team-a's task naming team-b's network
//     fails executor_error naming team-a, naming host it runs;
//   - the run token is in no task's environment: not in a process task's,
//     nor in a docker task's or its container's (docker inspect, and the
//     runner's /proc/1/environ as the task reads it); the docker runner
//     read it from SVC_RUN_TOKEN_FILE and removed the file before the task.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import S3rver from 's3rver';
import type Dockerode from 'dockerode';
import { ensureTestImages, testDocker, type TestImages } from '@svc/container-testing';
import { boundUser, startStack, type Stack } from './stack.js';
import { flow, run } from './engine-support.js';

const d = testDocker();
const noDocker = 'skip' in d ? `SKIPPED, no Docker engine: ${d.skip}` : false;
if (noDocker) process.stderr.write(`\n!!! ${noDocker}\n\n`);

const SECRET = 'tok-3f9a1c77e2-never-shown';
let s: Stack;
let s3: S3rver;
let s3dir: string;
let s3port = 0;
let pgAddress = '';
let images: TestImages | undefined;
let editorToken = '';

/** A request with the bound editor's token. */
async function asEditor(method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${s.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${editorToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: await r.json().catch(() => null) };
}

async function saveAsEditor(ns: string, files: Record<string, string>): Promise<void> {
  const r = await asEditor('POST', `/api/v1/namespaces/${ns}/changes`, { message: 'e2e', changes: Object.entries(files).map(([p, content]) => ({ op: 'put', path: p, content })) });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

async function runAsEditor(ns: string, flowId: string): Promise<any> {
  const r = await asEditor('POST', `/api/v1/flows/${ns}/${flowId}/executions`, {});
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return s.waitEnded(r.body.id, 120_000);
}

before(async () => {
  s3dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-guard-s3-'));
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3dir });
  s3port = (await s3.run()).port;
  let dockerEnv: Record<string, string> = {};
  if (!noDocker) {
    images = await ensureTestImages((d as { docker: Dockerode }).docker);
    dockerEnv = {
      SVC_EXECUTORS: 'process,docker',
      SVC_DOCKER_HOST: (d as { host: string }).host,
      // This engine runs with --bridge=none: host is the network on which a task reaches the gateway.
      SVC_DOCKER_NETWORK: 'none',
      SVC_DOCKER_NETWORKS: 'team-a=host;team-b=container:svc-e2e-team-b-db',
    };
  }
  s = await startStack({
    env: {
      SVC_STORAGE_URL: `s3://S3RVER:S3RVER@127.0.0.1:${s3port}/svc-guard?ssl=false`,
      // The defaults of the guard: the stack's loopback allowance taken away.
      SVC_HTTP_TASK_ALLOWED_HOSTS: '',
      ...dockerEnv,
    },
  });
  const u = new URL((s.db as unknown as { options: { connectionString: string } }).options.connectionString);
  pgAddress = `${u.hostname}:${u.port || 5432}`;
  for (const ns of ['team-a', 'team-b']) assert.equal((await s.api('POST', '/api/v1/namespaces', { name: ns })).status, 201);
  assert.equal((await s.api('PUT', '/api/v1/namespaces/team-a/secrets/API_TOKEN', { value: SECRET })).status, 200);
  const bound = await boundUser(s, { email: 'bound@example.com', password: 'bound password 1', namespace: 'team-a', role: 'editor', tokenName: 'bound' });
  editorToken = bound.token;
  const elsewhere = await asEditor('POST', '/api/v1/namespaces/team-b/changes', {
    message: 'x',
    changes: [{ op: 'put', path: 'x.flow.yaml', content: flow({ id: 'x', tasks: [] }) }],
  });
  assert.equal(elsewhere.status, 403, 'the binding covers team-a only');
});

after(async () => {
  await s?.stop();
  await s3?.close();
  if (s3dir) fs.rmSync(s3dir, { recursive: true, force: true });
});

test("http tasks of team-a to the database's, the object store's and the metadata address fail, naming the host and why, with no secret", async () => {
  const targets: Record<string, { url: string; host: RegExp; why: RegExp }> = {
    database: { url: `http://${pgAddress}/`, host: new RegExp(`host ${pgAddress.replace(/\./g, '\\.')} refused`), why: /is loopback: refused/ },
    objects: { url: `http://127.0.0.1:${s3port}/svc-guard/?list-type=2`, host: new RegExp(`host 127\\.0\\.0\\.1:${s3port} refused`), why: /address 127\.0\.0\.1 is loopback/ },
    objectsbyname: {
      url: `http://localhost:${s3port}/svc-guard/?token={{ secret('API_TOKEN') }}`,
      host: new RegExp(`host localhost:${s3port} refused`),
      why: /\(of localhost\) is loopback/,
    },
    metadata: { url: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/', host: /host 169\.254\.169\.254 refused/, why: /is link-local/ },
  };
  await saveAsEditor(
    'team-a',
    Object.fromEntries(
      Object.entries(targets).map(([id, t]) => [
        `${id}.flow.yaml`,
        flow({ id, tasks: [{ id: 'call', type: 'http', url: t.url, headers: { 'X-Key': "{{ secret('API_TOKEN') }}" } }] }),
      ]),
    ),
  );
  for (const [id, t] of Object.entries(targets)) {
    const done = await runAsEditor('team-a', id);
    assert.equal(done.state, 'FAILED', id);
    const call = run(done, 'call');
    assert.equal(call.state, 'FAILED', id);
    assert.equal(call.reason, 'http_error', id);
    assert.match(call.error, t.host, `${id}: ${call.error}`);
    assert.match(call.error, t.why, `${id}: ${call.error}`);
    assert.match(call.error, /SVC_HTTP_TASK_ALLOW_PRIVATE_TARGETS/, id);
    assert.ok(!call.error.includes(SECRET) && !JSON.stringify(done).includes(SECRET), `${id}: no secret in the run`);
  }
  assert.ok(
    s.procs.every((p) => !p.output().includes(SECRET)),
    'no secret in any service log',
  );
});

test('a docker network mapped only to team-b is refused to team-a, naming the namespace; the network mapped to team-a runs', { skip: noDocker }, async () => {
  const onNet = (id: string, network: string) =>
    flow({ id, tasks: [{ id: 't', type: 'command', executor: { type: 'docker', image: images!.busybox, network }, command: ['sh', '-c', 'echo on the network'] }] });
  await saveAsEditor('team-a', { 'theirs.flow.yaml': onNet('theirs', 'container:svc-e2e-team-b-db'), 'ours.flow.yaml': onNet('ours', 'host') });
  const refused = await runAsEditor('team-a', 'theirs');
  assert.equal(refused.state, 'FAILED');
  const t = run(refused, 't');
  assert.equal(t.reason, 'executor_error');
  assert.match(t.error, /the network container:svc-e2e-team-b-db is not allowed in namespace team-a: .*SVC_DOCKER_NETWORKS.*\(for namespace team-a it lists host\)/);
  const ok = await runAsEditor('team-a', 'ours');
  assert.equal(ok.state, 'SUCCESS', JSON.stringify(ok));
});

/** A shell script writing, as outputs, how many SVC_RUN_TOKEN* variables its environment and the runner's (pid 1) hold, and what is left of the token file. */
const PROBE = [
  'p1=$(tr "\\0" "\\n" < /proc/1/environ 2>/dev/null)',
  'n() { grep -c "$1" || true; }',
  'printf \'{"outputs": {"env_token": %s, "pid1_token": %s, "pid1_file_var": %s, "file_left": %s}}\\n\' "$(env | n ^SVC_RUN_TOKEN)" "$(echo "$p1" | n ^SVC_RUN_TOKEN=)" "$(echo "$p1" | n ^SVC_RUN_TOKEN_FILE=)" "$(ls -A /.svc-token 2>/dev/null | wc -l)" >> "$SVC_OUTPUTS"',
  'sleep "${PAUSE:-0}"',
].join('\n');

test('the run token is in no task environment: a process task sees none', async () => {
  await saveAsEditor('team-a', { 'probe.flow.yaml': flow({ id: 'probe', tasks: [{ id: 't', type: 'command', executor: { type: 'process' }, command: ['sh', '-c', PROBE] }] }) });
  const done = await runAsEditor('team-a', 'probe');
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.equal(run(done, 't').outputs.env_token, 0, 'no SVC_RUN_TOKEN variable in the task environment');
});

test("a docker task runs with its token as a file read and removed by the runner: none in its environment, the runner's or the container's", { skip: noDocker }, async () => {
  const docker = (d as { docker: Dockerode }).docker;
  await saveAsEditor('team-a', {
    'dprobe.flow.yaml': flow({
      id: 'dprobe',
      tasks: [{ id: 't', type: 'command', env: { PAUSE: '3' }, executor: { type: 'docker', image: images!.busybox, network: 'host' }, command: ['sh', '-c', PROBE] }],
    }),
  });
  const started = await asEditor('POST', '/api/v1/flows/team-a/dprobe/executions', {});
  assert.equal(started.status, 201);
  // While it sleeps: the container's configuration names the file, not the token. Only a running container is the
  // task's: one created beside a runner volume another test's dispatcher removed is itself removed and created again.
  const c = await (async () => {
    for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      const [found] = await docker.listContainers({ filters: { status: ['running'], label: [`svc.dev/execution-id=${started.body.id}`] } });
      if (!found) continue;
      try {
        return await docker.getContainer(found.Id).inspect();
      } catch (err) {
        if ((err as { statusCode?: number }).statusCode !== 404) throw err;
      }
    }
    throw new Error('no container');
  })();
  assert.ok(c.Config.Env.includes('SVC_RUN_TOKEN_FILE=/.svc-token/token'), JSON.stringify(c.Config.Env));
  assert.ok(!c.Config.Env.some((e) => e.startsWith('SVC_RUN_TOKEN=')), 'no token in the container environment');
  const done = await s.waitEnded(started.body.id, 120_000);
  assert.equal(done.state, 'SUCCESS', JSON.stringify(done));
  assert.deepEqual(run(done, 't').outputs, { env_token: 0, pid1_token: 0, pid1_file_var: 1, file_left: 0 });
});
