// svc executions files and svc executions download as subprocesses against a
// real stack: the output files of two tasks (output_files) and an artifact
// listed with kind, task, name, size and sha256 (a table and --json); one
// downloaded by `task/name` to -o FILE, by its bare name to the current
// directory, to standard output with -o -; a name two tasks share is refused
// as ambiguous, naming both; an absent one is refused listing the files; bytes
// that no longer match the listed sha256 (the stored object altered) fail the
// download and leave no file; a user bound on another namespace reads none of
// them; the token is in no output.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { boundUser } from '../../../e2e/test/stack.js';
import { startStack, svc, tempHome, type Stack } from './support.js';

let s: Stack;
const home = tempHome();
let env: Record<string, string>;
let id: string;
const NS = 'cli.files';
const sh = (script: string) => JSON.stringify(['sh', '-c', script]);
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const EXTRACT_CSV = 'id,name\n1,"Smith, Ann"\n2,Bob\n';
const LOAD_CSV = 'id,name\n3,Eve\n';
// Larger than one chunk of a stream, so the download is checked over many.
const BIG = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const outputs: [string, string][] = [];
const run = async (args: string[], opts: Parameters<typeof svc>[1] = {}) => {
  const r = await svc(args, { env, ...opts });
  outputs.push([r.stdout, r.stderr]);
  return r;
};

before(async () => {
  s = await startStack({ maintenance: false });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  fs.writeFileSync(path.join(home.dir, 'big.txt'), BIG);
  await s.saveFlow(NS, {
    'extract.flow.yaml': `id: extract
tasks:
  - id: extract
    type: command
    command: ${sh(`mkdir -p out && printf '${EXTRACT_CSV.replace(/\n/g, '\\n')}' > out/rows.csv && seq 1 20000 | sed 's/^/line /' > out/big.txt && mkdir -p "$SVC_ARTIFACTS_DIR" && printf 'kept' > "$SVC_ARTIFACTS_DIR/note.txt"`)}
    output_files: ["out/*"]
  - id: load
    type: command
    depends_on: [extract]
    command: ${sh(`mkdir -p out && printf '${LOAD_CSV.replace(/\n/g, '\\n')}' > out/rows.csv`)}
    output_files: ["out/rows.csv"]
`,
  });
  const e = await s.trigger(NS, 'extract');
  const ended = await s.waitEnded(e.id);
  assert.equal(ended.state, 'SUCCESS', JSON.stringify(ended));
  id = e.id;
});
after(async () => {
  await s?.stop();
  home.cleanup();
});

test('files lists the output files and artifacts with kind, task, name, size and sha256; --json gives the API objects', async () => {
  const r = await run(['executions', 'files', id]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0]!, /^KIND\s+TASK\s+NAME\s+SIZE\s+SHA256\s+ID$/);
  // Output files first (by task, then name), then artifacts.
  assert.deepEqual(
    lines.slice(1).map((l) => l.split(/\s+/).slice(0, 5)),
    [
      ['output', 'extract', 'out/big.txt', String(BIG.length), sha(BIG)],
      ['output', 'extract', 'out/rows.csv', String(EXTRACT_CSV.length), sha(EXTRACT_CSV)],
      ['output', 'load', 'out/rows.csv', String(LOAD_CSV.length), sha(LOAD_CSV)],
      ['artifact', 'extract', 'note.txt', '4', sha('kept')],
    ],
  );

  const j = await run(['executions', 'files', id, '--json']);
  assert.equal(j.code, 0, j.stderr);
  const files = JSON.parse(j.stdout) as { kind: string; task_key: string; name: string; size: number; sha256: string; id: string }[];
  assert.equal(files.length, 4);
  const load = files.find((f) => f.task_key === 'load')!;
  assert.deepEqual(
    { kind: load.kind, name: load.name, size: load.size, sha256: load.sha256 },
    { kind: 'output', name: 'out/rows.csv', size: LOAD_CSV.length, sha256: sha(LOAD_CSV) },
  );
  assert.deepEqual(JSON.parse((await run(['executions', 'files', id, '-o', 'json'])).stdout), files);
});

