import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFlowYaml, DEFAULT_MAX_BYTES } from './parse.js';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/** The classic "billion laughs": ten levels of nine aliases each, ~10^9 strings once expanded. */
function billionLaughs(): string {
  let src = 'lol0: &lol0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i < 10; i++)
    src += `lol${i}: &lol${i} [${Array(9)
      .fill(`*lol${i - 1}`)
      .join(', ')}]\n`;
  return src;
}

describe('parseFlowYaml', () => {
  it('loads a flow file as plain data', () => {
    const { value, errors } = parseFlowYaml(lines('id: demo', 'tasks:', '  - id: a', '    type: script', '    file: a.py'));
    assert.deepEqual(errors, []);
    assert.deepEqual(value, { id: 'demo', tasks: [{ id: 'a', type: 'script', file: 'a.py' }] });
  });

  it('uses the YAML 1.2 core schema: yes/no/on stay strings, 010 is ten', () => {
    const { value } = parseFlowYaml(lines('a: yes', 'b: on', 'c: 010', 'd: true', 'e: 0x1F', 'f: 2001-12-14'));
    assert.deepEqual(value, { a: 'yes', b: 'on', c: 10, d: true, e: 31, f: '2001-12-14' });
  });

  it('rejects a billion-laughs file before expanding it', () => {
    const { value, errors } = parseFlowYaml(billionLaughs());
    assert.equal(value, undefined);
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? '', /alias bomb/);
    assert.equal(errors[0]?.pointer, '');
    assert.equal(typeof errors[0]?.line, 'number');
  });

  it('rejects a recursive alias, which would load as a cyclic value', () => {
    const { value, errors } = parseFlowYaml(lines('a: &loop', '  b: *loop'));
    assert.equal(value, undefined);
    assert.match(errors[0]?.message ?? '', /recursive alias \*loop/);
    assert.equal(errors[0]?.line, 2);
  });

  it('accepts a small use of anchors and aliases', () => {
    const { value, errors } = parseFlowYaml(lines('a: &r {max_attempts: 3}', 'b: *r'));
    assert.deepEqual(errors, []);
    assert.deepEqual(value, { a: { max_attempts: 3 }, b: { max_attempts: 3 } });
  });

  it('rejects a long string aliased thousands of times (few nodes, gigabytes once serialized)', () => {
    // 900 KB under one anchor, then 20,000 aliases of it: 20,001 nodes, under maxNodes, but 18 GB of values.
    const src = `id: demo\nvariables: {big: &big "${'x'.repeat(900_000)}"}\ninputs: [{id: j, type: json, default: [${Array(20_000).fill('*big').join(',')}]}]\ntasks: []\n`;
    const { value, errors } = parseFlowYaml(src);
    assert.equal(value, undefined);
    assert.match(errors[0]?.message ?? '', /more than 4194304 bytes of values .*alias bomb/);
  });

  it('honours a smaller maxExpandedBytes, counting an alias at the size of what it names', () => {
    assert.deepEqual(parseFlowYaml(lines('a: &x [abcd, efgh]', 'b: [*x, *x]'), { maxExpandedBytes: 30 }).errors, []);
    assert.match(parseFlowYaml(lines('a: &x [abcd, efgh]', 'b: [*x, *x, *x]'), { maxExpandedBytes: 30 }).errors[0]?.message ?? '', /more than 30 bytes/);
  });

  it('honours a smaller maxNodes', () => {
    const { errors } = parseFlowYaml(lines('a: &x [1, 2, 3, 4]', 'b: [*x, *x, *x]'), { maxNodes: 10 });
    assert.match(errors[0]?.message ?? '', /more than 10 YAML nodes/);
  });

  it('rejects a file over the default size bound of 1 MiB', () => {
    const big = `id: demo\ndescription: "${'x'.repeat(DEFAULT_MAX_BYTES)}"\n`;
    const { value, errors } = parseFlowYaml(big);
    assert.equal(value, undefined);
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? '', /more than the limit of 1048576 bytes/);
  });

  it('counts the size bound in UTF-8 bytes', () => {
    const src = `a: "${'é'.repeat(60)}"\n`; // 60 chars but 120 bytes in the value
    assert.equal(parseFlowYaml(src, { maxBytes: 100 }).errors.length, 1);
    assert.equal(parseFlowYaml(src, { maxBytes: 200 }).errors.length, 0);
  });

  it('rejects language-specific and non-core tags', () => {
    for (const src of ['a: !!js/function "function () {}"', 'a: !!binary aGk=', 'a: !custom x', 'a: !!timestamp 2001-12-14']) {
      const { value, errors } = parseFlowYaml(src);
      assert.equal(value, undefined, src);
      assert.match(errors[0]?.message ?? '', /unknown .*tag/, src);
      assert.equal(errors[0]?.line, 1, src);
    }
  });

  it('does not enable merge keys', () => {
    const { value } = parseFlowYaml(lines('a: &b {x: "1"}', 'c:', '  <<: *b'));
    assert.deepEqual(value, { a: { x: '1' }, c: { '<<': { x: '1' } } });
  });

  it('keeps __proto__ as an own key without touching prototypes', () => {
    const { value } = parseFlowYaml('__proto__: {polluted: true}\n');
    assert.ok(value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('rejects duplicate keys with their line', () => {
    const { errors } = parseFlowYaml(lines('id: a', 'tasks: []', 'id: b'));
    assert.match(errors[0]?.message ?? '', /duplicated mapping key/);
    assert.equal(errors[0]?.line, 3);
  });

  it('reports a syntax error with its line and column', () => {
    const { errors } = parseFlowYaml(lines('id: demo', 'tasks: [a, b'));
    assert.match(errors[0]?.message ?? '', /^YAML syntax error: /);
    assert.equal(errors[0]?.line, 3);
  });

  it('rejects empty files and multi-document streams', () => {
    assert.match(parseFlowYaml('').errors[0]?.message ?? '', /empty/);
    assert.match(parseFlowYaml('# only a comment\n').errors[0]?.message ?? '', /empty/);
    assert.match(parseFlowYaml('~\n').errors[0]?.message ?? '', /empty/);
    assert.match(parseFlowYaml('a: 1\n---\nb: 2\n').errors[0]?.message ?? '', /one YAML document, found 2/);
  });

  it('bounds nesting depth', () => {
    const deep = `${'['.repeat(200)}${']'.repeat(200)}`;
    const { errors } = parseFlowYaml(deep);
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? '', /depth|nest/i);
  });
});
