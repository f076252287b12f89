// `namespace.yaml` at a namespace root (docs/using/flows.md): `executor` defaults for
// the namespace's tasks (the flow file's Executor shape) and `variables`.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { flowSchema, parseFlowYaml } from '@svc/flow-schema';

const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addSchema(flowSchema, 'flow.json');
const check = ajv.compile({
  type: 'object',
  additionalProperties: false,
  properties: {
    description: { type: 'string', maxLength: 2000 },
    executor: { $ref: 'flow.json#/$defs/Executor' },
    variables: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1000 },
  },
});

export interface NamespaceFile {
  description?: string;
  executor?: Record<string, unknown>;
  variables?: Record<string, string>;
}

/** Problems of a namespace.yaml source (empty when valid); an empty file is valid. */
export function validateNamespaceFile(source: string): { pointer: string; message: string }[] {
  // The flow file's safe loader: the same size, depth and alias-expansion bounds (no alias bomb), the core schema, no duplicate keys.
  const parsed = loadBounded(source);
  if (parsed.errors.length)
    return parsed.errors.map((e) => ({ pointer: e.pointer, message: `not valid YAML: ${e.message.split('\n')[0].replace('the flow file', 'namespace.yaml')}` }));
  const value = parsed.value ?? {};
  if (check(value)) return [];
  return (check.errors ?? []).map((e) => ({
    pointer: e.instancePath,
    message: `${e.instancePath || 'namespace.yaml'} ${e.message}${e.keyword === 'additionalProperties' ? `: ${String((e.params as { additionalProperty?: string }).additionalProperty)}` : ''}`,
  }));
}

/** A namespace.yaml already accepted by {@link validateNamespaceFile} (on save), loaded the same bounded way. */
export function parseNamespaceFile(source: string): NamespaceFile {
  return loadBounded(source).value ?? {};
}

/** parseFlowYaml, where an empty file (or one of comments only) is an empty namespace.yaml, which is valid. */
function loadBounded(source: string): ReturnType<typeof parseFlowYaml> {
  const parsed = parseFlowYaml(source);
  if (parsed.errors.length === 1 && /the flow file is empty/.test(parsed.errors[0].message)) return { value: {}, errors: [] };
  return parsed;
}
