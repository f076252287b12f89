import { inspect } from 'node:util';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { HttpError, errorEnvelope, notFound } from './errors.js';
import type { HttpLogger } from './logger.js';
import { REQUEST_ID_HEADER } from './request-id.js';
import { API_NOT_FOUND_ROUTE, UNMATCHED_ROUTE, routeOf } from './request-logger.js';

const STATUS_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'body_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
};

/**
 * Anything thrown becomes an HttpError. Client errors raised by express or its
 * parsers (http-errors style: `status` 4xx with `expose`) keep their status;
 * everything else is 500 `internal`, whose message never reaches the client.
 */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const e = err as { status?: unknown; statusCode?: unknown; expose?: unknown; message?: unknown } | null;
  const status = Number(e?.status ?? e?.statusCode);
  if (status >= 400 && status < 500 && e?.expose === true) {
    return new HttpError(status, STATUS_CODES[status] ?? 'bad_request', typeof e.message === 'string' ? e.message : 'Bad request', { cause: err });
  }
  return new HttpError(500, 'internal', 'Internal error; the server log has the cause with the request ID', { cause: err });
}

function describeCause(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    return {
      error: err.message,
      error_name: err.name,
      stack: err.stack,
      ...(err.cause !== undefined ? { cause: err.cause instanceof Error ? (err.cause.stack ?? err.cause.message) : inspect(err.cause) } : {}),
    };
  }
  return { error: String(err) };
}

/**
 * The one place errors become the envelope `{error: {code, message, details?}}`.
 * `mapError` turns an app's domain errors into HttpErrors (the gateway maps
 * the engine's coded errors there); whatever it leaves is mapped as usual.
 * 5xx causes are logged at error level with the request ID and stack.
 */
export function errorHandler(log: HttpLogger, opts: { mapError?: (err: unknown) => HttpError | undefined } = {}): ErrorRequestHandler {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- Express tells an error handler by its four parameters
  return (err, req, res, _next) => {
    // The app's domain errors (the engine's coded errors) first, then the generic mapping.
    const httpErr = (err instanceof HttpError ? undefined : opts.mapError?.(err)) ?? toHttpError(err);
    const requestId = res.locals.requestId as string | undefined;
    if (httpErr.status >= 500 && httpErr.status !== 501) {
      const cause = httpErr.code === 'internal' && httpErr.cause !== undefined ? httpErr.cause : httpErr;
      log.error('request failed', {
        request_id: requestId,
        method: req.method,
        route: routeOf(req, res),
        status: httpErr.status,
        ...(res.locals.logFields as Record<string, string> | undefined),
        ...describeCause(cause),
      });
    }
    if (res.headersSent) {
      // A stream already started: no envelope can follow, so cut the connection
      // rather than leave a body that looks complete.
      res.destroy();
      return;
    }
    if (requestId !== undefined) res.setHeader(REQUEST_ID_HEADER, requestId);
    for (const [name, value] of Object.entries(httpErr.headers ?? {})) res.setHeader(name, value);
    res.status(httpErr.status).json(errorEnvelope(httpErr));
  };
}

/** Mount at `/api`, after every API route: an unknown API route is 404 `not_found`. */
export function apiNotFound(): RequestHandler {
  return (req, res, next) => {
    res.locals.route = API_NOT_FOUND_ROUTE;
    next(notFound(`No API route for ${req.method} ${req.baseUrl}${req.path}`));
  };
}

/**
 * Last of all: a request nothing matched gets the envelope (and its request
 * ID) rather than express's HTML page, which drops every header.
 */
export function unmatched(): RequestHandler {
  return (req, res, next) => {
    res.locals.route ??= UNMATCHED_ROUTE;
    next(notFound(`No route for ${req.method} ${req.path}`));
  };
}
