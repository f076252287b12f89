// The API objects the CLI reads, as the OpenAPI document declares them:
// aliases of the types generated in @svc/api-spec
// (src/openapi-types.generated.ts), never retyped here.
// The type helpers by operation id are @svc/api-spec's (declared once).
import type { Schemas } from '@svc/api-spec/api-types';

export type { Answer, RequestBody, Page } from '@svc/api-spec/api-types';

export type ErrorDetail = Schemas['ErrorDetail'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type Execution = Schemas['Execution'];
export type ExecutionState = Schemas['ExecutionState'];
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
