// svc run --file KEY=PATH as a subprocess against a real stack: the file is
// uploaded to the flow's namespace (createUpload, streamed, with its sha256),
// then the flow is triggered with the upload's id as the input's value; the
// execution lists the file as an input file and downloads its bytes. A
// missing local file is a usage error before anything is uploaded; a file
// over SVC_MAX_INPUT_FILE_BYTES (413), a name the service refuses (422) and an
// upload id that is no upload (422 on inputs.report) say so clearly and start
// nothing; a user bound on one namespace cannot upload to another (403), nor
// run their flow with another namespace's upload (422). The token is in no
// output.
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
const NS = 'cli.inputs';
const OTHER = 'cli.elsewhere';
const LIMIT = 256 * 1024;
const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
// 200 KB: many chunks of a stream, under the limit.
const CSV = 'quarter,region,revenue\n' + Array.from({ length: 8_000 }, (_, i) => `Q3,r${i % 17},${i * 31}`).join('\n') + '\n';
const FLOW = (ns: string) => `id: report
inputs:
  - id: report
    type: file
    required: true
  - id: note
    type: string
    default: none
tasks:
  - id: load
    type: command
    command: ["sh", "-c", "echo ${ns}"]
`;
const outputs: string[] = [];
const run = async (args: string[], extra: Record<string, string> = {}) => {
  const r = await svc(args, { env: { ...env, ...extra }, cwd: home.dir });
  outputs.push(r.stdout, r.stderr);
  return r;
};
const count = async (sql: string, params: unknown[] = []) => Number((await s.db.query(sql, params)).rows[0].n);
const executions = () => count(`SELECT count(*)::int AS n FROM executions WHERE namespace = $1`, [NS]);
const uploads = (ns = NS) => count(`SELECT count(*)::int AS n FROM uploads WHERE namespace = $1`, [ns]);

before(async () => {
  s = await startStack({ env: { SVC_MAX_INPUT_FILE_BYTES: String(LIMIT) }, maintenance: false });
  env = { ...home.env, SVC_URL: s.url, SVC_TOKEN: s.token };
  await s.saveFlow(NS, { 'report.flow.yaml': FLOW(NS) });
  await s.saveFlow(OTHER, { 'report.flow.yaml': FLOW(OTHER) });
  fs.writeFileSync(path.join(home.dir, 'q3.csv'), CSV);
  fs.writeFileSync(path.join(home.dir, 'big.bin'), Buffer.alloc(LIMIT + 1000, 7));
  fs.writeFileSync(path.join(home.dir, 'odd\\name.csv'), 'a,b\n');
});
after(async () => {
  await s?.stop();
  home.cleanup();
});

test('run --file uploads the file with its sha256, then starts the flow with the upload id; the execution lists and serves it', async () => {
  const r = await run(['run', `${NS}/report`, '--file', 'report=./q3.csv', '--input', 'note=q3', '-l', 'team=finance']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`uploaded \\./q3\\.csv for input report \\(${CSV.length} bytes, sha256 ${sha(CSV)}\\)`));
  const id = r.stdout.trim();
  const ex = (await s.api('GET', `/api/v1/executions/${id}`)).body;
  assert.equal(ex.inputs.note, 'q3');
  assert.deepEqual(ex.labels, { team: 'finance' });
  // The input's value is an upload of the namespace, with the file's name, size and sha256.
  const row = (await s.db.query(`SELECT namespace, name, size::int AS size, sha256 FROM uploads WHERE id = $1`, [ex.inputs.report])).rows[0];
  assert.deepEqual(row, { namespace: NS, name: 'q3.csv', size: CSV.length, sha256: sha(CSV) });
  assert.equal((await s.waitEnded(id)).state, 'SUCCESS');

  const files = await run(['executions', 'files', id]);
  assert.equal(files.code, 0, files.stderr);
  const line = files.stdout
    .trim()
    .split('\n')
    .find((l) => l.startsWith('input'));
  assert.deepEqual(line?.split(/\s+/).slice(0, 5), ['input', '-', 'report/q3.csv', String(CSV.length), sha(CSV)]);
  const out = path.join(home.dir, 'back.csv');
  const dl = await run(['executions', 'download', id, 'report/q3.csv', '-o', out]);
  assert.equal(dl.code, 0, dl.stderr);
  assert.equal(sha(fs.readFileSync(out)), sha(CSV));
});

