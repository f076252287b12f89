// Every fenced `sh` example of the README's CLI section, run in order as one
// bash script (set -euo pipefail) against a real stack, with `svc` being the
// built CLI, `http://127.0.0.1:8080` the stack's URL, and the user, password
// and flows the examples assume.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createUser } from '@svc/identity';
import { cliMain, repoRoot, startStack, tempHome, writeTree, type Stack } from './support.js';

let s: Stack;
const home = tempHome();

/** The fenced ```sh blocks between "## The CLI" and the next "## " heading. */
export function cliExamples(readme: string): string[] {
  const start = readme.indexOf('\n## The CLI\n');
  assert.ok(start >= 0, 'the README has a "## The CLI" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

before(async () => {
  s = await startStack({ maintenance: false });
  await createUser(s.db, { email: 'admin@example.com', role: 'admin', password: 'readme password 1' }, new Date());
  writeTree(home.dir, {
    'flows/hello.flow.yaml':
      'id: hello\ninputs:\n  - id: who\n    type: string\n    default: world\ntasks:\n  - id: greet\n    type: script\n    file: scripts/hello.sh\n    args: ["{{ inputs.who }}"]\n',
    'flows/scripts/hello.sh*': '#!/bin/sh\necho "hello $1"\n',
  });
});
after(async () => {
  await s.stop();
  home.cleanup();
  fs.rmSync('/tmp/team.etl-copy', { recursive: true, force: true });
});

test('every example of the README CLI section runs and succeeds', () => {
  const blocks = cliExamples(fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8'));
  assert.ok(blocks.length >= 4, `found ${blocks.length} example blocks`);
  const script = [
    'set -euo pipefail',
    `svc() { ${JSON.stringify(process.execPath)} ${JSON.stringify(cliMain)} "$@"; }`,
    'set -x',
    ...blocks.map((b) => b.replaceAll('http://127.0.0.1:8080', s.url)),
  ].join('\n');
  const r = spawnSync('bash', ['-c', script], {
    cwd: home.dir,
    encoding: 'utf8',
    timeout: 290_000,
    env: { PATH: process.env.PATH ?? '', ...home.env, PASSWORD: 'readme password 1', DB_PASSWORD: 'readme-db-secret' },
  });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /\[greet\] hello ops/);
  assert.match(r.stdout, /\[greet\] hello cron/);
  assert.ok(fs.existsSync('/tmp/team.etl-copy/hello.flow.yaml'));
});