test('download by task/name writes -o FILE with the checked content; by a unique name to the current directory; -o - to standard output', async () => {
  const target = path.join(home.dir, 'extract-rows.csv');
  const r = await run(['executions', 'download', id, 'extract/out/rows.csv', '-o', target]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.readFileSync(target, 'utf8'), EXTRACT_CSV);
  assert.match(r.stderr, new RegExp(`extract/out/rows.csv \\(${EXTRACT_CSV.length} bytes, sha256 ${sha(EXTRACT_CSV)}\\) written to `));

  const dir = fs.mkdtempSync(path.join(home.dir, 'cwd-'));
  const big = await run(['executions', 'download', id, 'out/big.txt'], { cwd: dir });
  assert.equal(big.code, 0, big.stderr);
  assert.deepEqual(fs.readdirSync(dir), ['big.txt']);
  assert.equal(sha(fs.readFileSync(path.join(dir, 'big.txt'), 'utf8')), sha(BIG));

  const out = await run(['executions', 'download', id, 'load/out/rows.csv', '-o', '-']);
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, LOAD_CSV);
  assert.match(out.stderr, /written to standard output/);

  // An artifact's name and its id work too.
  const note = await run(['executions', 'download', id, 'note.txt', '-o', '-']);
  assert.equal(note.stdout, 'kept');
  const files = JSON.parse((await run(['executions', 'files', id, '--json'])).stdout) as { id: string; task_key: string; name: string }[];
  const loadRows = files.find((f) => f.task_key === 'load')!;
  const byId = await run(['executions', 'download', id, loadRows.id, '-o', '-']);
  assert.equal(byId.stdout, LOAD_CSV);
});

test('a name two tasks share is ambiguous (both named, with ids); an absent one lists the files; nothing is written', async () => {
  const dir = fs.mkdtempSync(path.join(home.dir, 'cwd-'));
  const amb = await run(['executions', 'download', id, 'out/rows.csv'], { cwd: dir });
  assert.equal(amb.code, 1);
  assert.match(amb.stderr, /out\/rows\.csv names 2 files of execution/);
  assert.match(amb.stderr, /output\s+extract\/out\/rows\.csv/);
  assert.match(amb.stderr, /output\s+load\/out\/rows\.csv/);
  const missing = await run(['executions', 'download', id, 'out/none.csv'], { cwd: dir });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, new RegExp(`no file out/none.csv in execution ${id}; its files:`));
  assert.match(missing.stderr, /artifact\s+extract\/note\.txt/);
  const badKind = await run(['executions', 'download', id, 'note.txt', '--kind', 'blob'], { cwd: dir });
  assert.equal(badKind.code, 2);
  assert.match(badKind.stderr, /--kind must be input, output or artifact/);
  assert.deepEqual(fs.readdirSync(dir), []);
  const unknown = await run(['executions', 'files', 'no-such-execution']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /not_found|no execution/i);
});

test('bytes that no longer match the listed sha256 fail the download, and no file is left', async () => {
  const row = (await s.db.query(`SELECT object_key FROM artifacts WHERE execution_id = $1 AND name = 'note.txt'`, [id])).rows[0] as { object_key: string };
  const file = path.join(s.dataDir, 'objects', ...row.object_key.split('/'));
  assert.ok(fs.existsSync(file), `the stored object is at ${file}`);
  // Same size, other bytes: only the checksum can tell.
  fs.writeFileSync(file, 'KEPT');
  const dir = fs.mkdtempSync(path.join(home.dir, 'cwd-'));
  const r = await run(['executions', 'download', id, 'extract/note.txt'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`extract/note.txt: the sha256 of the bytes received is ${sha('KEPT')}, the service lists ${sha('kept')}; nothing written`));
  assert.deepEqual(fs.readdirSync(dir), []);
});

test("a user bound on another namespace lists and downloads none of this execution's files", async () => {
  const other = await boundUser(s, { email: 'files-other@example.com', password: 'files other pw 1', namespace: 'cli.elsewhere', role: 'operator', tokenName: 'files-cli' });
  const asOther = { ...env, SVC_TOKEN: other.token };
  const list = await run(['executions', 'files', id], { env: asOther });
  assert.equal(list.code, 1);
  assert.match(list.stderr, /403|404|forbidden|not_found/i);
  assert.doesNotMatch(list.stdout, /rows\.csv/);
  const dir = fs.mkdtempSync(path.join(home.dir, 'cwd-'));
  const dl = await run(['executions', 'download', id, 'extract/out/rows.csv'], { env: asOther, cwd: dir });
  assert.equal(dl.code, 1);
  assert.deepEqual(fs.readdirSync(dir), []);
  outputs.push(['', other.token]);
  for (const [out, err] of outputs.slice(0, -1)) {
    assert.ok(!out.includes(s.token) && !err.includes(s.token), 'the admin token is in no output');
    assert.ok(!out.includes(other.token) && !err.includes(other.token), "the bound user's token is in no output");
  }
});
