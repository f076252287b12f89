// The run dialog's pure pieces: which files run and how, and the arguments
// and environment read from its two text areas.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs, parseEnv, runRefusal, runsWith } from './RunFile.tsx';

const entry = (path: string, executable = false) => ({ path, size: 1, executable, sha256: '' });

describe('run a file from the editor', () => {
  it('offers scripts and executable files, and says why not otherwise', () => {
    assert.equal(runRefusal('a/report.sh', entry('a/report.sh')), null);
    assert.equal(runRefusal('bin/tool', entry('bin/tool', true)), null);
    assert.equal(runRefusal('notes.md', entry('notes.md')), 'Only scripts (.py, .sh, .ts, .js) and executable files run');
    assert.equal(runRefusal('new.py', undefined), 'Save the file first: a run uses the saved version');
    assert.equal(runRefusal('', undefined), 'Open a file first');
    assert.equal(runsWith('x.ts'), 'with bun, from its extension');
    assert.equal(runsWith('bin/tool'), 'as a command: the file itself, executable');
  });

  it('reads one argument a line, keeping empty and spaced ones', () => {
    assert.deepEqual(parseArgs(''), []);
    assert.deepEqual(parseArgs('a b\n\n{{ x }}\n'), ['a b', '', '{{ x }}']);
  });

  it('reads NAME=value lines, the value after the first =, and names a line without one', () => {
    assert.deepEqual(parseEnv('A=1\n\nB=x = y\n'), { env: { A: '1', B: 'x = y' }, problems: [] });
    assert.deepEqual(parseEnv('A=1\nBROKEN\n=v'), { env: { A: '1' }, problems: ['Line 2: write NAME=value', 'Line 3: write NAME=value'] });
  });
});
