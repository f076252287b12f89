export { TEMPLATE_ROOTS, TEMPLATE_FUNCTIONS, FOR_EACH_ROOTS, isForEachRoot } from './ast.js';
export type { TemplateRoot, ForEachRoot, TemplateFunction, TemplateRef, TemplateLiteral, Expr, Segment, ParsedTemplate } from './ast.js';
export { TemplateSyntaxError, TemplateError, SecretNotFoundError } from './errors.js';
export { parseTemplate, isTemplate, soleExpression, MAX_EXPRESSION_DEPTH } from './parse.js';
export { APPROVAL_FIELDS, EXECUTION_FIELDS, FLOW_FIELDS, TASK_FIELDS, TRIGGER_FIELDS } from './roots.js';
export { renderTemplate, renderTemplateMap, renderTemplateList, renderTemplateValue } from './render.js';
export { deferSecrets, mixedSecretExpressions } from './defer-secrets.js';
export type { TemplateScope, SecretLookup, RenderResult } from './scope.js';
export { isConditionExpression, RUN_IF_KEYWORDS } from '../run-if.js';
