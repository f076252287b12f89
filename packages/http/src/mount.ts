import type { Request, Response, Router } from 'express';
import {
  successStatus,
  type Answer,
  type ApiOperations,
  type CursorOperationId,
  type HandlerQuery,
  type Operation,
  type OperationId,
  type PathParams,
  type PublicOperationId,
  type RequestBody,
  type Role,
} from '@svc/api-spec';
import { assertNever } from '@svc/assert';
import { encodeCursor, type Cursor } from './cursor.js';
import { notImplemented, unauthorized, validationFailed } from './errors.js';
import { assertJsonContentType, createRawBodyReader, parseJsonBody, DEFAULT_BODY_LIMIT } from './body.js';
import { withFields, type HttpLogger } from './logger.js';
import { createRequestValidator, replaceNul, type RequestValidator } from './validation.js';
import { checkRole, checkRoleWithBody, type NamespaceRoles } from './roles.js';

/** What `authenticate` returns for a session or API token: at least a role. */
export interface Principal {
  role: Role;
}

/** Everything a handler gets, whatever its operation. Parts are validated copies (query coerced and defaulted), untyped here. */
export interface BaseHandlerContext<P = unknown> {
  req: Request;
  res: Response;
  operation: Operation;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The parsed JSON body; for non-JSON bodies it is unread (stream `req` yourself). */
  body: unknown;
  /** Decoded `cursor` query parameter of list operations. */
  cursor?: Record<string, unknown>;
  /** The `next_cursor` of a page that ends at the row with this sort key (set for every operation; typed only for those that take a cursor). */
  encodeCursor?(this: void, value: Record<string, unknown>): string;
  /** Result of the operation's authenticator; undefined for public operations. */
  principal: P | undefined;
  requestId: string;
  /** Stamps `request_id` on every line. */
  log: HttpLogger;
}

/**
 * What the handler of operation `Op` gets: the parts typed from the OpenAPI
 * document by its operation id (`HandlerContext<AuthPrincipal, 'triggerFlow'>`
 * has triggerFlow's path parameters, query and body), the cursor by the
 * operation's entry in `OPERATION_CURSORS`, and the principal as present
 * unless the operation is public (the mount refuses a request without one
 * before the handler runs). Without `Op` (helpers that take any handler's
 * context) the parts are untyped; a typed context is assignable to the
 * untyped one.
 */
export type HandlerContext<P = unknown, Op extends OperationId | undefined = undefined> = Op extends OperationId
  ? Omit<BaseHandlerContext<P>, 'params' | 'query' | 'body' | 'cursor' | 'encodeCursor' | 'principal'> & {
      params: PathParams<Op>;
      query: HandlerQuery<Op>;
      /** The parsed JSON body, validated against the operation's schema; `undefined` for raw bodies (read `req` yourself). */
      body: JsonRequestBody<Op>;
      /** Result of the operation's authenticator: always there when the operation needs a credential. */
      principal: Op extends PublicOperationId ? P | undefined : P;
    } & CursorParts<Op>
  : BaseHandlerContext<P>;

/**
 * The cursor of an operation that takes one: `cursor` as it was decoded
 * and checked against the operation's shape (a cursor of another shape is
 * 422 before the handler runs), and `encodeCursor` that takes the same shape,
 * so what a page encodes is what the next request decodes.
 */
type CursorParts<Op extends OperationId> = Op extends CursorOperationId
  ? {
      /** The decoded `cursor` query parameter; absent on the first page. */
      cursor?: Cursor<Op>;
      /** The `next_cursor` of a page that ends at the row with this sort key. */
      encodeCursor(this: void, value: Cursor<Op>): string;
    }
  : { cursor?: undefined };

const REPLY = Symbol.for('svc.http.reply');

/**
 * The body of an operation's request when it is JSON (or undefined where the
 * document makes it optional); `undefined` for raw bodies (uploadFile) and
 * operations without one.
 */
type JsonRequestBody<Op extends OperationId> = [RequestBody<Op>] extends [never]
  ? undefined
  : undefined extends ApiOperations[Op]['requestBody']
    ? RequestBody<Op> | undefined
    : RequestBody<Op>;

/** A response with an explicit status (and headers); `body` undefined sends no body. */
export interface Reply<B = unknown> {
  readonly [REPLY]: true;
  status: number;
  readonly body?: B;
  headers?: Record<string, string>;
}

