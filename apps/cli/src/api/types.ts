// The API objects the CLI reads, as the OpenAPI document declares them:
// aliases of the types generated in @svc/api-spec
// (src/openapi-types.generated.ts), never retyped here.
import type { components, operations } from '@svc/api-spec/openapi-types';

type Schemas = components['schemas'];

type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body of an operation's answer with status `S` (its first 2xx by default), e.g. `Answer<'getFlow'>`. */
export type Answer<Op extends keyof operations, S extends keyof operations[Op]['responses'] = Extract<keyof operations[Op]['responses'], 200 | 201 | 202>> = JsonBody<
  operations[Op]['responses'][S]
>;
/** The JSON body an operation takes, e.g. `RequestBody<'triggerFlow'>`. */
export type RequestBody<Op extends keyof operations> = JsonBody<NonNullable<operations[Op]['requestBody']>>;

export type ErrorDetail = Schemas['ErrorDetail'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type Execution = Schemas['Execution'];
export type TaskRun = Schemas['TaskRun'];
export type LogLine = Schemas['LogLine'];
export type Artifact = Schemas['Artifact'];
export type FileEntry = Schemas['FileEntry'];
export type NamespaceDiff = Schemas['NamespaceDiff'];
export type AIUsage = Schemas['AIUsage'];
export type Me = Schemas['Me'];
export type ApiToken = Schemas['ApiToken'];
export type Instance = Schemas['Instance'];
export type FlowSummary = Schemas['FlowSummary'];
export type FlowRevision = Schemas['FlowRevision'];
export type Namespace = Schemas['Namespace'];
export type NamespaceVersion = Schemas['NamespaceVersion'];
export type SecretKey = Schemas['SecretKey'];
export type PlatformSecret = Schemas['PlatformSecret'];
export type Variable = Schemas['Variable'];

/** One page of a list operation: `{items, next_cursor?}`, as every list of the document (listExecutions' here) has it. */
export type Page<T> = Pick<Answer<'listExecutions'>, 'next_cursor'> & { items: T[] };
