import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeChanges, describeChange, sha256, toWire, type FileState, type LocalFile } from './changeset.js';

const file = (path: string, text: string, executable = false): LocalFile => {
  const content = Buffer.from(text);
  return { path, content, hash: sha256(content), executable };
};
const remoteOf = (files: LocalFile[]) => new Map<string, FileState>(files.map((f) => [f.path, { hash: f.hash, executable: f.executable }]));

test('identical trees give no changes', () => {
  const t = [file('a.flow.yaml', 'a'), file('s/run.sh', 'echo', true)];
  assert.deepEqual(computeChanges(t, remoteOf(t)), []);
});

test('added, modified and removed paths are puts and deletes', () => {
  const remote = remoteOf([file('a', '1'), file('b', '2')]);
  const changes = computeChanges([file('a', '1 changed'), file('c', '3')], remote);
  assert.deepEqual(changes.map(describeChange), ['~ a', '+ c', '- b']);
});

test('a removed path and an added path with the same content are a rename', () => {
  const remote = remoteOf([file('old/run.sh', 'echo hi', true), file('keep', 'k')]);
  const changes = computeChanges([file('new/run.sh', 'echo hi', true), file('keep', 'k')], remote);
  assert.deepEqual(changes.map(describeChange), ['> old/run.sh -> new/run.sh']);
  assert.deepEqual(toWire(changes[0]!), { op: 'rename', path: 'old/run.sh', new_path: 'new/run.sh' });
});

test('one removed file pairs with one added copy; the other copy is a put', () => {
  const remote = remoteOf([file('x', 'same')]);
  const changes = computeChanges([file('y', 'same'), file('z', 'same')], remote);
  assert.deepEqual(changes.map(describeChange), ['> x -> y', '+ z']);
});

test('a rename that also changes the mode is a rename and a put; a mode change alone is a put', () => {
  const remote = remoteOf([file('a.sh', 'x'), file('b.sh', 'y')]);
  const changes = computeChanges([file('c.sh', 'x', true), file('b.sh', 'y', true)], remote);
  assert.deepEqual(changes.map(describeChange), ['> a.sh -> c.sh', '~ b.sh', '~ c.sh']);
});

test('binary content goes as base64, text as UTF-8', () => {
  assert.deepEqual(toWire({ op: 'put', path: 'a', kind: 'added', executable: false, content: Buffer.from('hé') }), { op: 'put', path: 'a', content: 'hé', executable: false });
  assert.deepEqual(toWire({ op: 'put', path: 'b', kind: 'added', executable: false, content: Buffer.from([0, 1, 2]) }), {
    op: 'put',
    path: 'b',
    content_base64: 'AAEC',
    executable: false,
  });
});
