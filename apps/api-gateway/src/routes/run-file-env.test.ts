import assert from 'node:assert/strict';
import { test } from 'node:test';
import { refusedEnvName } from './run-file-env.js';

test('loader, shell and interpreter controls are refused in any case; prefixes match only at the start', () => {
  for (const n of ['LD_PRELOAD', 'ld_audit', 'DYLD_INSERT_LIBRARIES', 'BASH_ENV', 'BASH_FUNC_x%%', 'NODE_OPTIONS', 'PythonPath', 'PERL5OPT', 'BUN_X', 'SVC_TOKEN', 'PATH', 'MALLOC_ARENA_MAX', 'GIT_CONFIG_KEY_0']) {
    assert.ok(refusedEnvName(n), n);
  }
  for (const n of ['GREETING', 'MY_PATH', 'PATHS', 'XLD_PRELOAD', 'NODE_ENV', 'PYTHONUNBUFFERED', 'HOME', 'LANG', 'TZ', 'GIT_AUTHOR_NAME']) {
    assert.equal(refusedEnvName(n), null, n);
  }
});
