import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseConfig } from './config.js';
import { ConfigError, type ConfigProblem } from './errors.js';

const machine = { cwd: '/srv/app', hostname: 'node-7' };

function problemsOf(env: Record<string, string>): ConfigProblem[] {
  try {
    parseConfig(env, machine);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`);
}

describe('SVC_HTTP_KEEPALIVE_TIMEOUT and SVC_HTTP_HEADERS_TIMEOUT', () => {
  it('default above the 60 s idle timeout of common load balancers, headers a second longer', () => {
    const config = parseConfig({}, machine);
    assert.equal(config.httpKeepAliveTimeoutMs, 75_000);
    assert.equal(config.httpHeadersTimeoutMs, 76_000);
  });

  it('read durations, the headers timeout following a changed keep-alive unless set', () => {
    assert.deepEqual(
      (({ httpKeepAliveTimeoutMs, httpHeadersTimeoutMs }) => [httpKeepAliveTimeoutMs, httpHeadersTimeoutMs])(parseConfig({ SVC_HTTP_KEEPALIVE_TIMEOUT: '2m' }, machine)),
      [120_000, 121_000],
    );
    const both = parseConfig({ SVC_HTTP_KEEPALIVE_TIMEOUT: '1s', SVC_HTTP_HEADERS_TIMEOUT: '30s' }, machine);
    assert.deepEqual([both.httpKeepAliveTimeoutMs, both.httpHeadersTimeoutMs], [1000, 30_000]);
  });

  for (const [what, env, variable, message] of [
    ['a number without a unit', { SVC_HTTP_KEEPALIVE_TIMEOUT: '75' }, 'SVC_HTTP_KEEPALIVE_TIMEOUT', /must be a duration/],
    ['under a second', { SVC_HTTP_KEEPALIVE_TIMEOUT: '500ms' }, 'SVC_HTTP_KEEPALIVE_TIMEOUT', /must be from 1s to 1h/],
    ['over an hour', { SVC_HTTP_HEADERS_TIMEOUT: '2h' }, 'SVC_HTTP_HEADERS_TIMEOUT', /must be from 1s to 1h/],
    [
      'headers not longer than keep-alive',
      { SVC_HTTP_KEEPALIVE_TIMEOUT: '90s', SVC_HTTP_HEADERS_TIMEOUT: '60s' },
      'SVC_HTTP_HEADERS_TIMEOUT',
      /must be longer than SVC_HTTP_KEEPALIVE_TIMEOUT \(1m30s\)/,
    ],
  ] as const) {
    it(`refuses ${what}`, () => {
      const problems = problemsOf(env);
      assert.deepEqual(
        problems.map((p) => p.variable),
        [variable],
      );
      assert.match(problems[0]!.message, message);
    });
  }
});
