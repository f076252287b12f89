import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTemplate, renderTemplateList, renderTemplateMap, SecretNotFoundError, TemplateError, type SecretLookup, type TemplateScope } from './index.js';

const scope: TemplateScope = { inputs: { table: 'users', since: '2024-01-01' }, vars: { host: 'db.internal' } };
const secrets: SecretLookup = (key) => ({ A: 'a-value', B: 'b-value', C: 'c-value' })[key];

describe('renderTemplateMap', () => {
  it('renders every value, keeps the keys and merges the secrets used in order', () => {
    const result = renderTemplateMap(
      {
        DB_HOST: '{{ vars.host }}',
        DB_URL: "postgres://u:{{ secret('B') }}@{{ vars.host }}/{{ secret('A') }}",
        STATIC: 'plain',
        TOKEN: "{{ secret('A') }}{{ secret('C') }}",
      },
      scope,
      secrets,
    );
    assert.deepEqual(result, {
      values: { DB_HOST: 'db.internal', DB_URL: 'postgres://u:b-value@db.internal/a-value', STATIC: 'plain', TOKEN: 'a-valuec-value' },
      secretKeysUsed: ['B', 'A', 'C'],
    });
  });

  it('accepts parsed templates', () => {
    const result = renderTemplateMap({ T: parseTemplate('{{ inputs.table }}') }, scope);
    assert.deepEqual(result, { values: { T: 'users' }, secretKeysUsed: [] });
  });

  it('renders an empty map', () => {
    assert.deepEqual(renderTemplateMap({}, scope), { values: {}, secretKeysUsed: [] });
  });

  it('keeps a "__proto__" key as a key', () => {
    const map = JSON.parse('{"__proto__": "{{ inputs.table }}", "x": "1"}') as Record<string, string>;
    const { values } = renderTemplateMap(map, scope);
    assert.deepEqual(Object.keys(values), ['__proto__', 'x']);
    assert.equal(Object.getOwnPropertyDescriptor(values, '__proto__')?.value, 'users');
    assert.equal(Object.getPrototypeOf(values), Object.prototype);
  });

  it('fails on the first value that does not resolve, naming its expression', () => {
    assert.throws(
      () => renderTemplateMap({ A: 'ok', B: '{{ inputs.nope }}' }, scope),
      (e: unknown) => {
        assert.ok(e instanceof TemplateError);
        assert.equal(e.expression, 'inputs.nope');
        return true;
      },
    );
    assert.throws(() => renderTemplateMap({ A: "{{ secret('Z') }}" }, scope, secrets), SecretNotFoundError);
  });
});

describe('renderTemplateList', () => {
  it('renders every item in order and merges the secrets used', () => {
    const result = renderTemplateList(
      ['psql', '--host={{ vars.host }}', "--password={{ secret('C') }}", '{{ inputs.table }}', "{{ secret('C') }}{{ secret('A') }}"],
      scope,
      secrets,
    );
    assert.deepEqual(result, {
      values: ['psql', '--host=db.internal', '--password=c-value', 'users', 'c-valuea-value'],
      secretKeysUsed: ['C', 'A'],
    });
  });

  it('keeps items without {{ unchanged, including empty ones', () => {
    assert.deepEqual(renderTemplateList(['', 'a b', '}}'], scope), { values: ['', 'a b', '}}'], secretKeysUsed: [] });
  });

  it('accepts parsed templates and fails naming the expression', () => {
    assert.deepEqual(renderTemplateList([parseTemplate('{{ inputs.since }}')], scope).values, ['2024-01-01']);
    assert.throws(() => renderTemplateList(['x', '{{ vars.nope }}'], scope), /^TemplateError: \{\{ vars\.nope \}\}: vars has no variable "nope"/);
  });
});
