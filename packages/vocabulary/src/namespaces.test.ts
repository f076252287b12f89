import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namespaceCovers } from './namespaces.js';

test('a namespace prefix covers itself and its children at the dot, never a sibling that shares its letters', () => {
  const cases: [string | null, string, boolean][] = [
    ['team', 'team', true],
    ['team', 'team.etl', true],
    ['team', 'team.etl.x', true],
    ['team', 'teams', false],
    ['team.etl', 'team', false],
    ['a', 'ab', false],
    ['*', 'anything.at.all', true],
    [null, 'team', true],
  ];
  for (const [prefix, ns, want] of cases) assert.equal(namespaceCovers(prefix, ns), want, `${prefix} covers ${ns}`);
});
