import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderTemplate, TemplateError, type TemplateScope } from './index.js';

/*
 * Member names come from flow files and values from webhook callers: a lookup
 * must only ever reach own data properties of plain data, never a JS internal.
 */

function fails(source: string, scope: TemplateScope, message: string): void {
  assert.throws(
    () => renderTemplate(source, scope),
    (error: unknown) => {
      assert.ok(error instanceof TemplateError, `TemplateError, got ${String(error)}`);
      assert.equal(error.message, message);
      return true;
    },
  );
}

describe('renderTemplate never reaches JS internals', () => {
  const internals = ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];
  for (const name of internals) {
    it(`inputs.${name} on {} is not found`, () => {
      fails(`{{ inputs.${name} }}`, { inputs: {} }, `{{ inputs.${name} }}: inputs has no input "${name}" (inputs: none)`);
    });
    it(`inputs["${name}"] on {} is not found`, () => {
      fails(`{{ inputs["${name}"] }}`, { inputs: {} }, `{{ inputs["${name}"] }}: inputs has no input "${name}" (inputs: none)`);
    });
    it(`default(inputs.${name}, 'safe') falls back`, () => {
      assert.equal(renderTemplate(`{{ default(inputs.${name}, 'safe') }}`, { inputs: {} }).text, 'safe');
    });
  }

  const deeper: [string, TemplateScope, string][] = [
    ['{{ inputs.s.constructor }}', { inputs: { s: 'text' } }, '{{ inputs.s.constructor }}: inputs.s is a string, it has no key "constructor"'],
    ['{{ inputs.s.length }}', { inputs: { s: 'text' } }, '{{ inputs.s.length }}: inputs.s is a string, it has no key "length"'],
    ['{{ inputs.n.constructor }}', { inputs: { n: 1 } }, '{{ inputs.n.constructor }}: inputs.n is a number, it has no key "constructor"'],
    ['{{ inputs.a.constructor }}', { inputs: { a: [1] } }, '{{ inputs.a.constructor }}: inputs.a is a list: use an index such as inputs.a[0], not "constructor"'],
    ['{{ vars.__proto__ }}', { vars: {} }, '{{ vars.__proto__ }}: vars has no variable "__proto__" (variables: none)'],
    ['{{ labels.constructor }}', { labels: { team: 'x' } }, '{{ labels.constructor }}: labels has no label "constructor" (labels: team)'],
    [
      '{{ tasks.constructor.state }}',
      { tasks: {} },
      '{{ tasks.constructor.state }}: task "constructor" is not available: it is not an upstream task that has ended (available: none)',
    ],
    [
      '{{ tasks.__proto__.outputs.x }}',
      { tasks: {} },
      '{{ tasks.__proto__.outputs.x }}: task "__proto__" is not available: it is not an upstream task that has ended (available: none)',
    ],
    ['{{ tasks.a.outputs.constructor }}', { tasks: { a: { outputs: {} } } }, '{{ tasks.a.outputs.constructor }}: task "a" has no output "constructor" (outputs: none)'],
    ['{{ trigger.body.constructor }}', { trigger: { body: {} } }, '{{ trigger.body.constructor }}: trigger.body has no key "constructor" (keys: none)'],
    ['{{ trigger.headers.constructor }}', { trigger: { headers: {} } }, '{{ trigger.headers.constructor }}: trigger.headers has no header "constructor" (headers: none)'],
    ['{{ trigger.outputs.toString }}', { trigger: { outputs: {} } }, '{{ trigger.outputs.toString }}: trigger.outputs has no output "toString" (outputs: none)'],
  ];
  for (const [source, scope, message] of deeper) {
    it(`${source} is not found`, () => fails(source, scope, message));
  }

  it('a JSON body with an own "__proto__" key is data: it resolves and pollutes nothing', () => {
    const body: unknown = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"name": "data"}}');
    const scope: TemplateScope = { trigger: { body } };
    assert.equal(renderTemplate('{{ trigger.body.__proto__.polluted }}', scope).text, 'yes');
    assert.equal(renderTemplate('{{ trigger.body.constructor.name }}', scope).text, 'data');
    fails('{{ trigger.body.polluted }}', scope, '{{ trigger.body.polluted }}: trigger.body has no key "polluted" (keys: __proto__, constructor)');
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('ignores inherited properties, even ones added to Object.prototype', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto['injected'] = 'from prototype';
    try {
      fails('{{ inputs.injected }}', { inputs: { a: 1 } }, '{{ inputs.injected }}: inputs has no input "injected" (inputs: a)');
      const child = Object.create({ inherited: 1 }) as object;
      fails('{{ inputs.o.inherited }}', { inputs: { o: child } }, '{{ inputs.o.inherited }}: inputs.o is not plain data, it has no key "inherited"');
    } finally {
      delete proto['injected'];
    }
  });

  it('reads objects without a prototype', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare['k'] = 'v';
    assert.equal(renderTemplate('{{ inputs.o.k }}', { inputs: { o: bare } }).text, 'v');
  });

  it('never runs a getter', () => {
    let ran = false;
    const o = {};
    Object.defineProperty(o, 'g', { enumerable: true, get: () => ((ran = true), 'got') });
    fails('{{ inputs.o.g }}', { inputs: { o } }, '{{ inputs.o.g }}: inputs.o has no key "g" (keys: g)');
    assert.equal(ran, false);
  });

  it('never calls a function found in the scope, nor reads members of class instances', () => {
    let called = false;
    const fn = (): string => {
      called = true;
      return 'called';
    };
    fails('{{ inputs.fn }}', { inputs: { fn } }, '{{ inputs.fn }}: value of type function cannot be written as text');
    fails('{{ inputs.fn.prototype }}', { inputs: { fn } }, '{{ inputs.fn.prototype }}: inputs.fn is of type function, it has no key "prototype"');
    fails('{{ inputs.fn.name }}', { inputs: { fn } }, '{{ inputs.fn.name }}: inputs.fn is of type function, it has no key "name"');
    fails('{{ inputs.m.size }}', { inputs: { m: new Map([['size', 1]]) } }, '{{ inputs.m.size }}: inputs.m is not plain data, it has no key "size"');
    fails('{{ inputs.d.getTime }}', { inputs: { d: new Date(0) } }, '{{ inputs.d.getTime }}: inputs.d is not plain data, it has no key "getTime"');
    assert.equal(called, false);
  });

  it('a value that cannot be JSON is a template_error, not a crash', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    assert.throws(
      () => renderTemplate('{{ inputs.c }}', { inputs: { c: cyclic } }),
      (e: unknown) => {
        assert.ok(e instanceof TemplateError);
        assert.match(e.message, /^\{\{ inputs\.c \}\}: value cannot be written as JSON/);
        return true;
      },
    );
  });
});
