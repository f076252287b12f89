import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '@svc/config';
import { imagePullSecretsRefusal } from './kubernetes-pull-secrets.js';

const allow = parseConfig({ SVC_K8S_IMAGE_PULL_SECRETS: 'team-a=regcred-a;*=regcred-shared' }, { cwd: '/tmp', hostname: 'h' }).k8sImagePullSecrets;

test('image pull secrets follow the namespace-prefix rule: a team gets its own and the shared ones, never another team’s', () => {
  assert.equal(imagePullSecretsRefusal(undefined, 'team-b', allow), null, 'none named');
  assert.equal(imagePullSecretsRefusal([], 'team-b', allow), null);
  assert.equal(imagePullSecretsRefusal(['regcred-a', 'regcred-shared'], 'team-a', allow), null);
  assert.equal(imagePullSecretsRefusal(['regcred-a'], 'team-a.etl', allow), null, 'a descendant is covered');
  assert.equal(imagePullSecretsRefusal(['regcred-shared'], 'team-b', allow), null);
  assert.equal(
    imagePullSecretsRefusal(['regcred-shared', 'regcred-a'], 'team-b', allow),
    'the image pull secret regcred-a is not allowed in namespace team-b: an operator must list it in SVC_K8S_IMAGE_PULL_SECRETS for a prefix of team-b (for namespace team-b it lists regcred-shared)',
  );
  assert.match(imagePullSecretsRefusal(['regcred-a'], 'team-ab', allow)!, /regcred-a is not allowed in namespace team-ab/, 'team-a does not cover team-ab');
  assert.match(imagePullSecretsRefusal(['x', 'y'], 'team-a', [])!, /the image pull secrets x, y are not allowed .*it lists none for namespace team-a/, 'unset: none');
});
