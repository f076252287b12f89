// deferSecrets: a trigger input template that reads secret() splits into the
// masked text stored as the input and a recipe of the rendered text and the
// secret() calls, which renders with nothing but the secrets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deferSecrets, mixedSecretExpressions } from './defer-secrets.js';
import { TemplateError } from './errors.js';
import { parseTemplate } from './parse.js';
import { renderTemplate } from './render.js';

const scope = { trigger: { body: { who: 'ana {{ not a template }}' } }, flow: { id: 'f', namespace: 'n' } };
const secrets = (k: string) => (({ TOKEN: 't0k', X: 'x-value' }) as Record<string, string>)[k];

describe('deferSecrets', () => {
  it('masks each secret() expression and keeps it in the recipe, rendering the rest now (escaped)', () => {
    const d = deferSecrets("Bearer {{ secret('TOKEN') }} for {{ trigger.body.who }} in {{ flow.id }} {{ json(secret('X')) }}", scope);
    assert.equal(d.masked, 'Bearer *** for ana {{ not a template }} in f ***');
    assert.equal(d.recipe, "Bearer {{ secret('TOKEN') }} for ana {{ '{{' }} not a template }} in f {{ json(secret('X')) }}");
    const r = renderTemplate(parseTemplate(d.recipe), {}, secrets);
    assert.equal(r.text, 'Bearer t0k for ana {{ not a template }} in f "x-value"');
    assert.deepEqual(r.secretKeysUsed, ['TOKEN', 'X']);
  });

  it('refuses an expression mixing secret() with a path, and a path that does not resolve', () => {
    assert.deepEqual(mixedSecretExpressions(parseTemplate("{{ default(secret('K'), trigger.body.k) }} {{ secret('J') }}")), ["default(secret('K'), trigger.body.k)"]);
    assert.throws(() => deferSecrets("{{ default(secret('K'), trigger.body.k) }}", scope), TemplateError);
    assert.throws(() => deferSecrets("{{ secret('K') }}{{ trigger.body.nope }}", scope), TemplateError);
  });
});
