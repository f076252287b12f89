// The API's shapes the handlers take and send: the types generated from the
// OpenAPI document (@svc/api-spec, src/openapi-types.generated.ts), so a
// handler that builds a body the document does not declare fails to compile.
import type { ApiOperations, components } from '@svc/api-spec';

export type Schemas = components['schemas'];

type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body of an operation's answer with status `S` (its first 2xx by default), e.g. `Answer<'listTokens'>`. */
export type Answer<Op extends keyof ApiOperations, S extends keyof ApiOperations[Op]['responses'] = Extract<keyof ApiOperations[Op]['responses'], 200 | 201 | 202>> = JsonBody<
  ApiOperations[Op]['responses'][S]
>;

/** The JSON body an operation takes (validated against its schema before the handler runs), e.g. `RequestBody<'createToken'>`. */
export type RequestBody<Op extends keyof ApiOperations> = JsonBody<NonNullable<ApiOperations[Op]['requestBody']>>;
