import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseProviderScope, providerServes, ProviderScopeError } from './provider-scope.js';

describe('provider scope', () => {
  it('an entry serves its namespace and children, never a look-alike; * serves all; empty none', () => {
    assert.equal(providerServes(['team'], 'team'), true);
    assert.equal(providerServes(['team'], 'team.etl.x'), true);
    assert.equal(providerServes(['team'], 'teams'), false);
    assert.equal(providerServes(['team.etl'], 'team'), false, 'not a parent');
    assert.equal(providerServes(['*'], 'anything.at.all'), true);
    assert.equal(providerServes([], 'team'), false);
  });

  it('parses a list of namespace names or *, sorted and unique; names each bad entry', () => {
    assert.deepEqual(parseProviderScope(['b', 'a', 'b', '*']), { namespaces: ['*', 'a', 'b'], problems: [] });
    assert.deepEqual(
      parseProviderScope(['ok', 'Bad', 'a..b', 3, '-x']).problems.map((p) => p.field),
      ['namespaces[1]', 'namespaces[2]', 'namespaces[3]', 'namespaces[4]'],
    );
    assert.deepEqual(
      parseProviderScope('team').problems.map((p) => p.field),
      ['namespaces'],
    );
  });

  it('the refusal names the provider and the namespace', () => {
    const e = new ProviderScopeError('vault', 'team-a');
    assert.equal(e.reason, 'secret_provider_not_allowed');
    assert.match(e.message, /secret provider vault does not serve namespace team-a/);
  });
});
