// Runs an operation of the catalogue on behalf of a principal, from inside the
// gateway: the assistant's tools, its confirmed actions and the MCP tools go
// through here, so they get exactly the caller's permissions (the operation's
// minimum role), the operation's own validation, handler and audit events.
import type { Request, Response } from 'express';
import type { Operation } from '@svc/api-spec';
import {
  checkRole,
  checkRoleWithBody,
  createRequestValidator,
  encodeCursor,
  forbidden,
  HttpError,
  toHttpError,
  type CompiledOperation,
  type HttpLogger,
  type NamespaceRoles,
  type OperationHandlers,
  type UntypedHandlers,
} from '@svc/http';
import { engineErrorToHttp } from '../engine-errors.js';
import type { AuthPrincipal } from '../identity/principal.js';
import { assertAccountUsable } from '../identity/authenticate.js';

export interface InvokeInput {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

export interface InvokeResult {
  status: number;
  body: unknown;
}

export type Invoke = (operationId: string, principal: AuthPrincipal, input: InvokeInput, from: { req: Request; requestId: string; log: HttpLogger }) => Promise<InvokeResult>;

const REPLY = Symbol.for('svc.http.reply');

/**
 * The response a handler gets when invoked from inside: some handlers write
 * their JSON themselves (a log page); it is captured here, never sent on the
 * caller's own response (an MCP or event-stream response).
 */
class CapturedResponse {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  destroyed = false;
  locals: Record<string, unknown> = {};
  private readonly headers = new Map<string, unknown>();
  private chunks: Buffer[] = [];
  status(code: number) {
    this.statusCode = code;
    return this;
  }
  setHeader(name: string, value: unknown) {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }
  getHeader(name: string) {
    return this.headers.get(name.toLowerCase());
  }
  write(chunk: string | Buffer) {
    this.chunks.push(Buffer.from(chunk));
    return true;
  }
  end(chunk?: string | Buffer) {
    if (chunk !== undefined) this.write(chunk);
    this.writableEnded = true;
    return this;
  }
  on() {
    return this;
  }
  once() {
    return this;
  }
  off() {
    return this;
  }
  /** The JSON written, if any. */
  written(): unknown {
    if (!this.chunks.length) return undefined;
    const text = Buffer.concat(this.chunks).toString('utf8');
    const type = this.getHeader('content-type');
    return (typeof type === 'string' ? type : Array.isArray(type) ? type.join(',') : '').includes('json') ? JSON.parse(text) : text;
  }
}

/** An operation's failure as the HTTP error the API would have answered. */
export function asHttpError(err: unknown): HttpError {
  return engineErrorToHttp(err) ?? toHttpError(err);
}

/** The minimum role of an operation, or undefined for a public one. */
export function minRoleOf(op: Operation) {
  return op.auth.kind === 'role' ? op.auth.minRole : undefined;
}

export function createInvoker(
  operations: readonly Operation[],
  handlers: () => OperationHandlers,
  namespaceRoles?: NamespaceRoles<AuthPrincipal>,
): { invoke: Invoke; operation: (id: string) => Operation } {
  const byId = new Map(operations.map((o) => [o.operationId, o]));
  const validator = createRequestValidator();
  const compiled = new Map<string, CompiledOperation>();
  const operation = (id: string) => {
    const op = byId.get(id);
    if (!op) throw new Error(`no operation ${id}`);
    return op;
  };
  const invoke: Invoke = async (operationId, principal, input, from) => {
    const op = operation(operationId);
    const handler = (handlers() as UntypedHandlers)[operationId];
    if (!handler) throw new Error(`no handler for ${operationId}`);
    // A decision only a person may make (an approval) is never run from here, whatever the caller's role or confirmation.
    if (op.humanOnly) throw forbidden(`${operationId} is a person's decision: the AI assistant and MCP tools cannot make it; use the web UI, the CLI or the API`);
    // The same account check as /api/v1: a tool runs only what its caller could call there.
    assertAccountUsable(principal, operationId);
    // The same role check as /api/v1 (@svc/http roles.ts): the global role, raised on a namespace by its role bindings.
    if (op.auth.kind !== 'public' && op.auth.kind !== 'role') throw forbidden('This operation needs the another role');
    const parts = { params: input.params ?? {}, query: input.query ?? {} };
    if ((await checkRole(op, principal, parts, namespaceRoles)) === 'body') await checkRoleWithBody(op, principal, { ...parts, body: input.body ?? {} }, namespaceRoles!);
    let c = compiled.get(operationId);
    if (!c) compiled.set(operationId, (c = validator.compileOperation(op)));
    // Parameters arrive as strings over HTTP; the validator coerces them the same way here.
    const asStrings = (o: Record<string, unknown> | undefined) =>
      Object.fromEntries(
        Object.entries(o ?? {})
          .filter(([, v]) => v !== undefined && v !== null)
          .map(([k, v]) => [k, typeof v === 'string' || Array.isArray(v) ? v : String(v)]),
      );
    const res = new CapturedResponse();
    try {
      const v = c.validateRequest({ params: asStrings(input.params), query: asStrings(input.query), body: input.body });
      const result = await handler({
        req: from.req,
        res: res as unknown as Response,
        operation: op,
        params: v.params as Record<string, string>,
        query: v.query,
        body: v.body,
        ...(v.cursor ? { cursor: v.cursor } : {}),
        encodeCursor,
        principal,
        requestId: from.requestId,
        log: from.log,
      });
      // A reply(...) or a plain {status, body?, headers?} (mount.ts sends both the same way).
      const r = result as { status?: unknown; body?: unknown } | null;
      const plain = r && typeof r === 'object' && typeof r.status === 'number' && Object.keys(r).every((k) => k === 'status' || k === 'body' || k === 'headers');
      if (r && typeof r === 'object' && (REPLY in r || plain)) return { status: r.status as number, body: r.body ?? null };
      if (result === undefined && res.writableEnded) return { status: res.statusCode, body: res.written() ?? null };
      return { status: 200, body: result ?? null };
    } catch (err) {
      throw asHttpError(err);
    }
  };
  return { invoke, operation };
}
