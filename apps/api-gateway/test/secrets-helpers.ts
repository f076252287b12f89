// Shared by the secrets, variables and providers tests: calls that record
// every response (for the leak checks), and a check that a body matches the
// catalog's response schema.
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { operations } from '@svc/api-spec';
import type { TestGateway } from './helpers.js';
import { raw, type RawResponse } from './identity-helpers.js';

/** Every response seen: status, headers and body as text. */
export function createRecorder() {
  const seen: string[] = [];
  /** A request with a bearer token (or a session cookie), recorded. */
  async function call(gw: TestGateway, credential: string, method: string, path: string, body?: unknown): Promise<RawResponse> {
    const headers: Record<string, string> = credential.startsWith('svc_session=')
      ? { cookie: credential, 'sec-fetch-site': 'same-origin' }
      : { authorization: `Bearer ${credential}` };
    let text: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      text = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const r = await raw(gw, method, path, headers, text);
    seen.push(`${method} ${path} -> ${r.status} ${JSON.stringify(r.headers)} ${r.body}`);
    return r;
  }
  return { call, seen };
}

const ajv = new Ajv({ strict: false, validateFormats: false, allowUnionTypes: true });

/**
 * A copy of `schema` where every object that declares properties allows no
 * other (`additionalProperties: false`). The document keeps its objects open
 * so servers may add fields; closed, a body shows a field sent but never
 * declared. Free objects (no properties, as `arguments`) stay open.
 */
export function closedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closedSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = closedSchema(v);
  const props = out.properties;
  if (props !== null && typeof props === 'object' && Object.keys(props).length > 0 && out.additionalProperties === true) out.additionalProperties = false;
  return out;
}

/** Why `body` does not match the response schema of `operationId` for `status` (closed: with no undeclared field); undefined when it does. */
export function conformanceErrors(operationId: string, status: number, body: unknown, opts: { closed?: boolean } = {}): string | undefined {
  const op = operations.find((o) => o.operationId === operationId);
  assert.ok(op, operationId);
  const schema = op.responses[status]?.schema;
  assert.ok(schema, `${operationId} declares no schema for ${status}`);
  const validate = ajv.compile((opts.closed ? closedSchema(schema) : schema) as object);
  return validate(body) ? undefined : ajv.errorsText(validate.errors);
}

/** Asserts that `body` matches the response schema of `operationId` for `status`; closed: and sends no field the document does not declare. */
export function assertConforms(operationId: string, status: number, body: unknown, opts: { closed?: boolean } = {}): void {
  const errors = conformanceErrors(operationId, status, body, opts);
  assert.equal(errors, undefined, `${operationId} ${status}${opts.closed ? ' (closed)' : ''}: ${errors} in ${JSON.stringify(body)}`);
}

/** Asserts that none of `texts` contains any of `planted`, naming the first offender. */
export function assertNoLeak(planted: readonly string[], texts: readonly string[]): void {
  for (const value of planted) {
    const hit = texts.find((t) => t.includes(value));
    assert.equal(hit, undefined, `planted value ${value} leaked in: ${hit?.slice(0, 400)}`);
  }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
