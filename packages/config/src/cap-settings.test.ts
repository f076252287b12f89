// The caps on alert rules per namespace and on backfill executions in flight
// per flow and per namespace: their defaults, a value in range, and values
// out of range or not whole numbers refused, each naming its variable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from './config.js';
import { ConfigError } from './errors.js';

const machine = { cwd: '/srv/app', hostname: 'node-7' };

describe('cap settings', () => {
  it('defaults: 100 rules per namespace, 100 backfill executions in flight per flow, 200 per namespace', () => {
    const c = parseConfig({}, machine);
    assert.deepEqual([c.alertRulesPerNamespace, c.backfillMaxInFlightPerFlow, c.backfillMaxInFlightPerNamespace], [100, 100, 200]);
  });

  it('takes whole numbers from 1 to 100000', () => {
    const c = parseConfig({ SVC_ALERT_RULES_PER_NAMESPACE: '1', SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW: '100000', SVC_BACKFILL_MAX_IN_FLIGHT_PER_NAMESPACE: '7' }, machine);
    assert.deepEqual([c.alertRulesPerNamespace, c.backfillMaxInFlightPerFlow, c.backfillMaxInFlightPerNamespace], [1, 100000, 7]);
  });

  it('refuses 0, a fraction, a word and more than 100000, naming each variable', () => {
    for (const bad of ['0', '2.5', 'many', '100001', '-3']) {
      try {
        parseConfig({ SVC_ALERT_RULES_PER_NAMESPACE: bad, SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW: bad, SVC_BACKFILL_MAX_IN_FLIGHT_PER_NAMESPACE: bad }, machine);
        assert.fail(`${bad} refused`);
      } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        assert.deepEqual(err.problems.map((p) => p.variable).sort(), [
          'SVC_ALERT_RULES_PER_NAMESPACE',
          'SVC_BACKFILL_MAX_IN_FLIGHT_PER_FLOW',
          'SVC_BACKFILL_MAX_IN_FLIGHT_PER_NAMESPACE',
        ]);
        assert.match(err.problems[0]!.message, /from 1 to 100000/);
      }
    }
  });
});
