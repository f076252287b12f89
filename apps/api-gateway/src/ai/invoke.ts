// Runs an operation of the catalogue on behalf of a principal, from inside the
// gateway: the assistant's tools, its confirmed actions and the MCP tools go
// through here, so they get exactly the caller's permissions (the operation's
// minimum role), the operation's own validation, handler and audit events.
import type { Request } from 'express';
import { roleAtLeast, type Operation } from '@svc/api-spec';
import { createRequestValidator, forbidden, HttpError, toHttpError, type CompiledOperation, type HttpLogger, type OperationHandlers } from '@svc/http';
import { engineErrorToHttp } from '../engine-errors.js';
import type { AuthPrincipal } from '../identity/principal.js';

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

/** An operation's failure as the HTTP error the API would have answered. */
export function asHttpError(err: unknown): HttpError {
  return engineErrorToHttp(err) ?? toHttpError(err);
}

/** The minimum role of an operation, or undefined for a public one. */
export function minRoleOf(op: Operation) {
  return op.auth.kind === 'role' ? op.auth.minRole : undefined;
}

export function createInvoker(operations: readonly Operation[], handlers: () => OperationHandlers): { invoke: Invoke; operation(id: string): Operation } {
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
    const handler = handlers()[operationId];
    if (!handler) throw new Error(`no handler for ${operationId}`);
    const need = minRoleOf(op);
    if (op.auth.kind !== 'public' && !(need && roleAtLeast(principal.role, need))) throw forbidden(`This operation needs the ${need ?? 'another'} role`);
    let c = compiled.get(operationId);
    if (!c) compiled.set(operationId, (c = validator.compileOperation(op)));
    // Parameters arrive as strings over HTTP; the validator coerces them the same way here.
    const asStrings = (o: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, typeof v === 'string' || Array.isArray(v) ? v : String(v)]));
    try {
      const v = c.validateRequest({ params: asStrings(input.params), query: asStrings(input.query), body: input.body });
      const result = (await handler({
        req: from.req,
        res: from.req.res!,
        operation: op,
        params: v.params as Record<string, string>,
        query: v.query,
        body: v.body,
        ...(v.cursor ? { cursor: v.cursor } : {}),
        principal,
        requestId: from.requestId,
        log: from.log,
      })) as unknown;
      // A reply(...) or a plain {status, body?, headers?} (mount.ts sends both the same way).
      const r = result as { status?: unknown; body?: unknown } | null;
      const plain = r && typeof r === 'object' && typeof r.status === 'number' && Object.keys(r).every((k) => k === 'status' || k === 'body' || k === 'headers');
      if (r && typeof r === 'object' && (REPLY in r || plain)) return { status: r.status as number, body: r.body ?? null };
      return { status: 200, body: result ?? null };
    } catch (err) {
      throw asHttpError(err);
    }
  };
  return { invoke, operation };
}
