// The organization email settings: the daily quota, the retention of emails,
// and whether SMTP must be upgraded to TLS (on unless the relay is loopback).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from './config.js';
import { ConfigError } from './errors.js';

const machine = { cwd: '/srv/app', hostname: 'node-7' };

describe('organization email settings', () => {
  it('defaults: 10000 emails a day, 30 days kept, TLS required', () => {
    const c = parseConfig({}, machine);
    assert.equal(c.orgDailyQuota, 10000);
    assert.equal(c.emailRetentionDays, 30);
    assert.equal(c.smtpRequireTls, true);
  });

  it('SVC_SMTP_REQUIRE_TLS defaults to false only for a loopback relay, and an explicit value wins', () => {
    const tls = (env: Record<string, string>) => parseConfig(env, machine).smtpRequireTls;
    assert.equal(tls({ SVC_SMTP_URL: 'smtp://u:p@mail.internal:587' }), true);
    assert.equal(tls({ SVC_SMTP_URL: 'smtp://127.0.0.1:25' }), false);
    assert.equal(tls({ SVC_SMTP_URL: 'smtp://localhost:25' }), false);
    assert.equal(tls({ SVC_SMTP_URL: 'smtp://[::1]:25' }), false);
    assert.equal(tls({ SVC_SMTP_URL: 'smtp://127.0.0.1:25', SVC_SMTP_REQUIRE_TLS: 'true' }), true);
    assert.equal(tls({ SVC_SMTP_URL: 'smtp://mail.internal:25', SVC_SMTP_REQUIRE_TLS: 'false' }), false);
  });

  it('bad values are refused, naming the variable and never the SMTP password', () => {
    try {
      parseConfig({ SVC_ORG_DAILY_QUOTA: '-1', SVC_EMAIL_RETENTION_DAYS: '0', SVC_SMTP_REQUIRE_TLS: 'yes', SVC_SMTP_URL: 'smtp://u:hunter22@mail:25' }, machine);
      assert.fail('refused');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(err.problems.map((p) => p.variable).sort(), ['SVC_EMAIL_RETENTION_DAYS', 'SVC_ORG_DAILY_QUOTA', 'SVC_SMTP_REQUIRE_TLS']);
      assert.ok(!JSON.stringify(err.problems).includes('hunter22'));
    }
    assert.equal(parseConfig({ SVC_ORG_DAILY_QUOTA: '0' }, machine).orgDailyQuota, 0);
  });
});
