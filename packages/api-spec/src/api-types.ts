// The API's shapes by operation id, declared once for every side: the
// gateway's handlers (@svc/http types `ctx.body`, `ctx.query`, `ctx.params`
// and the answer with them), the typed client (client.ts) and the web UI
// and CLI. Types only, from the generated document types, so browser code
// imports them without pulling in anything of the server.
import type { components, minRoles, operations, queryDefaults } from './openapi-types.generated.js';

/** An operation id of the OpenAPI document: the key of every type below. */
export type OperationId = keyof operations;

/** The document's named schemas, e.g. `Schemas['Execution']`. */
export type Schemas = components['schemas'];

type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Params<Op extends OperationId> = operations[Op]['parameters'];
/** `never` (a part the operation does not have) as an object without keys. */
type OrEmpty<T> = [T] extends [never] ? Record<string, never> : T;

/** The success statuses an operation may answer with. */
export type SuccessStatus<Op extends OperationId> = Extract<keyof operations[Op]['responses'], 200 | 201 | 202 | 204>;

/** The JSON body of an operation's answer with status `S` (its first 2xx by default), e.g. `Answer<'listTokens'>`. */
export type Answer<Op extends OperationId, S extends keyof operations[Op]['responses'] = Extract<keyof operations[Op]['responses'], 200 | 201 | 202>> = JsonBody<
  operations[Op]['responses'][S]
>;

/** The JSON body an operation takes, e.g. `RequestBody<'createToken'>`; never for an operation without one. */
export type RequestBody<Op extends OperationId> = JsonBody<NonNullable<operations[Op]['requestBody']>>;

/** The path parameters of an operation, e.g. `PathParams<'getExecution'>` is `{executionId: string}`. */
export type PathParams<Op extends OperationId> = OrEmpty<NonNullable<Params<Op>['path']>>;

/** The query parameters a client may send. */
export type QueryParams<Op extends OperationId> = OrEmpty<NonNullable<Params<Op>['query']>>;

/**
 * The query as a handler gets it: validated, coerced, with the defaults of
 * the document filled in (`limit` of every list is always there).
 */
export type HandlerQuery<Op extends OperationId> = Op extends keyof queryDefaults
  ? QueryParams<Op> & { [K in Extract<queryDefaults[Op], keyof QueryParams<Op>>]-?: NonNullable<QueryParams<Op>[K]> }
  : QueryParams<Op>;

/** The operations anyone may call, without a credential (login, the flow schema...): their handlers may get no principal. */
export type PublicOperationId = { [Op in OperationId]: minRoles[Op] extends 'public' ? Op : never }[OperationId];

/** The operations whose query takes a `cursor` (the lists, and the log page). */
export type CursorOperationId = {
  [Op in OperationId]: [NonNullable<Params<Op>['query']>] extends [never] ? never : 'cursor' extends keyof NonNullable<Params<Op>['query']> ? Op : never;
}[OperationId];

/** The operations that answer a page `{items, next_cursor?}` and take a `cursor`. */
export type ListOperationId = {
  [Op in OperationId]: Answer<Op> extends { items: unknown[]; next_cursor?: string } ? ('cursor' extends keyof QueryParams<Op> ? Op : never) : never;
}[OperationId];

/** One item of a list operation's page, e.g. `Item<'listExecutions'>` is an Execution. */
export type Item<Op extends ListOperationId> = Answer<Op> extends { items: (infer T)[] } ? T : never;

/** One page of a list: `{items, next_cursor?}`, as every list of the document has it. */
export type Page<T> = { items: T[]; next_cursor?: string };

/** The error envelope of every failure: `{error: {code, message, details?}}`. */
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type ErrorDetail = Schemas['ErrorDetail'];
