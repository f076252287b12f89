// `namespace.yaml` at a namespace root (decisions.md): `executor` defaults for
// the namespace's tasks (the flow file's Executor shape) and `variables`.
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as yaml from 'js-yaml';
import { flowSchema } from '@svc/flow-schema';

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
  let value: unknown;
  try {
    value = yaml.load(source, { schema: yaml.CORE_SCHEMA }) ?? {};
  } catch (err) {
    return [{ pointer: '', message: `not valid YAML: ${(err as Error).message.split('\n')[0]}` }];
  }
  if (check(value)) return [];
  return (check.errors ?? []).map((e) => ({
    pointer: e.instancePath,
    message: `${e.instancePath || 'namespace.yaml'} ${e.message}${e.keyword === 'additionalProperties' ? `: ${String((e.params as { additionalProperty?: string }).additionalProperty)}` : ''}`,
  }));
}

export function parseNamespaceFile(source: string): NamespaceFile {
  return (yaml.load(source, { schema: yaml.CORE_SCHEMA }) ?? {}) as NamespaceFile;
}
