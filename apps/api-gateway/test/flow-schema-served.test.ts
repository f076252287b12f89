// The served flow schema is the package's schema: valid JSON Schema 2020-12,
// and a client that knows only the served document (as the YAML language
// server does through `$schema`) agrees with the package's validator on every
// fixture: it accepts the valid flows and the semantically invalid ones (which
// the schema cannot see), and rejects every schema-invalid one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as yaml from 'js-yaml';
import { schemaCases } from '../../../packages/flow-schema/test/fixtures/schema-cases.js';
import { semanticCases } from '../../../packages/flow-schema/test/fixtures/semantic-cases.js';
import { validFlows } from '../../../packages/flow-schema/test/fixtures/valid-flows.js';
import { startTestGateway, type TestGateway } from './helpers.js';

let gw: TestGateway;
let served: Record<string, unknown>;

before(async () => {
  gw = await startTestGateway();
  const r = await fetch(`${gw.url}/api/v1/schemas/flow.json`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /application\/json/);
  served = (await r.json()) as Record<string, unknown>;
});
after(() => gw.close());

test('the served schema is valid against the draft 2020-12 meta-schema', () => {
  const ajv = new Ajv2020({ strict: false });
  assert.equal(served.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(ajv.validateSchema(served), true, JSON.stringify(ajv.errors));
});

test('a validator built only from the served schema agrees with the package on every fixture', () => {
  const check = new Ajv2020({ strict: false, allErrors: true }).compile(served);
  const load = (src: string) => yaml.load(src);
  let n = 0;
  for (const v of validFlows) {
    assert.equal(check(load(v.src)), true, `${v.name}: ${JSON.stringify(check.errors)}`);
    n++;
  }
  for (const c of semanticCases) {
    assert.equal(check(load(`${c.src.join('\n')}\n`)), true, `${c.name} is schema-valid: ${JSON.stringify(check.errors)}`);
    n++;
  }
  for (const c of schemaCases) {
    let value: unknown;
    try {
      value = load(`${c.src.join('\n')}\n`);
    } catch {
      continue; // YAML the loader refuses never reaches a schema
    }
    assert.equal(check(value), false, `${c.name} must be rejected by the served schema`);
    n++;
  }
  assert.ok(n >= 150, `at least 150 fixtures, got ${n}`);
});

test('every property of the served schema has a description for editor completion', () => {
  const missing: string[] = [];
  const walk = (node: unknown, where: string) => {
    if (!node || typeof node !== 'object') return;
    const props = (node as { properties?: Record<string, Record<string, unknown>> }).properties;
    for (const [k, v] of Object.entries(props ?? {})) if (typeof v.description !== 'string') missing.push(`${where}.${k}`);
    // `if` blocks only test a field's value; they declare no property.
    for (const [k, v] of Object.entries(node)) if (k !== 'if') walk(v, `${where}/${k}`);
  };
  walk(served, '#');
  assert.deepEqual(missing, []);
});
