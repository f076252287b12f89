import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';

import { MasterKeysError, parseMasterKeys } from './master-keys.js';

const key32 = () => crypto.randomBytes(32);

function reasonsOf(text: string): string[] {
  try {
    parseMasterKeys(text);
  } catch (err) {
    assert.ok(err instanceof MasterKeysError);
    return err.reasons;
  }
  assert.fail(`expected ${JSON.stringify(text)} to be refused`);
}

describe('parseMasterKeys', () => {
  it('gives no keys for an empty or blank text', () => {
    assert.deepEqual(parseMasterKeys(''), []);
    assert.deepEqual(parseMasterKeys('  '), []);
  });

  it('reads keys in order, first one first', () => {
    const a = key32();
    const b = key32();
    const keys = parseMasterKeys(`acc1:${a.toString('base64')}, acc-2_x:${b.toString('base64')}`);
    assert.deepEqual(
      keys.map((k) => k.id),
      ['acc1', 'acc-2_x'],
    );
    assert.ok(keys[0]!.key.equals(a));
    assert.ok(keys[1]!.key.equals(b));
  });

  it('accepts unpadded base64url', () => {
    const a = key32();
    const [k] = parseMasterKeys(`k:${a.toString('base64url')}`);
    assert.ok(k!.key.equals(a));
  });

  it('refuses an entry without a colon', () => {
    assert.deepEqual(reasonsOf('justakey'), ['entry 1 has no ":" (expected KEY_ID:BASE64)']);
  });

  it('refuses bad base64', () => {
    assert.match(reasonsOf('k:not*base64!')[0]!, /entry 1 \(k\) is not valid base64/);
    assert.match(reasonsOf('k:')[0]!, /not valid base64/);
  });

  it('refuses a key that is not 32 bytes', () => {
    assert.match(reasonsOf(`k:${crypto.randomBytes(16).toString('base64')}`)[0]!, /decodes to 16 bytes, expected 32/);
    assert.match(reasonsOf(`k:${crypto.randomBytes(33).toString('base64')}`)[0]!, /decodes to 33 bytes/);
  });

  it('refuses a repeated id', () => {
    const reasons = reasonsOf(`k:${key32().toString('base64')},k:${key32().toString('base64')}`);
    assert.deepEqual(reasons, ['entry 2 (k) repeats a key id']);
  });

  it('refuses a bad id and an empty entry', () => {
    assert.match(reasonsOf(`bad id:${key32().toString('base64')}`)[0]!, /entry 1 has an invalid key id/);
    assert.match(reasonsOf(`${'x'.repeat(65)}:${key32().toString('base64')}`)[0]!, /invalid key id/);
    assert.deepEqual(reasonsOf(`k:${key32().toString('base64')},`), ['entry 2 is empty']);
  });

  it('lists every bad entry and never the key material', () => {
    const short = crypto.randomBytes(16).toString('base64');
    const text = `a:${short},nocolon,b:${key32().toString('base64')},b:${key32().toString('base64')}`;
    assert.throws(
      () => parseMasterKeys(text),
      (err: unknown) => {
        assert.ok(err instanceof MasterKeysError);
        assert.equal(err.reasons.length, 3);
        assert.ok(!err.message.includes(short));
        assert.ok(!err.message.includes('nocolon'));
        return true;
      },
    );
  });
});
