// svc ns push against a real server: a directory of flows and scripts, then
// again after a rename and a delete (a rename, not a delete and a put), a
// dry run that saves nothing, pull into an empty directory, versions, diff and
// revert; the saved flow runs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startStack, svc, tempHome, writeTree, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-push-'));
const repo = path.join(work, 'repo');
const NS = 'team.etl';

before(async () => {
  s = await startStack({ maintenance: false });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
});
after(async () => {
  await s.stop();
  home.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
});

async function files(): Promise<Record<string, { hash: string; executable: boolean }>> {
  const r = await s.api('GET', `/api/v1/namespaces/${NS}/files?limit=200`);
  return Object.fromEntries(r.body.items.map((f: any) => [f.path, { hash: f.sha256, executable: f.executable }]));
}

test('push --create saves a directory of flows and scripts as version 1', async () => {
  writeTree(repo, {
    'hello.flow.yaml': 'id: hello\ntasks:\n  - id: greet\n    type: script\n    file: scripts/greet.sh\n',
    'scripts/greet.sh*': '#!/bin/sh\necho "hello from the CLI"\n',
    'scripts/old-name.sh*': '#!/bin/sh\necho renamed\n',
    'data/blob.bin': '\u0000\u0001binary',
    'README.md': 'notes\n',
    '.git/config': 'not pushed',
  });
  const r = await svc(['ns', 'push', repo, '--namespace', NS, '--create', '-m', 'first push'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n').sort(), ['+ README.md', '+ data/blob.bin', '+ hello.flow.yaml', '+ scripts/greet.sh', '+ scripts/old-name.sh']);
  assert.match(r.stderr, /saved team\.etl version 1/);
  const f = await files();
  assert.deepEqual(Object.keys(f).sort(), ['README.md', 'data/blob.bin', 'hello.flow.yaml', 'scripts/greet.sh', 'scripts/old-name.sh']);
  assert.equal(f['scripts/greet.sh']!.executable, true);
  assert.equal(f['README.md']!.executable, false);
  const v = await s.api('GET', `/api/v1/namespaces/${NS}/versions`);
  assert.equal(v.body.items[0].message, 'first push');

  const again = await svc(['ns', 'push', repo, '-n', NS], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, '');
  assert.match(again.stderr, /nothing to push: team\.etl version 1 already matches/);
});

test('after a rename and a delete, --dry-run shows the change set and saves nothing; push saves it with base_version', async () => {
  fs.renameSync(path.join(repo, 'scripts/old-name.sh'), path.join(repo, 'scripts/new-name.sh'));
  fs.rmSync(path.join(repo, 'README.md'));
  fs.writeFileSync(path.join(repo, 'hello.flow.yaml'), 'id: hello\ndescription: changed\ntasks:\n  - id: greet\n    type: script\n    file: scripts/greet.sh\n');

  const dry = await svc(['ns', 'push', repo, '-n', NS, '--dry-run'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(dry.stdout, '> scripts/old-name.sh -> scripts/new-name.sh\n~ hello.flow.yaml\n- README.md\n');
  assert.match(dry.stderr, /dry run: 3 change\(s\) against team\.etl version 1, nothing saved/);
  assert.ok('README.md' in (await files()), 'the dry run saved nothing');

  const json = await svc(['ns', 'push', repo, '-n', NS, '-o', 'json'], { env });
  assert.equal(json.code, 0, json.stderr);
  const out = JSON.parse(json.stdout);
  assert.equal(out.base_version, 1);
  assert.equal(out.version, 2);
  assert.deepEqual(out.changes, [
    { op: 'rename', path: 'scripts/old-name.sh', new_path: 'scripts/new-name.sh' },
    { op: 'put', path: 'hello.flow.yaml', kind: 'modified' },
    { op: 'delete', path: 'README.md' },
  ]);
  const f = await files();
  assert.deepEqual(Object.keys(f).sort(), ['data/blob.bin', 'hello.flow.yaml', 'scripts/greet.sh', 'scripts/new-name.sh']);
  assert.equal(f['scripts/new-name.sh']!.executable, true, 'a rename keeps the mode');
});

test('the pushed flow runs; pull writes the head to an empty directory byte for byte; diff against it is empty', async () => {
  const run = await svc(['run', `${NS}/hello`, '--watch'], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /\[greet\] hello from the CLI/);

  const out = path.join(work, 'pulled');
  const r = await svc(['ns', 'pull', NS, out], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /wrote 4 file\(s\) of team\.etl version 2/);
  for (const p of ['data/blob.bin', 'hello.flow.yaml', 'scripts/greet.sh', 'scripts/new-name.sh']) {
    assert.deepEqual(fs.readFileSync(path.join(out, p)), fs.readFileSync(path.join(repo, p)), p);
  }
  assert.ok(fs.statSync(path.join(out, 'scripts/greet.sh')).mode & 0o100, 'executable bit');
  const d = await svc(['ns', 'diff', NS, out], { env });
  assert.equal(d.code, 0, d.stderr);
  assert.equal(d.stdout, '');
  assert.match(d.stderr, /matches team\.etl version 2/);
});

test('versions lists both pushes; revert saves version 3 with the files of version 1; a server diff shows the change', async () => {
  const v = await svc(['ns', 'versions', NS], { env });
  assert.equal(v.code, 0, v.stderr);
  assert.match(v.stdout, /^VERSION\s+CREATED\s+AUTHOR\s+FILES\s+MESSAGE/);
  assert.match(v.stdout, /^1\s.*e2e@example\.com\s+5\s+first push$/m);
  assert.match(v.stdout, /^2\s.*\s4\s+Push 3 change\(s\) with the svc CLI$/m);

  const r = await svc(['ns', 'revert', NS, '1', '-m', 'back to one'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /saved team\.etl version 3 with the files of version 1/);
  assert.ok('README.md' in (await files()));

  const d = await svc(['ns', 'diff', NS, '--from', '2', '--to', '3', '-o', 'json'], { env });
  assert.equal(d.code, 0, d.stderr);
  assert.match(d.stdout, /README\.md/);
  const table = await svc(['ns', 'diff', NS, '--from', '2', '--to', '3'], { env });
  assert.match(table.stdout, /^added README\.md$/m);
  assert.match(table.stdout, /^renamed|^deleted scripts\/new-name\.sh$|^added scripts\/old-name\.sh$/m);

  const ls = await svc(['ns', 'list', '-o', 'yaml'], { env });
  assert.match(ls.stdout, /name: team\.etl/);
  const fl = await svc(['flow', 'list'], { env });
  assert.match(fl.stdout, /^team\.etl\s+hello\s+yes/m);
});

test('a push with an invalid flow file is refused with flow_invalid and its details', async () => {
  fs.writeFileSync(path.join(repo, 'broken.flow.yaml'), 'id: broken\ntasks: []\n');
  const r = await svc(['ns', 'push', repo, '-n', NS], { env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /code flow_invalid, HTTP 422, request ID \S+\)/);
  assert.match(r.stderr, /broken\.flow\.yaml/);
  fs.rmSync(path.join(repo, 'broken.flow.yaml'));
});
