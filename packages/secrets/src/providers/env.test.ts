import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderConfigError, ProviderError } from '../errors.js';
import { buildProvider, validateProviderSettings } from './build.js';

const env = {
  SVC_SECRET_DB: 'from-prefix',
  DB: 'no-prefix',
  SVC_SECRET_JSON: '{"user":"u1","password":"p1"}',
  SVC_SECRET_TEXT: 'not json',
  SVC_MASTER_KEYS: 'k:AAAA',
};

describe('env provider', () => {
  it('reads <prefix><path> from the environment it is given', async () => {
    const p = buildProvider('env', validateProviderSettings('env', { prefix: 'SVC_SECRET_' }, undefined), { env });
    assert.equal(await p.get('DB'), 'from-prefix');
    assert.equal(await p.get('MISSING'), undefined);
    const plain = buildProvider('env', validateProviderSettings('env', {}, undefined), { env });
    assert.equal(await plain.get('DB'), 'no-prefix');
  });

  it('#field reads a field of a JSON object value', async () => {
    const p = buildProvider('env', validateProviderSettings('env', { prefix: 'SVC_SECRET_' }, undefined), { env });
    assert.equal(await p.get('JSON', 'password'), 'p1');
    assert.equal(await p.get('JSON', 'nope'), undefined);
    await assert.rejects(p.get('TEXT', 'x'), (err: unknown) => err instanceof ProviderError && !err.message.includes('not json'));
  });

  it('never serves the service own configuration, such as SVC_MASTER_KEYS', async () => {
    const p = buildProvider('env', validateProviderSettings('env', {}, undefined), { env });
    await assert.rejects(p.get('SVC_MASTER_KEYS'), (err: unknown) => err instanceof ProviderError && !err.message.includes('AAAA'));
    await assert.rejects(p.get('a/b'), ProviderError);
  });

  it('check counts the variables under the prefix', async () => {
    const p = buildProvider('env', validateProviderSettings('env', { prefix: 'SVC_SECRET_' }, undefined), { env });
    assert.deepEqual(await p.check(), { ok: true, message: '3 environment variable(s) start with SVC_SECRET_' });
  });

  it('rejects unknown settings, a bad prefix and credentials', () => {
    assert.throws(
      () => validateProviderSettings('env', { prefix: '1X', other: 1 }, { token: 't' }),
      (err: unknown) => err instanceof ProviderConfigError && err.problems.map((p) => p.field).join() === 'config.prefix,config.other,credentials',
    );
    assert.throws(
      () => validateProviderSettings('aws', {}, undefined),
      (err: unknown) => err instanceof ProviderConfigError && err.problems[0]!.field === 'type',
    );
  });
});

describe('vault settings', () => {
  it('need an http(s) address and a token; mount defaults to secret', () => {
    const s = validateProviderSettings('vault', { address: 'http://127.0.0.1:8200/' }, { token: 't' });
    assert.deepEqual(s.config, { address: 'http://127.0.0.1:8200', mount: 'secret' });
    assert.throws(
      () => validateProviderSettings('vault', { address: 'file:///etc', mount: '../x' }, {}),
      (err: unknown) => err instanceof ProviderConfigError && err.problems.map((p) => p.field).join() === 'config.address,config.mount,credentials.token',
    );
  });
});
