import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { loadConfig } from './load.js';

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function run(env: Record<string, string>): { code: number | undefined; stderr: string } {
  let stderr = '';
  const opts = {
    exit: (code: number): never => {
      throw new Exited(code);
    },
    stderr: { write: (s: string) => (stderr += s) },
  };
  try {
    loadConfig(env, opts);
    return { code: undefined, stderr };
  } catch (err) {
    if (err instanceof Exited) return { code: err.code, stderr };
    throw err;
  }
}

describe('loadConfig', () => {
  it('returns the config when it is valid, printing nothing', () => {
    const { code, stderr } = run({ SVC_PORT: '1234' });
    assert.equal(code, undefined);
    assert.equal(stderr, '');
    assert.equal(loadConfig({ SVC_PORT: '1234' }).port, 1234);
  });

  it('prints one line per variable at fault and exits with 2', () => {
    const { code, stderr } = run({ SVC_PORT: 'x', SVC_LOG_FORMAT: 'xml', SVC_ADMIN_EMAIL: 'a@b' });
    assert.equal(code, 2);
    assert.equal(
      stderr,
      [
        'invalid configuration:',
        '  SVC_PORT: must be a port number from 0 to 65535 (got "x")',
        '  SVC_ADMIN_PASSWORD: must be set when SVC_ADMIN_EMAIL is set',
        '  SVC_LOG_FORMAT: must be one of json, text (got "xml")',
        '',
      ].join('\n'),
    );
  });

  it('never prints the values of secrets', () => {
    const { code, stderr } = run({ SVC_MASTER_KEYS: 'k:dG9vc2hvcnQ=', SVC_TOKEN: 'svc_ leaked', SVC_ADMIN_PASSWORD: 'pw-leaked' });
    assert.equal(code, 2);
    assert.match(stderr, /SVC_MASTER_KEYS: entry 1 \(k\) decodes to 8 bytes/);
    assert.match(stderr, /SVC_TOKEN: /);
    assert.match(stderr, /SVC_ADMIN_EMAIL: must be set/);
    for (const leaked of ['dG9vc2hvcnQ', 'leaked']) assert.ok(!stderr.includes(leaked), `stderr shows ${leaked}`);
  });
});
