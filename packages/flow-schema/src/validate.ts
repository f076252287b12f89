import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { explainErrors } from './explain.js';
import type { FlowDefinition } from './flow-definition.js';
import { FlowInvalidError, type FlowError } from './flow-error.js';
import { parseFlowSource, type ParseFlowOptions } from './parse.js';
import type { SourcePositions } from './positions.js';
import { EXTENSION_KEYWORD } from './schema/builders.js';
import { flowSchema } from './schema/flow-schema.js';
import { checkFlowSemantics } from './semantic.js';
import { flowExtensions, type ExtensionUse } from './extensions.js';

/** Result of {@link validateFlow}: the flow when it is valid, else the errors. */
export interface ValidateFlowResult {
  /** The loaded flow; present exactly when `errors` is empty. */
  flow?: FlowDefinition;
  /** Every problem, one per failing field, in source order. */
  errors: FlowError[];
  /** With the flow: the extensions of the flow format it uses (extensions.ts), with their lines when the source was given. */
  extensions?: ExtensionUse[];
}

/** A compiled flow schema. Compiling takes tens of milliseconds, so build one and reuse it. */
export interface FlowValidator {
  /** Parses and validates a `*.flow.yaml` source. */
  validate(source: string, opts?: ParseFlowOptions): ValidateFlowResult;
  /**
   * Validates an already loaded value (e.g. a flow sent as JSON). Errors
   * carry no line or column unless `positions` is given.
   */
  validateValue(value: unknown, positions?: SourcePositions): ValidateFlowResult;
}

/** Compiles {@link flowSchema} with ajv (draft 2020-12, all errors, strict). */
export function createFlowValidator(): FlowValidator {
  const ajv = new Ajv2020({
    allErrors: true,
    // parentSchema and data on each error let messages quote both bounds of a range and the bad value.
    verbose: true,
    strict: true,
    // Throw rather than log, so a schema mistake fails the build's tests instead of printing a warning.
    strictTypes: true,
    allowUnionTypes: true,
  });
  ajv.addKeyword({ keyword: EXTENSION_KEYWORD, schemaType: 'string' });
  const check: ValidateFunction = ajv.compile(flowSchema);

  const validateValue = (value: unknown, positions?: SourcePositions): ValidateFlowResult => {
    if (!check(value)) return { errors: explainErrors(check.errors ?? [], value, positions) };
    // Semantic checks read a schema-valid flow (ids, types and shapes are known good).
    const semantic = checkFlowSemantics(value as FlowDefinition, positions);
    return semantic.length ? { errors: semantic } : { flow: value as FlowDefinition, errors: [], extensions: flowExtensions(value as FlowDefinition, positions) };
  };

  return {
    validate(source, opts) {
      const parsed = parseFlowSource(source, opts);
      if (parsed.errors.length > 0 || parsed.value === undefined) return { errors: parsed.errors };
      return validateValue(parsed.value, parsed.positions);
    },
    validateValue,
  };
}

// A compiled schema holds no state between calls (ajv's `errors` is read
// synchronously right after each call), so sharing one is safe; it exists only
// to spare the compile cost for callers that use the plain functions. Callers
// that want their own instance use createFlowValidator().
let shared: FlowValidator | undefined;
function sharedValidator(): FlowValidator {
  shared ??= createFlowValidator();
  return shared;
}

/**
 * Parses a `*.flow.yaml` source and validates it against {@link flowSchema}.
 * Each error names one field, says what is wrong in words, and gives the
 * 1-based line and column of the failing node (of the parent object for a
 * missing field, of the key for an unknown one).
 */
export function validateFlow(source: string, opts?: ParseFlowOptions): ValidateFlowResult {
  return sharedValidator().validate(source, opts);
}

/** Validates an already loaded flow value (no source positions). */
export function validateFlowValue(value: unknown): ValidateFlowResult {
  return sharedValidator().validateValue(value);
}

/**
 * Like {@link validateFlow}, but returns the flow or throws
 * {@link FlowInvalidError}. `path` only names the file in the message.
 */
export function assertValidFlow(source: string, path?: string, opts?: ParseFlowOptions): FlowDefinition {
  const { flow, errors } = validateFlow(source, opts);
  if (flow === undefined) throw new FlowInvalidError(errors, path);
  return flow;
}
