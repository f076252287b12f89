import assert from 'node:assert/strict';
import { test } from 'node:test';
import { globToRegExp, isCiPath, pushPathProblem, pushPathRefusal } from './push-paths.js';

test('CI configuration is refused at the root and below it, in any case', () => {
  for (const p of [
    '.github/workflows/ci.yml',
    '.GitHub/workflows/x.yml',
    '.gitlab-ci.yml',
    '.gitlab/ci/x.yml',
    '.circleci/config.yml',
    'Jenkinsfile',
    'ci/Jenkinsfile.release',
    '.buildkite/pipeline.yml',
    'azure-pipelines.yml',
    '.drone.yml',
    'bitbucket-pipelines.yml',
    'flows/.github/workflows/x.yml',
    '.gitea/workflows/a.yml',
    '.forgejo/workflows/a.yml',
  ]) {
    assert.ok(isCiPath(p), p);
    assert.match(pushPathRefusal(p, []) ?? '', /CI configuration/, p);
    assert.match(pushPathRefusal(p, ['**']) ?? '', /CI configuration/, `${p}: push_paths do not open CI paths`);
  }
  for (const p of ['flows/a.flow.yaml', 'github/x', 'my.github.txt', 'Jenkinsfiles/readme', 'docs/gitlab-ci.md']) assert.equal(isCiPath(p), false, p);
});

test('globs: * and ? within a segment, ** across segments', () => {
  const m = (g: string, p: string) => globToRegExp(g).test(p);
  assert.ok(m('flows/**', 'flows/a/b.yaml'));
  assert.ok(m('flows/*.yaml', 'flows/a.yaml'));
  assert.ok(!m('flows/*.yaml', 'flows/a/b.yaml'));
  assert.ok(m('**/*.sh', 'a/b/c.sh'));
  assert.ok(m('**/*.sh', 'c.sh'));
  assert.ok(m('a?c', 'abc'));
  assert.ok(!m('a?c', 'a/c'));
  assert.ok(!m('flows.x', 'flowsax'), 'a dot is literal');
});

test('push_paths narrow what a push writes; no push_paths allows the mapping', () => {
  assert.equal(pushPathRefusal('flows/a.flow.yaml', []), null);
  assert.equal(pushPathRefusal('flows/a.flow.yaml', ['flows/*.flow.yaml']), null);
  assert.match(pushPathRefusal('flows/bin/run.sh', ['flows/*.flow.yaml']) ?? '', /matches none/);
});

test('push_paths globs are checked', () => {
  assert.equal(pushPathProblem('flows/**'), null);
  for (const g of ['', '/abs', 'a/../b', './a', 'a\\b', 'x'.repeat(513)]) assert.ok(pushPathProblem(g), JSON.stringify(g));
});
