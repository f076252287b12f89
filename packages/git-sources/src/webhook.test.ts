import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hubSignature, pushedBranch, verifyPushSignature } from './webhook.js';

const body = Buffer.from('{"ref":"refs/heads/main"}');

test('X-Hub-Signature-256 verifies only with the HMAC of the exact body and secret', () => {
  assert.deepEqual(verifyPushSignature({ 'x-hub-signature-256': hubSignature('s3cret', body) }, body, 's3cret'), { ok: true, scheme: 'hub-signature-256' });
  assert.equal(verifyPushSignature({ 'x-hub-signature-256': hubSignature('other', body) }, body, 's3cret').ok, false);
  assert.equal(verifyPushSignature({ 'x-hub-signature-256': hubSignature('s3cret', Buffer.from('{}')) }, body, 's3cret').ok, false);
  assert.equal(verifyPushSignature({ 'x-hub-signature-256': 'sha1=abc' }, body, 's3cret').ok, false);
  assert.equal(verifyPushSignature({ 'x-hub-signature-256': hubSignature('s3cret', body).toUpperCase().replace('SHA256', 'sha256') }, body, 's3cret').ok, true);
});

test('X-Gitlab-Token verifies only when equal to the secret', () => {
  assert.equal(verifyPushSignature({ 'x-gitlab-token': 's3cret' }, body, 's3cret').ok, true);
  assert.equal(verifyPushSignature({ 'x-gitlab-token': 's3cre' }, body, 's3cret').ok, false);
  assert.equal(verifyPushSignature({ 'x-gitlab-token': '' }, body, 's3cret').ok, false);
});

test('no signature, or a source without a webhook secret, never verifies', () => {
  assert.equal(verifyPushSignature({}, body, 's3cret').ok, false);
  assert.equal(verifyPushSignature({ 'x-gitlab-token': '' }, body, '').ok, false);
});

test('the pushed branch comes from ref', () => {
  assert.equal(pushedBranch({ ref: 'refs/heads/feature/x' }), 'feature/x');
  assert.equal(pushedBranch({ ref: 'refs/tags/v1' }), undefined);
  assert.equal(pushedBranch(null), undefined);
});
