import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { providerServes, reachesByNesting, reachRefusal } from './reach.js';

describe('what a flow reaches', () => {
  it('its own namespace and its descendants, not a parent, sibling or look-alike', () => {
    assert.equal(reachesByNesting('team-a', 'team-a'), true);
    assert.equal(reachesByNesting('team-a', 'team-a.sub.x'), true);
    assert.equal(reachesByNesting('team-a.sub', 'team-a'), false);
    assert.equal(reachesByNesting('team-a', 'team-b'), false);
    assert.equal(reachesByNesting('team', 'team-a'), false);
    assert.equal(reachesByNesting('a', 'a.b'), true);
    assert.equal(reachesByNesting('a', 'ab'), false);
  });

  it('a provider scope: entries cover children, * every namespace, none when empty', () => {
    assert.equal(providerServes(['team-a'], 'team-a.sub'), true);
    assert.equal(providerServes(['team-a'], 'team-b'), false);
    assert.equal(providerServes(['*'], 'team-b'), true);
    assert.equal(providerServes([], 'team-a'), false);
  });

  it('the refusal says who may not reach what and how an admin allows it', () => {
    assert.equal(
      reachRefusal('subflow', 'team-a', 'team-b'),
      'a subflow of namespace team-a may not start a flow of namespace team-b: flows reach their own namespace and its children only, unless an admin lists team-a in the allowed callers of team-b',
    );
    assert.match(reachRefusal('flow trigger', 'team-a', 'team-b'), /may not listen to executions of namespace team-b/);
  });
});
