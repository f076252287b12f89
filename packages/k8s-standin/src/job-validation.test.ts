// The stand-in's API server reads resource quantities with the parser the
// flow schema and the dispatcher use, so it takes and refuses what they do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QUANTITY_EXAMPLES } from '@svc/vocabulary';
import { cpuCores, jobCauses, memoryBytes } from './job-validation.js';
import type { JobRequest } from './meta.js';

const job = (resources: Record<string, Record<string, string>>): JobRequest => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'q' },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'task', image: 'alpine', resources }] } } },
  status: {},
});
const causes = (resources: Record<string, Record<string, string>>) => jobCauses(job(resources)).map((c) => `${c.field}: ${c.message}`);

test('a Job takes every example quantity Kubernetes takes, refuses the malformed ones, and a negative one', () => {
  for (const [text, want] of QUANTITY_EXAMPLES) {
    const got = causes({ limits: { cpu: text, memory: text } });
    if (want === null) {
      assert.deepEqual(got, [
        `spec.template.spec.containers[0].resources.limits[cpu]: Invalid value: "${text}": must be a valid quantity`,
        `spec.template.spec.containers[0].resources.limits[memory]: Invalid value: "${text}": must be a valid quantity`,
      ]);
    } else if (want.startsWith('-')) {
      assert.equal(got.length, 2, JSON.stringify(text));
      assert.match(got[0]!, /must be greater than or equal to 0/);
    } else assert.deepEqual(got, [], JSON.stringify(text));
  }
});

test('quantities mean what they mean to Kubernetes: 1k is 1000 bytes, 1Ki 1024, 1000m one core; a request above its limit is refused whatever the suffixes', () => {
  assert.equal(memoryBytes('1k'), 1000);
  assert.equal(memoryBytes('1Ki'), 1024);
  assert.equal(memoryBytes(2), 2);
  assert.equal(memoryBytes('1K'), null);
  assert.equal(cpuCores('1000m'), 1);
  assert.equal(cpuCores('250m'), 0.25);
  assert.deepEqual(causes({ requests: { memory: '1Ki' }, limits: { memory: '1k' } }), [
    'spec.template.spec.containers[0].resources.requests: Invalid value: "1Ki": must be less than or equal to memory limit of 1k',
  ]);
  assert.deepEqual(causes({ requests: { cpu: '1' }, limits: { cpu: '1000m' } }), []);
});
