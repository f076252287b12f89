import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testDocker } from './docker.js';

test('the test run engine wins, then its skip reason, then a hand-run default', () => {
  const run = testDocker({ SVC_TEST_DOCKER_HOST: 'unix:///tmp/x/docker.sock', SVC_TEST_DOCKER_SKIP: 'ignored' });
  assert.ok('docker' in run && run.host === 'unix:///tmp/x/docker.sock');
  assert.equal((run.docker.modem as unknown as { socketPath: string }).socketPath, '/tmp/x/docker.sock');
  assert.deepEqual(testDocker({ SVC_TEST_DOCKER_SKIP: 'no engine here' }), { skip: 'no engine here' });
  const tcp = testDocker({ DOCKER_HOST: 'tcp://127.0.0.1:2375' });
  assert.ok('docker' in tcp && (tcp.docker.modem as unknown as { port: number }).port === 2375);
});
