import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LibraryResolutionError, parseLoaderList } from './libraries.js';

test('the loader list gives each needed library by soname; the vdso and the loader line carry no path', () => {
  const out = [
    '\tlinux-vdso.so.1 (0x00007ffd5a1e0000)',
    '\tlibdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f1c2c0a0000)',
    '\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f1c2be00000)',
    '\t/lib64/ld-linux-x86-64.so.2 (0x00007f1c2c0c8000)',
  ].join('\n');
  assert.deepEqual(parseLoaderList('node', out), [
    { soname: 'libdl.so.2', path: '/lib/x86_64-linux-gnu/libdl.so.2' },
    { soname: 'libstdc++.so.6', path: '/lib/x86_64-linux-gnu/libstdc++.so.6' },
  ]);
});

test('a library the loader cannot find is an error naming it', () => {
  assert.throws(
    () => parseLoaderList('node', '\tlibmissing.so.1 => not found\n'),
    (err: unknown) => err instanceof LibraryResolutionError && /libmissing\.so\.1 not found/.test(err.message),
  );
});
