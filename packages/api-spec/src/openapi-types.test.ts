import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { GENERATED_TYPES_PATH, generateTypes } from '../scripts/generate-types.js';
import type { components, paths } from './openapi-types.generated.js';

test('the checked-in generated types match the OpenAPI document (regenerate: node --import tsx packages/api-spec/scripts/generate-types.ts)', async () => {
  const checkedIn = fs.readFileSync(GENERATED_TYPES_PATH, 'utf8');
  const fresh = await generateTypes();
  if (checkedIn !== fresh) {
    const a = checkedIn.split('\n');
    const b = fresh.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    assert.fail(`src/openapi-types.generated.ts is stale from line ${line + 1}:\n  checked in: ${a[line]}\n  generated:  ${b[line]}`);
  }
});

// Compile-time checks (tsx strips types, so these only bite in a type-check):
// the generated types say what the spec says for the objects clients read most.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectTrue = <T extends true>(_: T) => undefined;
type Schemas = components['schemas'];

test('the generated types carry the spec states, nullables and list pages', () => {
  expectTrue<Equal<Schemas['Execution']['state'], Schemas['ExecutionState']>>(true);
  expectTrue<Equal<Schemas['ExecutionState'], 'QUEUED' | 'RUNNING' | 'CANCELLING' | 'SUCCESS' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED' | 'SKIPPED'>>(true);
  expectTrue<Equal<Schemas['Execution']['flow_id'], string | null | undefined>>(true);
  expectTrue<Equal<Schemas['TaskRun']['exit_code'], number | null | undefined>>(true);
  type ListExecutions = paths['/api/v1/executions']['get']['responses'][200]['content']['application/json'];
  expectTrue<Equal<ListExecutions['items'][number], Schemas['Execution']>>(true);
  assert.ok(true);
});
