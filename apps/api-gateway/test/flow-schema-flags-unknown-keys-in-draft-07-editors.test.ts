// VS Code's YAML extension validates with a draft-07 validator that ignores
// `unevaluatedProperties`, the keyword that closes tasks, triggers, executors
// and inputs. The served schema adds `propertyNames` so such a validator flags
// unknown keys too. Here "such a validator" is ajv with unevaluatedProperties
// taken out; the full validator must accept exactly what it accepted before.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as yaml from 'js-yaml';
import { flowSchema } from '@svc/flow-schema';
import { validFlows } from '../../../packages/flow-schema/test/fixtures/valid-flows.js';
import { schemaCases } from '../../../packages/flow-schema/test/fixtures/schema-cases.js';
import { semanticCases } from '../../../packages/flow-schema/test/fixtures/semantic-cases.js';
import { startTestGateway, type TestGateway } from './helpers.js';

let gw: TestGateway;
let served: Record<string, unknown>;

before(async () => {
  gw = await startTestGateway();
  served = (await (await fetch(`${gw.url}/api/v1/schemas/flow.json`)).json()) as Record<string, unknown>;
});
after(() => gw.close());

/** A validator like the editors': every keyword but unevaluatedProperties. */
function draft07Like(schema: Record<string, unknown>) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.removeKeyword('unevaluatedProperties');
  return ajv.compile(schema);
}

const base = ['id: demo', 'tasks:', '  - id: a', '    type: command', '    command: [echo]'];
/** One unknown key in each kind of closed object, as a typo would put it. */
const typos: { name: string; src: string[] }[] = [
  { name: 'a task key', src: [...base, '    timeoutt: 5m'] },
  { name: 'a task key of a script task', src: ['id: demo', 'tasks:', '  - id: a', '    type: script', '    file: a.py', '    argz: [x]'] },
  { name: 'a trigger key', src: [...base, 'triggers:', '  - {id: t, type: schedule, cron: "@daily", timezon: UTC}'] },
  { name: 'an input key', src: [...base, 'inputs:', '  - {id: n, type: int, defualt: 1}'] },
  { name: 'an executor key', src: [...base, '    executor: {type: docker, image: alpine, pul: always}'] },
];

test('a validator that ignores unevaluatedProperties flags unknown keys in the served schema', () => {
  const check = draft07Like(served);
  for (const t of typos) {
    const value = yaml.load(`${t.src.join('\n')}\n`);
    assert.equal(check(value), false, `${t.name} must be flagged`);
    assert.ok(
      check.errors?.some((e) => e.keyword === 'propertyNames'),
      `${t.name}: flagged by propertyNames: ${JSON.stringify(check.errors)}`,
    );
  }
});

test('without the served additions the same validator misses them (the test can fail)', () => {
  const check = draft07Like(flowSchema);
  assert.equal(check(yaml.load(`${typos[0]!.src.join('\n')}\n`)), true);
});

test('the draft-07-like validator still accepts every valid flow', () => {
  const check = draft07Like(served);
  for (const v of validFlows) assert.equal(check(yaml.load(v.src)), true, `${v.name}: ${JSON.stringify(check.errors)}`);
});

test('a full validator accepts exactly what it accepted with the package schema', () => {
  const full = (s: Record<string, unknown>) => new Ajv2020({ strict: false, allErrors: true }).compile(s);
  const [a, b] = [full(served), full(flowSchema)];
  const docs = [
    ...validFlows.map((v) => v.src),
    ...semanticCases.map((c) => `${c.src.join('\n')}\n`),
    ...schemaCases.map((c) => `${c.src.join('\n')}\n`),
    ...typos.map((t) => `${t.src.join('\n')}\n`),
  ];
  let n = 0;
  for (const d of docs) {
    let value: unknown;
    try {
      value = yaml.load(d);
    } catch {
      continue;
    }
    assert.equal(a(value), b(value), d);
    n++;
  }
  assert.ok(n > 150);
});
