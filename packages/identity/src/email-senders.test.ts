// The `from` parser and the verified-sender rules: display names, case,
// exact address rules, and domain rules that do not cover subdomains.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMailbox, parseSenderRule, senderAllowed, type SenderRule } from './email-senders.js';

describe('parseMailbox', () => {
  it('reads a bare address and a display name with an address', () => {
    assert.deepEqual(parseMailbox('app@acme.test'), { name: '', address: 'app@acme.test', local: 'app', domain: 'acme.test' });
    assert.deepEqual(parseMailbox('Acme Billing <Billing@ACME.test>'), { name: 'Acme Billing', address: 'Billing@ACME.test', local: 'Billing', domain: 'acme.test' });
    assert.deepEqual(parseMailbox('"Acme, Inc. \\"HQ\\"" <app@acme.test>'), { name: 'Acme, Inc. "HQ"', address: 'app@acme.test', local: 'app', domain: 'acme.test' });
    assert.equal(parseMailbox('<app@acme.test>')?.address, 'app@acme.test');
    assert.equal(parseMailbox('Zoë <app@acme.test>')?.name, 'Zoë');
  });

  it('refuses what is not one mailbox', () => {
    for (const bad of [
      'not an address',
      'a@b',
      'Evil, <a@acme.test>',
      'x@evil.test <app@acme.test>',
      '<a@acme.test>, <b@evil.test>',
      'Name <a@acme.test',
      'a@acme.test\r\nBcc: x@evil.test',
      '"unterminated <a@acme.test>',
      'a@-acme.test',
      'a..b@acme.test',
      '',
    ]) {
      assert.equal(parseMailbox(bad), null, bad);
    }
  });
});

describe('parseSenderRule', () => {
  it('reads domains and addresses, the domain in lower case', () => {
    assert.deepEqual(parseSenderRule('ACME.test'), { kind: 'domain', value: 'acme.test' });
    assert.deepEqual(parseSenderRule('Billing@ACME.test'), { kind: 'address', value: 'Billing@acme.test' });
    for (const bad of ['acme', '*.acme.test', 'a b.test', '@acme.test', 'x@', 'Name <a@acme.test>']) assert.equal(parseSenderRule(bad), null, bad);
  });
});

describe('senderAllowed', () => {
  const rules: SenderRule[] = [
    { kind: 'domain', value: 'acme.test' },
    { kind: 'address', value: 'Billing@other.test' },
  ];
  const allowed = (from: string) => senderAllowed(parseMailbox(from)!, rules);

  it('a domain rule covers its own domain in any case, not its subdomains nor look-alikes', () => {
    assert.equal(allowed('app@acme.test'), true);
    assert.equal(allowed('Team <x@ACME.Test>'), true);
    assert.equal(allowed('app@mail.acme.test'), false);
    assert.equal(allowed('app@evilacme.test'), false);
    assert.equal(allowed('app@acme.test.evil.test'), false);
  });

  it('an address rule matches exactly: the local part as written, the domain in any case', () => {
    assert.equal(allowed('Billing@other.test'), true);
    assert.equal(allowed('Billing <Billing@OTHER.test>'), true);
    assert.equal(allowed('billing@other.test'), false);
    assert.equal(allowed('sales@other.test'), false);
  });

  it('no rule, no sender', () => {
    assert.equal(senderAllowed(parseMailbox('app@acme.test')!, []), false);
  });
});
