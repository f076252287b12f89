// output_files (docs/using/files.md): after a success, the files under the
// working directory that a pattern matches are uploaded as output files with
// their sha256; a pattern matching nothing is no error; a file over the limit
// fails the task naming the file and the limit; a failed task keeps none.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { runTask } from '../src/index.js';
import { matchOutputFiles } from '../src/output-files.js';
import { makeSpec, MemoryTransport, scratchRoots } from '../src/testing/index.js';

const root = scratchRoots();
const sha = (b: Buffer | string) => crypto.createHash('sha256').update(b).digest('hex');
const write = [
  'mkdir -p out/deep',
  'echo a > out/a.csv',
  'echo b > out/b.csv',
  'echo c > out/deep/c.csv',
  'echo r > report.json',
  'echo x > other.txt',
  'ln -s /etc/passwd out/link.csv',
].join('\n');

test('the matching files are uploaded as output files with their sha256; a pattern matching nothing is no error', async () => {
  const spec = makeSpec({ command: ['bash', '-c', write] });
  spec.output_files = ['out/*.csv', 'report.json', 'missing/**'];
  const t = new MemoryTransport(spec);
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'SUCCESS', c.error);
  assert.deepEqual([...t.outputFiles.keys()].sort(), ['out/a.csv', 'out/b.csv', 'report.json']);
  for (const [name, f] of t.outputFiles) assert.equal(f.sha256, sha(f.body), name);
  assert.equal(t.outputFiles.get('out/a.csv')!.body.toString(), 'a\n');
  // Output files are not artifacts, and they are sent before complete.
  assert.equal(t.artifacts.size, 0);
  assert.equal(t.calls.at(-1), 'complete');
});

test('a file over the limit fails the task, naming the file and the limit', async () => {
  const spec = makeSpec({ command: ['bash', '-c', 'mkdir -p out && head -c 5000 /dev/zero > out/big.bin && echo s > out/small.bin'] });
  spec.output_files = ['out/*'];
  spec.limits.max_artifact_bytes = 4096;
  const t = new MemoryTransport(spec);
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'FAILED');
  assert.equal(c.error, 'output file out/big.bin is 5000 bytes, over SVC_MAX_ARTIFACT_BYTES (4096 bytes)');
  assert.ok(t.text('stderr').includes(`[svc] ${c.error}`));
});

test('a task that fails keeps no output files', async () => {
  const spec = makeSpec({ command: ['bash', '-c', `${write}\nexit 3`] });
  spec.output_files = ['**'];
  const t = new MemoryTransport(spec);
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'FAILED');
  assert.equal(t.outputFiles.size, 0);
});

test('an upload refused by the receiver fails the task with its message', async () => {
  const spec = makeSpec({ command: ['bash', '-c', 'echo a > a.txt'] });
  spec.output_files = ['a.txt'];
  const t = new MemoryTransport(spec);
  t.putArtifact = async () => {
    throw new Error('HTTP 422 checksum');
  };
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'FAILED');
  assert.equal(c.error, 'output file a.txt could not be stored: HTTP 422 checksum');
});

test('globs: ** crosses directories, links are not matched, dot files are', async () => {
  const spec = makeSpec({ command: ['bash', '-c', `${write}\necho h > out/.hidden.csv`] });
  spec.output_files = ['x'];
  const dir = await root();
  const t = new MemoryTransport(spec);
  await runTask({ transport: t, workRoot: dir, keepWorkdir: true });
  const fs = await import('node:fs');
  const path = await import('node:path');
  const runDir = fs
    .readdirSync(dir)
    .map((d) => path.join(dir, d, 'bundle'))
    .find((d) => fs.existsSync(path.join(d, 'out')))!;
  assert.deepEqual(matchOutputFiles(runDir, ['out/**/*.csv']), ['out/.hidden.csv', 'out/a.csv', 'out/b.csv', 'out/deep/c.csv']);
  assert.deepEqual(matchOutputFiles(runDir, ['*.json', 'nothing/*']), ['report.json']);
});

test('a secret in a failing file name is masked in the error and the warning line', async () => {
  const spec = makeSpec({ command: ['bash', '-c', 'head -c 5000 /dev/zero > "s3cr3t-value.bin"'] });
  spec.output_files = ['*.bin'];
  spec.limits.max_artifact_bytes = 4096;
  spec.mask_values = ['s3cr3t-value'];
  const t = new MemoryTransport(spec);
  const c = await runTask({ transport: t, workRoot: await root() });
  assert.equal(c.state, 'FAILED');
  assert.ok(!c.error.includes('s3cr3t-value'), c.error);
  assert.match(c.error, /^output file \S+\.bin is 5000 bytes, over SVC_MAX_ARTIFACT_BYTES \(4096 bytes\)$/);
  assert.ok(!JSON.stringify(t.lines).includes('s3cr3t-value'));
});
