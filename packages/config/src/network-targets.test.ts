import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { literalTargetProblem, nonPublicAddressKind } from './network-targets.js';

describe('non-public addresses (SVC_ALERT_ALLOW_PRIVATE_TARGETS)', () => {
  it('names the kind of every non-public range, IPv4 and IPv6', () => {
    const cases: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['127.8.9.10', 'loopback'],
      ['10.0.0.5', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['0.0.0.0', 'unspecified'],
      ['100.64.0.1', 'carrier-grade NAT'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fc00::1', 'unique-local'],
      ['fd12:3456::1', 'unique-local'],
      ['fe80::1', 'link-local'],
      ['ff02::1', 'multicast'],
      ['::ffff:10.0.0.5', 'private'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['[::1]', 'loopback'],
    ];
    for (const [ip, kind] of cases) assert.equal(nonPublicAddressKind(ip), kind, ip);
    assert.match(nonPublicAddressKind('192.0.2.1') ?? '', /^reserved/);
    assert.match(nonPublicAddressKind('2002:a00:5::1') ?? '', /^reserved \(6to4\)/);
  });

  it('lets public unicast addresses through', () => {
    for (const ip of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) assert.equal(nonPublicAddressKind(ip), null, ip);
  });

  it('refuses a non-address', () => {
    assert.throws(() => nonPublicAddressKind('example.com'), /not an IP address/);
  });

  it('judges a URL by its literal host; names other than localhost wait for their lookup', () => {
    assert.equal(literalTargetProblem(new URL('http://169.254.169.254/latest/meta-data')), 'address 169.254.169.254 is link-local');
    assert.equal(literalTargetProblem(new URL('http://[::1]:8080/')), 'address ::1 is loopback');
    assert.equal(literalTargetProblem(new URL('http://2130706433/')), 'address 127.0.0.1 is loopback');
    assert.equal(literalTargetProblem(new URL('http://0x0a.0.0.5/')), 'address 10.0.0.5 is private');
    assert.equal(literalTargetProblem(new URL('http://LocalHost:9/')), 'host localhost is loopback');
    assert.equal(literalTargetProblem(new URL('http://api.localhost/')), 'host api.localhost is loopback');
    assert.equal(literalTargetProblem(new URL('https://93.184.215.14/hook')), null);
    assert.equal(literalTargetProblem(new URL('https://hooks.example.com/x')), null);
  });
});
