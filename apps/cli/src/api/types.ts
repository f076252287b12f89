// The API objects the CLI reads, as the OpenAPI document declares them:
// aliases of the types generated in @svc/api-spec
// (src/openapi-types.generated.ts), never retyped here.
import type { components } from '@svc/api-spec/openapi-types';

type Schemas = components['schemas'];

export type ErrorDetail = Schemas['ErrorDetail'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type Execution = Schemas['Execution'];
export type TaskRun = Schemas['TaskRun'];

/** One page of a list operation: `{items, next_cursor?}` (every list in the document has this shape). */
export interface Page<T> {
  items: T[];
  next_cursor?: string;
}
