import type { TSchema } from '@sinclair/typebox';
import type { SpecRole } from './roles.js';

/**
 * Who may call an operation.
 * - `public`: no credential (login, the flow schema).
 * - `role`: a session cookie or bearer API token whose effective role is at least `minRole`.
 * - `run_token`: the bearer run token of a task run (runner protocol).
 * - `webhook_key`: the secret key in the path of `/hooks/{key}`.
 * - `signature`: a signature over the body (git push notifications).
 * - `org_key`: a bearer `svc_live_` key of an organization (the organization
 *   email interface, outside the operation index and the OpenAPI document).
 */
export type OperationAuth =
  { kind: 'public' } | { kind: 'role'; minRole: SpecRole } | { kind: 'run_token' } | { kind: 'webhook_key' } | { kind: 'signature' } | { kind: 'org_key' };

export type AuthKind = OperationAuth['kind'];

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type Tag =
  | 'auth'
  | 'users'
  | 'tokens'
  | 'executions'
  | 'flows'
  | 'namespaces'
  | 'secrets'
  | 'variables'
  | 'secret-providers'
  | 'git'
  | 'instances'
  | 'storage'
  | 'audit'
  | 'ai'
  | 'organizations'
  | 'alerts'
  | 'stats'
  | 'schedules'
  | 'schemas'
  | 'runner'
  | 'hooks'
  | 'emails';

/** Request parts, each a JSON Schema object (TypeBox) with named properties. */
export interface OperationRequest {
  /** Path parameters; every property must match a `{name}` of the path. */
  params?: TSchema;
  /** Query parameters; validated with type coercion and defaults. */
  query?: TSchema;
  /** Request body schema. Absent: the operation reads no body. */
  body?: TSchema;
  /** Media type of the body. Default `application/json`; other types are read by the handler itself. */
  bodyContentType?: string;
  /** Whether a body must be sent. Default true when `body` is set. */
  bodyRequired?: boolean;
  /**
   * Largest body in bytes, when lower than the server's limit
   * (SVC_MAX_BODY_BYTES): public operations read their body before any
   * credential, so they take only what they need (413 `body_too_large` past it).
   */
  bodyLimit?: number;
  /**
   * What the decoded `cursor` query parameter holds (schemas/cursors.ts), for
   * list operations. Checked with the rest of the request, so a cursor a
   * handler gets is well typed and in range. Never shown in OpenAPI: cursors
   * are opaque to clients.
   */
  cursor?: TSchema;
}

export interface OperationResponse {
  description: string;
  /** Response body schema; absent for empty responses (204) or when only the media type is known. */
  schema?: TSchema;
  /** Default `application/json` when a schema is given. */
  contentType?: string;
  /** Response headers worth documenting (name → description). */
  headers?: Record<string, string>;
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI form, `{param}` for path parameters. */
  path: string;
  tag: Tag;
  summary: string;
  description?: string;
  auth: OperationAuth;
  request: OperationRequest;
  /**
   * Responses keyed by status. The lowest 2xx is the status a handler gets when it
   * returns a bare value. Error statuses listed here without a schema get the
   * error envelope; the generic errors (401, 403, 404, 422, 500...) are added by
   * the OpenAPI builder and need not be listed.
   */
  responses: Record<number, OperationResponse>;
  /**
   * Only the caller's global role counts, even where the operation names a
   * namespace: role bindings never raise a caller's role for it (the role
   * binding operations themselves).
   */
  globalRoleOnly?: boolean;
  /** Response is a `text/event-stream` that stays open (see service-spec "Events"). */
  streaming?: boolean;
  /**
   * Only a person may call it: the AI assistant and MCP tools never run it,
   * whatever the caller's role and whatever is confirmed (approvals).
   */
  humanOnly?: boolean;
}

/** The status a handler's bare return value is sent with. */
export function successStatus(op: Pick<Operation, 'responses'>): number {
  const ok = Object.keys(op.responses)
    .map(Number)
    .filter((s) => s >= 200 && s < 300)
    .sort((a, b) => a - b);
  return ok[0] ?? 200;
}