export function reply<B = undefined>(status: number, body?: B, headers?: Record<string, string>): Reply<B> {
  return { [REPLY]: true, status, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) };
}

/** Any answer body the document declares for an operation, whatever its status. */
type AnyAnswer<Op extends OperationId> = { [S in keyof ApiOperationResponses<Op>]: Answer<Op, S> }[keyof ApiOperationResponses<Op>];
type ApiOperationResponses<Op extends OperationId> = ApiOperations[Op]['responses'];

/**
 * What a handler of `Op` may return: its success answer (sent with the
 * operation's success status), a `reply(status, body)` whose body is one of
 * the operation's answers, or nothing after writing the response itself.
 */
export type HandlerResult<Op extends OperationId | undefined> = Op extends OperationId ? Answer<Op> | Reply<AnyAnswer<Op> | undefined> | void : unknown;

/**
 * A handler returns a value (sent as JSON with the operation's success status,
 * e.g. 201 for triggerFlow), a `reply(...)` or a plain `{status, body}` object
 * with a numeric status and no other keys but `headers`, or nothing after
 * writing the response itself (streams, downloads).
 */
export type Handler<P = unknown, Op extends OperationId | undefined = undefined> = (ctx: HandlerContext<P, Op>) => HandlerResult<Op> | Promise<HandlerResult<Op>>;

/**
 * Handlers by operation id, each typed by its operation; each route group
 * contributes its part of the map.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a map of any principal's handlers: Handler<P> is contravariant in P, so no other default accepts them all
export type OperationHandlers<P = any> = { [Op in OperationId]?: Handler<P, Op> };

/** A handler for every operation of the OpenAPI document: a missing one fails to compile. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as OperationHandlers
export type AllOperationHandlers<P = any> = { [Op in OperationId]: Handler<P, Op> };

/**
 * Handlers by id, untyped: for operations outside the OpenAPI document (the
 * organization email interface), whose handlers declare the type of the part
 * the schema validated (`{ body }: HandlerContext<P> & { body: SendEmailBody }`),
 * and for code that looks a handler up by a runtime id.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as OperationHandlers
export type UntypedHandlers<P = any> = Partial<Record<string, { bivariant(ctx: BaseHandlerContext<P>): unknown }['bivariant']>>;

export interface MountOptions<P extends Principal = Principal> {
  operations: readonly Operation[];
  /** Handlers by operationId. An operation without one answers 501 `not_implemented`. */
  handlers: OperationHandlers | UntypedHandlers;
  /**
   * Resolves the session cookie or bearer API token of a `role` operation.
   * Returns the principal, or throws (401 `unauthorized`, 403
   * `csrf_failed`/`password_change_required`; the operation is given so the
   * latter can exempt the own-profile operations). Returning undefined is 401.
   */
  authenticate: (req: Request, op: Operation) => P | undefined | Promise<P | undefined>;
  /**
   * Role bindings: a caller whose global role falls short of an
   * operation's may still call it on a namespace where a binding raises its
   * role (roles.ts). Absent: the global role only.
   */
  namespaceRoles?: NamespaceRoles<P>;
  /** Verifies the bearer run token of a runner operation. Required once a runner handler is mounted. */
  authenticateRunner?: (req: Request, op: Operation) => unknown; // a value, or a promise of one
  /** Verifies the key in the path of `/hooks/{key}`. Required once its handler is mounted. */
  verifyWebhookKey?: (req: Request, op: Operation) => unknown; // a value, or a promise of one
  /**
   * Verifies the signature of a signed webhook over the raw body, which is read
   * first (within the body limit) for that reason.
   */
  verifySignature?: (req: Request, rawBody: Buffer, op: Operation) => unknown; // a value, or a promise of one
  /** Verifies the bearer organization key of an `org_key` operation (401 when it is not live, 429 past the organization's rate). */
  authenticateOrgKey?: (req: Request, op: Operation) => unknown; // a value, or a promise of one
  log: HttpLogger;
  /** Largest JSON body in bytes. Default 10 MiB (413 `body_too_large` beyond). */
  bodyLimit?: number | string;
  /** Shared validator (compiled schemas are cached in it). Default: a new one. */
  validator?: RequestValidator;
}

