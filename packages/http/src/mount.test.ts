import { test } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import { operations } from '@svc/api-spec';
import { mountOperations, toExpressPath } from './mount.js';

const log = { debug() {}, info() {}, warn() {}, error() {} };

test('catalog paths become express 5 paths', () => {
  assert.equal(toExpressPath('/api/v1/flows/{namespace}/{flowId}/revisions/{revisionId}'), '/api/v1/flows/:namespace/:flowId/revisions/:revisionId');
  assert.equal(toExpressPath('/api/v1/schemas/flow.json'), '/api/v1/schemas/flow.json');
});

test('the whole catalog mounts without handlers', () => {
  assert.doesNotThrow(() => mountOperations(express.Router(), { operations, handlers: {}, authenticate: () => undefined, log }));
});

test('a handler for an unknown operationId is refused at mount time', () => {
  assert.throws(() => mountOperations(express.Router(), { operations, handlers: { triggerFlw: () => 1 }, authenticate: () => undefined, log }), /unknown operations: triggerFlw/);
});

test('a runner or webhook handler without its verifier is refused at mount time', () => {
  assert.throws(() => mountOperations(express.Router(), { operations, handlers: { runnerGetSpec: () => 1 }, authenticate: () => undefined, log }), /authenticateRunner/);
  assert.throws(() => mountOperations(express.Router(), { operations, handlers: { gitPushWebhook: () => 1 }, authenticate: () => undefined, log }), /verifySignature/);
});
