// Trigger input templates that read secret(): the secret's value must reach
// the tasks that read the input, yet never be stored in the execution's
// `inputs` (every viewer reads them). So such a template is split when the
// trigger fires: everything but its secret() expressions is rendered then,
// as for any trigger input, giving
//   - `masked`: the text with each secret() expression written as `***`
//     (@svc/masking's MASK, as a masked secret reads everywhere),
//     stored as the input's value;
//   - `recipe`: a template of the rendered text (escaped) and the secret()
//     expressions as written, stored in the trigger payload; at dispatch it
//     needs nothing but the secrets, so the task that reads the input gets the
//     text with the values, masked in its logs and outputs like any secret.
// An expression that calls secret() may not read anything else (the
// validator says so at save time): `{{ secret('K') }}`, `json(...)` and
// `default(...)` of secrets and literals.
import { MASK } from '@svc/masking';
import type { Expr, ParsedTemplate } from './ast.js';
import { TemplateError } from './errors.js';
import { parseTemplate } from './parse.js';
import { renderTemplate } from './render.js';
import type { TemplateScope } from './scope.js';

/** Whether an expression calls secret() / reads a path, anywhere inside it. */
function has(expr: Expr, kind: 'secret' | 'path'): boolean {
  switch (expr.kind) {
    case 'secret':
    case 'path':
      return expr.kind === kind;
    case 'literal':
      return false;
    case 'json':
      return has(expr.arg, kind);
    case 'default':
      return has(expr.value, kind) || has(expr.fallback, kind);
  }
}

/** The expressions of a template that call secret() and also read a path (not allowed where secrets are deferred). */
export function mixedSecretExpressions(t: ParsedTemplate): string[] {
  return t.segments.flatMap((s) => (s.kind === 'expression' && has(s.expr, 'secret') && has(s.expr, 'path') ? [s.expression] : []));
}

/** Text as a template that renders to it: `{{` written as `{{ '{{' }}`. */
const escapeText = (text: string) => text.replaceAll('{{', "{{ '{{' }}");

/**
 * Splits template `t` (which calls secret()) as described above, rendering
 * its other expressions against `scope`. Throws TemplateError for an
 * expression that does not resolve or that mixes secret() with a path.
 */
export function deferSecrets(t: ParsedTemplate | string, scope: TemplateScope): { masked: string; recipe: string } {
  const parsed = typeof t === 'string' ? parseTemplate(t) : t;
  let masked = '';
  let recipe = '';
  for (const seg of parsed.segments) {
    if (seg.kind === 'text') {
      masked += seg.text;
      recipe += escapeText(seg.text);
      continue;
    }
    if (has(seg.expr, 'secret')) {
      if (has(seg.expr, 'path')) throw new TemplateError(seg.expression, 'an expression that calls secret() in a trigger input may not read anything else');
      masked += MASK;
      recipe += `{{ ${seg.expression} }}`;
      continue;
    }
    const text = renderTemplate({ ...parsed, segments: [seg] }, scope).text;
    masked += text;
    recipe += escapeText(text);
  }
  return { masked, recipe };
}