/** `/api/v1/executions/{executionId}` → `/api/v1/executions/:executionId` (express 5 syntax). */
export function toExpressPath(path: string): string {
  return path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

function isPlainReply(value: unknown): value is { status: number; body?: unknown; headers?: Record<string, string> } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return typeof (value as { status?: unknown }).status === 'number' && keys.every((k) => k === 'status' || k === 'body' || k === 'headers');
}

function send(res: Response, op: Operation, result: unknown): void {
  if (res.headersSent || res.writableEnded) return;
  let status = successStatus(op);
  let body = result;
  let headers: Record<string, string> | undefined;
  if ((result as Reply | null)?.[REPLY] === true || isPlainReply(result)) {
    const r = result as { status: number; body?: unknown; headers?: Record<string, string> };
    ({ status, body, headers } = r);
  }
  for (const [k, v] of Object.entries(headers ?? {})) res.setHeader(k, v);
  if (body === undefined) {
    res.status(status === 200 ? 204 : status).end();
    return;
  }
  res.status(status).json(body);
}

/**
 * Registers every catalog operation on `router`. Per request, in this order:
 * 1. no handler → 501 `not_implemented`;
 * 2. credential and role check (401/403) — before a byte of the body is read,
 *    so a caller without the role never sees validation details;
 * 3. JSON body: 415, 413, invalid JSON (422);
 * 4. validation of path, query and body (one 422 listing every failing field);
 * 5. the handler.
 */
export function mountOperations<P extends Principal>(router: Router, opts: MountOptions<P>): void {
  const known = new Set(opts.operations.map((o) => o.operationId));
  const strays = Object.keys(opts.handlers).filter((id) => !known.has(id));
  // A misspelt operationId would otherwise leave its route answering 501 without a word.
  if (strays.length > 0) throw new Error(`handlers for unknown operations: ${strays.join(', ')}`);
  const validator = opts.validator ?? createRequestValidator();
  const serverLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const readRaw = createRawBodyReader({ limit: serverLimit });

  for (const op of opts.operations) {
    const handler = (opts.handlers as UntypedHandlers)[op.operationId];
    const compiled = validator.compileOperation(op);
    const jsonBody = op.request.body !== undefined && (op.request.bodyContentType ?? 'application/json') === 'application/json';
    const opLimit = op.request.bodyLimit;
    const readBody = opLimit !== undefined && (typeof serverLimit !== 'number' || opLimit < serverLimit) ? createRawBodyReader({ limit: opLimit }) : readRaw;
    if (handler) assertVerifier(op, opts);
    if (handler) assertCursorShape(op);

    router[op.method](toExpressPath(op.path), async (req: Request, res: Response) => {
      res.locals.route = op.path;
      res.locals.operationId = op.operationId;
      // The execution or task run a request is about: on its request line and on every line its handler writes.
      const about = workOf(req.params);
      if (about) res.locals.logFields = about;
      // Nothing runs without a handler, so there is nothing to protect yet:
      // answering 501 before the credential check tells no secrets.
      if (!handler) throw notImplemented(op.operationId);

      let principal: unknown;
      let raw: Buffer | undefined;
      let bodyRoleCheck = false;
      const auth = op.auth;
      switch (auth.kind) {
        case 'public':
          break;
        case 'role': {
          const p = await opts.authenticate(req, op);
          if (p === undefined || p === null) throw unauthorized();
          bodyRoleCheck = (await checkRole(op, p, { params: req.params, query: req.query }, opts.namespaceRoles)) === 'body';
          principal = p;
          break;
        }
        case 'run_token':
          principal = await opts.authenticateRunner!(req, op);
          break;
        case 'webhook_key':
          principal = await opts.verifyWebhookKey!(req, op);
          break;
        case 'org_key':
          principal = await opts.authenticateOrgKey!(req, op);
          break;
        case 'signature':
          if (jsonBody) assertJsonContentType(req);
          raw = await readBody(req, res);
          principal = await opts.verifySignature!(req, raw ?? Buffer.alloc(0), op);
          break;
        default:
          assertNever(auth, 'auth kind');
      }
      // The handler of an operation that needs a credential is typed with its principal present.
      if (auth.kind !== 'public' && (principal === undefined || principal === null)) throw unauthorized();

      let body: unknown;
      if (jsonBody) {
        if (auth.kind !== 'signature') {
          assertJsonContentType(req);
          raw = await readBody(req, res);
        }
        body = parseJsonBody(raw);
        // A namespace named in the body: checked once the body is parsed, before it is validated.
        if (bodyRoleCheck) await checkRoleWithBody(op, principal as P, { params: req.params, query: req.query, body }, opts.namespaceRoles!);
        // What a runner reports comes from the task (its output, its outputs file): a NUL in it is
        // kept as U+FFFD rather than refused, which would lose the report. Other callers get 422.
        if (auth.kind === 'run_token' && raw?.includes('\\u0000')) body = replaceNul(body);
      }

      const v = compiled.validateRequest({ params: req.params, query: req.query, body });
      const requestId = String(res.locals.requestId ?? '');
      const result = await handler({
        req,
        res,
        operation: op,
        params: v.params as Record<string, string>,
        query: v.query,
        body: jsonBody ? v.body : undefined,
        ...(v.cursor ? { cursor: v.cursor } : {}),
        encodeCursor,
        principal,
        requestId,
        log: withFields(opts.log, { request_id: requestId, operation_id: op.operationId, ...about }),
      });
      send(res, op, result);
    });
  }

  router.use((err: unknown, req: Request, _res: Response, next: (err?: unknown) => void) => {
    next(err instanceof URIError && (err as { status?: unknown }).status === 400 ? undecodableParam(opts.operations, req) : err);
  });
}