test('a missing local file, a --file for an input of another type, or a path given as --input of a file input is a usage error; nothing is uploaded or started', async () => {
  const [u, e] = [await uploads(), await executions()];
  const r = await run(['run', `${NS}/report`, '--file', 'report=./q3.csv', '--file', 'extra=./nope.csv']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--file extra=\.\/nope\.csv: no such file/);
  const dir = await run(['run', `${NS}/report`, '--file', 'report=.']);
  assert.equal(dir.code, 2);
  assert.match(dir.stderr, /--file report=\.: not a regular file/);
  const both = await run(['run', `${NS}/report`, '--file', 'report=./q3.csv', '--input', 'report=x']);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /input report is given by both --input and --file/);
  const notFile = await run(['run', `${NS}/report`, '--file', 'note=./q3.csv']);
  assert.equal(notFile.code, 2);
  assert.match(notFile.stderr, /--file note=\.\/q3\.csv: input note is of type string, not file/);
  const pathAsId = await run(['run', `${NS}/report`, '--input', 'report=./q3.csv']);
  assert.equal(pathAsId.code, 2);
  assert.match(pathAsId.stderr, /input report is a file input: give the file with --file report=\.\/q3\.csv/);
  const batch = await run(['run', `${NS}/report`, '--batch', '-', '--file', 'report=./q3.csv']);
  assert.equal(batch.code, 2);
  assert.match(batch.stderr, /cannot be combined with --input, --input-file, --file or --watch/);
  assert.deepEqual([await uploads(), await executions()], [u, e]);
});

test('a file over SVC_MAX_INPUT_FILE_BYTES (413) or with a name the service refuses (422) says so, keeps nothing and starts nothing', async () => {
  const [u, e] = [await uploads(), await executions()];
  const big = await run(['run', `${NS}/report`, '--file', 'report=big.bin']);
  assert.equal(big.code, 1);
  assert.match(
    big.stderr,
    new RegExp(
      `--file report=big\\.bin: the upload to ${NS.replace('.', '\\.')} failed \\(code too_large, HTTP 413.*\\): too large: big\\.bin is ${LIMIT + 1000} bytes, over SVC_MAX_INPUT_FILE_BYTES \\(${LIMIT} bytes\\)`,
    ),
  );
  const odd = await run(['run', `${NS}/report`, '--file', 'report=odd\\name.csv']);
  assert.equal(odd.code, 1);
  assert.match(odd.stderr, /--file report=odd\\name\.csv: the upload to cli\.inputs failed \(code validation_failed, HTTP 422.*\): refused: .*name/);
  assert.deepEqual([await uploads(), await executions()], [u, e]);
});

test('an upload id that is no upload is refused on inputs.report (422)', async () => {
  const e = await executions();
  const r = await run(['run', `${NS}/report`, '--input', 'report=upl_nothing']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /HTTP 422/);
  assert.match(r.stderr, /inputs\.report/);
  assert.equal(await executions(), e);
});

test("a user bound on one namespace uploads there, but not to another (403), and cannot run a flow of theirs with another namespace's upload (422)", async () => {
  const { token } = await boundUser(s, { email: 'inputs-op@example.com', password: 'inputs op password 1', namespace: NS, role: 'operator', tokenName: 'inputs-cli' });
  const own = await run(['run', `${NS}/report`, '--file', 'report=q3.csv'], { SVC_TOKEN: token });
  assert.equal(own.code, 0, own.stderr);
  const before = await uploads(OTHER);
  const otherRe = OTHER.replace('.', '\\.');
  // No role on the other namespace: its flow is not even read, and nothing is uploaded.
  const unseen = await run(['run', `${OTHER}/report`, '--file', 'report=q3.csv'], { SVC_TOKEN: token });
  assert.equal(unseen.code, 1);
  assert.match(unseen.stderr, /code forbidden, HTTP 403/);
  // A viewer there reads the flow, but the upload needs operator.
  assert.equal((await s.api('POST', '/api/v1/role-bindings', { namespace: OTHER, user: 'inputs-op@example.com', role: 'viewer' })).status, 201);
  const viewer = await run(['run', `${OTHER}/report`, '--file', 'report=q3.csv'], { SVC_TOKEN: token });
  assert.equal(viewer.code, 1);
  assert.match(viewer.stderr, new RegExp(`--file report=q3\\.csv: the upload to ${otherRe} failed \\(code forbidden, HTTP 403`));
  assert.equal(await uploads(OTHER), before);
  assert.equal(await count(`SELECT count(*)::int AS n FROM executions WHERE namespace = $1`, [OTHER]), 0);

  // An upload of the other namespace (the admin's) as the value of their own flow's input: 422 on the input.
  const admin = await run(['run', `${OTHER}/report`, '--file', 'report=q3.csv']);
  assert.equal(admin.code, 0, admin.stderr);
  const foreign = (await s.api('GET', `/api/v1/executions/${admin.stdout.trim()}`)).body.inputs.report as string;
  const e = await executions();
  const reach = await run(['run', `${NS}/report`, '--input', `report=${foreign}`], { SVC_TOKEN: token });
  assert.equal(reach.code, 1);
  assert.match(reach.stderr, /HTTP 422/);
  assert.match(reach.stderr, /inputs\.report/);
  assert.equal(await executions(), e);
  // Neither token appears in any output.
  for (const o of outputs) {
    assert.ok(!o.includes(s.token), 'the admin token is in no output');
    assert.ok(!o.includes(token), 'the bound user token is in no output');
  }
});
