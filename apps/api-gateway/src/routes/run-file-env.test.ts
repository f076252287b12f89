import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RUN_FILE_ENV, refusedEnvName } from './run-file-env.js';

test('loader, shell and interpreter controls are refused in any case; prefixes match only at the start', () => {
  for (const n of [
    'LD_PRELOAD',
    'ld_audit',
    'DYLD_INSERT_LIBRARIES',
    'BASH_ENV',
    'BASH_FUNC_x%%',
    'NODE_OPTIONS',
    'PythonPath',
    'PERL5OPT',
    'BUN_X',
    'SVC_TOKEN',
    'PATH',
    'MALLOC_ARENA_MAX',
    'GIT_CONFIG_KEY_0',
  ]) {
    assert.ok(refusedEnvName(n), n);
  }
  for (const n of ['GREETING', 'MY_PATH', 'PATHS', 'XLD_PRELOAD', 'NODE_ENV', 'LANG', 'TZ', 'A1_B2']) {
    assert.equal(refusedEnvName(n), null, n);
  }
});

// Failed before the allowlist: every one of these was accepted.
test('proxy, TLS trust, git and package-index variables are reserved', () => {
  for (const n of [
    'HTTPS_PROXY',
    'HTTP_PROXY',
    'ALL_PROXY',
    'NO_PROXY',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
    'REQUESTS_CA_BUNDLE',
    'CURL_CA_BUNDLE',
    'NODE_TLS_REJECT_UNAUTHORIZED',
    'NODE_EXTRA_CA_CERTS',
    'GIT_SSL_NO_VERIFY',
    'GIT_AUTHOR_NAME',
    'PIP_INDEX_URL',
    'PIP_EXTRA_INDEX_URL',
    'NPM_CONFIG_REGISTRY',
    'YARN_REGISTRY',
    'UV_INDEX_URL',
    'GOPROXY',
    'HOME',
    'XDG_CONFIG_HOME',
    'PYTHONUNBUFFERED',
    'OPENSSL_CONF',
  ]) {
    assert.match(refusedEnvName(n) ?? '', /is reserved/, n);
  }
});

test('names outside the pattern are refused: lower case, a leading _ or digit, other characters', () => {
  for (const n of ['https_proxy', 'npm_config_registry', 'all_proxy', 'Greeting', '_X', '1X', 'A-B', 'A.B', 'A B', '', 'É']) {
    assert.match(refusedEnvName(n) ?? '', /must match/, JSON.stringify(n));
  }
  assert.equal(RUN_FILE_ENV.pattern.source, '^[A-Z][A-Z0-9_]*$');
});