/** The execution_id and task_run_id named by a request's path, if any. */
function workOf(params: Record<string, unknown> | undefined): { execution_id?: string; task_run_id?: string } | undefined {
  const e = params?.executionId;
  const t = params?.taskRunId;
  if (typeof e !== 'string' && typeof t !== 'string') return undefined;
  return { ...(typeof e === 'string' ? { execution_id: e } : {}), ...(typeof t === 'string' ? { task_run_id: t } : {}) };
}

/** True when `segment` does not decode as percent-encoded UTF-8 (`%zz`, a lone `%`, `%ff`). */
function undecodable(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return false;
  } catch {
    return true;
  }
}

/**
 * The 422 for a path whose parameter express could not decode. Express throws
 * a URIError with `status` 400 and no `expose`, which would otherwise surface
 * as a 500; the field is the parameter's own name (spec: "A query or path
 * parameter uses its own name as the field"), found by matching the raw path
 * against the operations of the request's method.
 */
function undecodableParam(operations: readonly Operation[], req: Request) {
  const segments = req.path.split('/');
  for (const op of operations) {
    if (op.method !== req.method.toLowerCase()) continue;
    const pattern = op.path.split('/');
    if (pattern.length !== segments.length) continue;
    let field: string | undefined;
    const matches = pattern.every((p, i) => {
      const name = /^\{([^}]+)\}$/.exec(p)?.[1];
      if (name === undefined) return p === segments[i];
      if (field === undefined && undecodable(segments[i])) field = name;
      return segments[i] !== '';
    });
    if (matches && field !== undefined) return validationFailed([{ field, message: 'is not valid percent-encoded UTF-8' }]);
  }
  return validationFailed([{ field: 'path', message: 'is not valid percent-encoded UTF-8' }]);
}

function assertVerifier<P extends Principal>(op: Operation, opts: MountOptions<P>): void {
  const missing =
    (op.auth.kind === 'run_token' && !opts.authenticateRunner && 'authenticateRunner') ||
    (op.auth.kind === 'webhook_key' && !opts.verifyWebhookKey && 'verifyWebhookKey') ||
    (op.auth.kind === 'signature' && !opts.verifySignature && 'verifySignature') ||
    (op.auth.kind === 'org_key' && !opts.authenticateOrgKey && 'authenticateOrgKey');
  if (missing) throw new Error(`${op.operationId} has a handler but no ${missing} was given to mountOperations`);
}

/** A list operation with a handler says what its cursor holds, so the validator can check every cursor before the handler sees it. */
function assertCursorShape(op: Operation): void {
  const query = op.request.query as { properties?: Record<string, unknown> } | undefined;
  if (query?.properties?.cursor !== undefined && op.request.cursor === undefined) {
    throw new Error(`${op.operationId} takes a cursor but declares no request.cursor shape`);
  }
}
