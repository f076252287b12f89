// The process executor's bundle cache: a bundle is extracted once per hash,
// and each run gets its own copy of the tree (directories, files with their
// executable bits, links), so what one task changes no other task sees.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { BundleCache, BundleTooLargeError } from '../src/index.js';
import { makeTarGz, scratchRoots } from '../src/testing/index.js';

const root = scratchRoots();

test('a bundle is extracted once and copied whole into each run; a change in one copy stays there', async () => {
  const tgz = await makeTarGz([
    { name: 'scripts/', type: 'directory' },
    { name: 'scripts/run.sh', content: '#!/bin/sh\necho hi\n', mode: 0o755 },
    { name: 'data.csv', content: 'a,b\n' },
    { name: 'current', type: 'symlink', linkname: 'scripts/run.sh' },
  ]);
  const cache = new BundleCache({ root: path.join(await root(), 'cache') });
  let fetched = 0;
  const source = async () => {
    fetched++;
    return Readable.from([tgz]);
  };
  const [a, b] = [await root(), await root()];
  await cache.fill('h1', source, a, 0);
  await fs.appendFile(path.join(a, 'data.csv'), 'changed\n');
  await cache.fill('h1', source, b, 0);
  assert.equal(fetched, 1, 'extracted once');
  assert.equal(await fs.readFile(path.join(b, 'data.csv'), 'utf8'), 'a,b\n', 'the second run has the original content');
  assert.equal((await fs.stat(path.join(b, 'scripts/run.sh'))).mode & 0o777, 0o755);
  assert.equal((await fs.stat(path.join(b, 'data.csv'))).mode & 0o111, 0);
  assert.equal(await fs.readlink(path.join(b, 'current')), 'scripts/run.sh', 'links keep their relative target');
  assert.deepEqual((await fs.readdir(b)).sort(), ['current', 'data.csv', 'scripts']);
  cache.close();
});

test('the size limit holds for a cached bundle too, and a failed extraction is not cached', async () => {
  const tgz = await makeTarGz([{ name: 'big.bin', content: 'x'.repeat(1000) }]);
  const cache = new BundleCache({ root: path.join(await root(), 'cache') });
  await cache.fill('h2', async () => Readable.from([tgz]), await root(), 0);
  await assert.rejects(
    cache.fill('h2', async () => Readable.from([tgz]), await root(), 100),
    BundleTooLargeError,
  );
  await assert.rejects(cache.fill('h3', async () => Readable.from([Buffer.from('not a tar.gz at all, but long enough to be read')]), await root(), 0));
  let fetched = 0;
  await cache.fill('h3', async () => (fetched++, Readable.from([tgz])), await root(), 0);
  assert.equal(fetched, 1, 'the failed extraction was retried');
  cache.close();
});
